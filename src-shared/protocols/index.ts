// Every protocol gamewire decodes registers here. Detection order does not matter: the most confident
// probe wins, ports break ties.

import { ProtocolRegistry } from './registry'
import { sfs2xModule } from './sfs2x'

export function createDefaultRegistry(): ProtocolRegistry {
  const registry = new ProtocolRegistry()
  // Protocol modules (photon, sfs2x, fignet) register here as they land.
  registry.register(sfs2xModule)
  return registry
}
