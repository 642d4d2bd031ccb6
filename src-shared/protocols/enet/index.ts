// ENet (vanilla 1.3 and ENet-CSharp) as a transport for the protocol its payloads carry (FigNet): the
// per-conversation decoder and the registry probe. See docs/fignet.md. Detection leaves ENet to FigNet's
// probe; the module here is for "decode as enet": the transport alone, payloads as ENet data.

import type { ProtocolModule } from '../registry'
import { EnetTransport, ENET_LAYER } from './decoder'

export { EnetTransport, ENET_LAYER, type EnetInfo } from './decoder'
export { probeEnet } from './variant'
export type { EnetVariant } from './wire'

export const enetModule: ProtocolModule = {
  id: ENET_LAYER,
  name: 'ENet',
  carriers: ['udp'],
  // Never chosen by detection: an ENet conversation is FigNet's, with the transport under it.
  probe: () => 0,
  create: (ctx) => new EnetTransport(ctx, null)
}
