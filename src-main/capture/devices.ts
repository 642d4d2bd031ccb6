// Capture devices through libpcap (the `cap` native binding). If `cap` cannot load, say why instead of
// failing later: files still open without it.

import { createRequire } from 'node:module'

export interface CaptureDevice {
  name: string
  description?: string
  addresses: { addr: string; netmask?: string; broadaddr?: string }[]
  loopback: boolean
  /** libpcap's flag words, e.g. PCAP_IF_LOOPBACK, PCAP_IF_UP. */
  flags: string[]
}

interface CapModule {
  Cap: { deviceList(): { name: string; description?: string; addresses?: CaptureDevice['addresses']; flags?: string }[] }
}

export class CaptureUnavailable extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CaptureUnavailable'
  }
}

let loaded: CapModule | undefined

export function loadCap(): CapModule {
  if (loaded) return loaded
  try {
    const nodeRequire = createRequire(import.meta.url)
    loaded = nodeRequire('cap') as CapModule
    return loaded
  } catch (e) {
    throw new CaptureUnavailable(
      `live capture unavailable: the libpcap binding 'cap' did not load (${(e as Error).message.split('\n')[0]}); install libpcap-dev and run \`npm rebuild cap\``
    )
  }
}

export function listDevices(): CaptureDevice[] {
  const { Cap } = loadCap()
  return Cap.deviceList().map((d) => {
    const flags = (d.flags ?? '').split(/[\s,|]+/).filter(Boolean)
    return {
      name: d.name,
      description: d.description,
      addresses: d.addresses ?? [],
      loopback: flags.includes('PCAP_IF_LOOPBACK'),
      flags
    }
  })
}
