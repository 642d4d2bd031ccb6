// LiteNetLib (0.9, 1.x, 2.x), the UDP transport under FigNet's LiteNetLibProvider. Not a protocol module of
// its own: the protocol it carries registers and creates a LiteNetLibTransport with its CarriedDecoder.

export { LiteNetLibTransport, type LiteNetLibOptions } from './decoder'
export { probeLiteNetLib } from './probe'
export type { Version as LiteNetLibVersion } from './wire'
