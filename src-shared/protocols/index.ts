// Every protocol gamewire decodes registers here. Detection order does not matter: the most confident
// probe wins, ports break ties.

import { ProtocolRegistry } from './registry'
import { photonModule } from './photon'
import { sfs2xModule } from './sfs2x'

export function createDefaultRegistry(): ProtocolRegistry {
  const registry = new ProtocolRegistry()
  // Protocol modules register here as they land (fignet next).
  registry.register(photonModule)
  registry.register(sfs2xModule)
  return registry
}
