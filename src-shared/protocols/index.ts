// Every protocol gamewire decodes registers here. Detection order does not matter: the most confident
// probe wins, ports break ties.

import { ProtocolRegistry } from './registry'
import { fignetModule } from './fignet'
import { photonModule } from './photon'
import { sfs2xModule } from './sfs2x'

export function createDefaultRegistry(): ProtocolRegistry {
  const registry = new ProtocolRegistry()
  registry.register(fignetModule)
  registry.register(photonModule)
  registry.register(sfs2xModule)
  return registry
}
