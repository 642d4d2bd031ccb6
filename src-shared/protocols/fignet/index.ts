// FigNet / Entangle over ENet, ENet-CSharp, LiteNetLib and WebSocket. See docs/fignet.md and
// docs/fignet.md (the FigNet porting guide).

import type { ProbeInput, ProtocolModule } from '../registry'
import { probeEnet } from '../enet/variant'
import { probeLiteNetLib } from '../litenetlib/probe'
import { FigNetDecoder } from './decoder'
import { envelopeLikelihood } from './envelope'

export { FigNetDecoder } from './decoder'

/** The WebSocket provider connects to /FigNet with subprotocol FigNet (docs/fignet.md, guide §4.0). */
function probeWs(input: ProbeInput): number {
  const named = /^\/FigNet\b/i.test(input.wsPath ?? '') || /^FigNet$/i.test(input.wsProtocol ?? '')
  const env = envelopeLikelihood(input.bytes)
  if (named) return env ? 100 : 80
  return env ? Math.min(env, 50) : 0
}

/** Below this a transport probe is a weak shape match (most bytes fit some LiteNetLib packet). */
const TRANSPORT_SURE = 40

/**
 * Over UDP: a datagram the ENet or LiteNetLib probe is sure of; or a LiteNetLib Unreliable/Channeled packet
 * (1- or 4-byte header) whose payload starts with a FigNet envelope — a capture that begins mid-session.
 */
function probeUdp(b: Uint8Array): number {
  const transport = Math.max(probeEnet(b), probeLiteNetLib(b))
  if (transport >= TRANSPORT_SURE) return transport
  const property = b.length ? b[0] & 0x1f : -1
  const payloadAt = property === 0 ? 1 : property === 1 ? 4 : -1
  return payloadAt > 0 && envelopeLikelihood(b.subarray(payloadAt)) > 0 ? 50 : 0
}

export function probeFigNet(input: ProbeInput): number {
  try {
    if (input.carrier === 'websocket') return probeWs(input)
    if (input.carrier === 'udp') return probeUdp(input.bytes)
    return 0
  } catch {
    return 0
  }
}

export const fignetModule: ProtocolModule = {
  id: 'fignet',
  name: 'FigNet',
  carriers: ['udp', 'websocket'],
  probe: probeFigNet,
  reportsRoles: true,
  create: (ctx) => new FigNetDecoder(ctx)
}
