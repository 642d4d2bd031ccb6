// LiteNetLib (0.9, 1.x, 2.x), the UDP transport under FigNet's LiteNetLibProvider. Detection leaves it to the
// protocol it carries (FigNet's probe claims LiteNetLib datagrams and creates a LiteNetLibTransport with its
// CarriedDecoder); the module here is for "decode as litenetlib": the transport alone, payloads as bytes.

import type { ProtocolModule } from '../registry'
import { LiteNetLibTransport, LITENETLIB_LAYER } from './decoder'

export { LiteNetLibTransport, LITENETLIB_LAYER, type LiteNetLibOptions } from './decoder'
export { probeLiteNetLib } from './probe'
export type { Version as LiteNetLibVersion } from './wire'

export const liteNetLibModule: ProtocolModule = {
  id: LITENETLIB_LAYER,
  name: 'LiteNetLib',
  carriers: ['udp'],
  // Never chosen by detection: a LiteNetLib conversation is FigNet's, with the transport under it.
  probe: () => 0,
  create: (ctx) => new LiteNetLibTransport(ctx, null)
}
