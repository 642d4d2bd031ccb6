// Photon (Exit Games: PUN, Photon Realtime, Photon Cloud) over UDP, TCP and WebSocket.
// See docs/photon.md.

import { DecodeError, FieldReader } from '../../bytes/reader'
import { TreeBuilder } from '../../bytes/tree'
import { NEED_MORE, type ProbeInput, type ProtocolModule } from '../registry'
import { PhotonDecoder } from './decoder'
import { SIGNAL, SIGNAL_ALT, startsMessage } from './message'
import { SIGNAL_INIT_V3 } from './init'
import { TCP_MESSAGE, tcpFrameAt } from './tcp'
import { carriesMessage, readCommand, readHeader } from './udp'

export { PhotonDecoder } from './decoder'

/** Official ports (UDP NameServer/Master/Game, TCP, WebSocket); they only break ties between probes. */
const PORTS = [5055, 5056, 5058, 27000, 27001, 27002, 4530, 4531, 4533, 9090, 9091, 9093, 19090, 19091, 19093]
const WS_URL = /[?&](libversion|sid|app)=/i

/** A whole datagram whose header and every command parse to its exact end is near certainly Photon. */
function probeUdp(b: Uint8Array): number {
  if (b.length < 12) return 0
  const flags = b[2]
  if (flags === 0x01) {
    // Datagram encryption: 7-byte header, IV + AES blocks, 32-byte HMAC.
    const blob = b.length - 7 - 32
    return blob >= 32 && blob % 16 === 0 ? 25 : 0
  }
  if (flags !== 0x00 && flags !== 0xcc) return 0
  if (b[3] === 0) return 0
  const r = new FieldReader(b, new TreeBuilder(false), 0)
  try {
    const h = readHeader(r)
    let messages = 0
    for (let i = 0; i < h.commandCount; i++) {
      const c = readCommand(r)
      if (c.type < 1 || c.type > 16 || c.type === 9 || c.type === 10) return 0
      if (carriesMessage(c.type)) {
        if (!startsMessage(b, c.payloadStart, c.payloadEnd)) return 0
        messages++
      }
    }
    if (r.remaining !== 0) return 0
    if (h.crc) return h.crc.ok ? 100 : 60
    return messages ? 95 : 85
  } catch (e) {
    if (e instanceof DecodeError) return 0
    throw e
  }
}

function probeTcp(b: Uint8Array, onPort: boolean): number {
  const fr = tcpFrameAt(b, true)
  // An FB frame header is only sure with the message's signal byte after it: wait for it.
  if (fr.kind === 'message') {
    // An HTTP-style init ("POST /?") needs its first bytes to be told apart.
    if (b.length <= 7 || (b[7] === 0x50 && b.length < 14)) return NEED_MORE
    return startsMessage(b, 7) ? 90 : 0
  }
  if (fr.kind === 'need' && b[0] === TCP_MESSAGE) return NEED_MORE
  if (fr.kind === 'ping') return onPort && (b.length === 5 || b.length === 9) ? 40 : 0
  return 0
}

function probeWs(b: Uint8Array, path: string | undefined, protocol: string | undefined): number {
  const url = !!path && WS_URL.test(path)
  const sub = !!protocol && /^GpBinaryV1[68]$/i.test(protocol)
  if (b.length > 1 && b[0] === SIGNAL_INIT_V3) return sub || url ? 95 : 60
  if (b.length < 2 || (b[0] !== SIGNAL && b[0] !== SIGNAL_ALT)) return 0
  const type = b[1] & 0x7f
  if (type > 9) return 0
  if (sub || (type === 0 && b.length === 41)) return 95
  return url ? 90 : 60
}

export function probePhoton(input: ProbeInput): number {
  try {
    const onPort = PORTS.includes(input.aPort) || PORTS.includes(input.bPort)
    if (input.carrier === 'udp') return probeUdp(input.bytes)
    if (input.carrier === 'tcp') return probeTcp(input.bytes, onPort)
    return probeWs(input.bytes, input.wsPath, input.wsProtocol)
  } catch {
    return 0
  }
}

export const photonModule: ProtocolModule = {
  id: 'photon',
  name: 'Photon',
  carriers: ['udp', 'tcp', 'websocket'],
  ports: PORTS,
  probe: probePhoton,
  reportsRoles: true,
  create: (ctx) => new PhotonDecoder(ctx)
}
