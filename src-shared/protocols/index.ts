// Every protocol gamewire decodes registers here. Detection order does not matter: the most confident
// probe wins, ports break ties.

import { ProtocolRegistry } from './registry'

export function createDefaultRegistry(): ProtocolRegistry {
  const registry = new ProtocolRegistry()
  // Protocol modules (photon, sfs2x, fignet) register here as they land.
  return registry
}
