// ENet (vanilla 1.3 and ENet-CSharp) as a transport for the protocol its payloads carry (FigNet): the
// per-conversation decoder and the registry probe. See docs/fignet.md

export { EnetTransport, ENET_LAYER, type EnetInfo } from './decoder'
export { probeEnet } from './variant'
export type { EnetVariant } from './wire'
