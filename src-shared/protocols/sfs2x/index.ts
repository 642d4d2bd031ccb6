// SmartFoxServer 2X: raw TCP (9933), WebSocket at /BlueBox/websocket (8080/8443), and raw framing after
// a one-shot fake HTTP upgrade (the "Last War" client). See docs/sfs2x.md.

import { MessageDraft } from '../../bytes/tree'
import type { ProbeInput, ProtocolModule } from '../registry'
import { Sfs2xDecoder, type Sfs2xOptions } from './decoder'
import { arraySource, parseHeader, plausiblePacketAt } from './framing'
import { decodePacket } from './packet'
import { DEFAULT_MAX_DEPTH } from './sfsobject'
import { BLUEBOX_SERVLET } from './bluebox'

export { Sfs2xDecoder, type Sfs2xOptions } from './decoder'
export type { Sfs2xValue } from './packet'

const BLUEBOX_PATH = /\/BlueBox\/websocket/i
const TCP_PORT = 9933
/** The probe inflates at most this much of a first packet. */
const PROBE_MAX_DECOMPRESSED = 1024 * 1024

/** Whether the whole first packet decodes cleanly (plain, zlib, zstd, XOR; no keys). */
function decodesCleanly(bytes: Uint8Array, size: number): boolean {
  const draft = new MessageDraft(false)
  const source = draft.addSource('probe', bytes)
  const out = decodePacket(
    { draft, source, bytes, start: 0, end: size, extra: 0 },
    // (the probe's draft and its warnings are thrown away)
    {
      recording: false,
      labels: false,
      maxDecompressed: PROBE_MAX_DECOMPRESSED,
      maxDepth: DEFAULT_MAX_DEPTH,
      keys: [],
      lastKey: undefined,
      missingKeyWarning: () => 'encrypted, no key',
      xorFirst: false,
      compressionThreshold: 1024,
      thresholdFromHandshake: false,
      jsSdk: false,
      maxMessageSize: null,
      fromServer: null
    }
  )
  return draft.error === null && out.value.body !== null
}

/**
 * How sure the bytes are SFS2X: a header byte with 0x80 and a plausible length whose body starts like an
 * SFSObject (`12 00 0n`), a zlib or Zstandard stream, as is or after the Last War XOR; a whole first
 * packet that decodes cleanly is near certain. The WebSocket path /BlueBox/websocket raises it.
 */
export function probeSfs2x(input: ProbeInput): number {
  try {
    // BlueBox (HTTP tunnel): the servlet's path is the evidence.
    if (input.carrier === 'http') return BLUEBOX_SERVLET.test(input.httpPath ?? '') ? 90 : 0
    const b = input.bytes
    if (!b || b.length === 0) return 0
    const ws = input.carrier === 'websocket'
    const bluebox = ws && !!input.wsPath && BLUEBOX_PATH.test(input.wsPath)
    const onPort = input.aPort === TCP_PORT || input.bPort === TCP_PORT
    // A capture joins a connection mid-stream at its start: only the conversation's first two probes
    // (usually the first payload of each direction) search for a packet start, the probe's costly part.
    const midStream = (input.attempt ?? 1) <= 2 ? searchPacketStart : () => 0
    const hr = parseHeader(arraySource(b))
    if (hr.kind === 'bad') return ws ? 0 : midStream(b)
    if (hr.kind === 'need') return !ws && onPort && b[0] & 0x80 && !(b[0] & 0x03) ? 20 : 0
    const h = hr.header
    if (h.reserved || h.length < 3) return bluebox ? 30 : ws ? 0 : midStream(b)
    const size = h.headerSize + h.length
    // A WebSocket message holds exactly one packet (4 more bytes: an uncounted Zstandard size).
    if (ws && b.length !== size && b.length !== size + 4) return bluebox ? 30 : 0
    let conf = 0
    const v = plausiblePacketAt(arraySource(b), 0)
    if (v === 'yes') conf = b.length >= size && decodesCleanly(b, size) ? 95 : 75
    else if (v === 'need') conf = 40
    else if (h.encrypted && h.length % 16 === 0) conf = onPort || bluebox ? 40 : 20
    if (bluebox) conf = Math.max(50, Math.min(100, conf + 10))
    else if (onPort && conf) conf = Math.min(100, conf + 5)
    return conf || (ws ? 0 : midStream(b))
  } catch {
    return 0
  }
}

/**
 * A TCP capture that joined a connection mid-stream starts inside a packet: look for a packet start in
 * the first bytes. Confidence stays lower: a whole packet there that decodes cleanly.
 */
function searchPacketStart(b: Uint8Array): number {
  const src = arraySource(b)
  for (let k = 1; k < Math.min(b.length - 3, 192); k++) {
    if (!(b[k] & 0x80) || plausiblePacketAt(src, k) !== 'yes') continue
    const hr = parseHeader(src, k)
    if (hr.kind !== 'ok') continue
    const end = k + hr.header.headerSize + hr.header.length
    if (end <= b.length && decodesCleanly(b.subarray(k), end - k)) return 50
  }
  return 0
}

export function createSfs2xModule(opts: Sfs2xOptions = {}): ProtocolModule {
  return {
    id: 'sfs2x',
    name: 'SmartFoxServer 2X',
    carriers: ['tcp', 'websocket', 'http'],
    ports: [9933, 8080, 8443],
    probe: probeSfs2x,
    reportsRoles: true,
    create: (ctx) => new Sfs2xDecoder(ctx, opts)
  }
}

export const sfs2xModule = createSfs2xModule()
