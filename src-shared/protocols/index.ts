// Every protocol gamewire decodes registers here. Detection order does not matter: the most confident
// probe wins, ports break ties. ENet and LiteNetLib register for "decode as" only (their probes claim
// nothing: FigNet's probe finds them and runs them under itself).

import { ProtocolRegistry } from './registry'
import { enetModule } from './enet'
import { fignetModule } from './fignet'
import { liteNetLibModule } from './litenetlib'
import { photonModule } from './photon'
import { sfs2xModule } from './sfs2x'

export function createDefaultRegistry(): ProtocolRegistry {
  const registry = new ProtocolRegistry()
  registry.register(fignetModule)
  registry.register(photonModule)
  registry.register(sfs2xModule)
  registry.register(enetModule)
  registry.register(liteNetLibModule)
  return registry
}
