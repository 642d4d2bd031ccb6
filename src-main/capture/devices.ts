// Capture devices through libpcap (the `cap` native binding). If `cap` cannot load, say why instead of
// failing later: files still open without it.
//
// cap 0.2.1 reports a device's name, description, addresses and only the loopback flag; on Linux the
// up/running state and the packet counters come from /sys/class/net (other systems leave them unknown).

import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'

export interface DeviceAddress {
  addr: string
  netmask?: string
  broadaddr?: string
  dstaddr?: string
}

export interface CaptureDevice {
  name: string
  description?: string
  /** A name for people: the description when libpcap has one, else one derived from the interface name. */
  friendlyName: string
  addresses: DeviceAddress[]
  loopback: boolean
  /** Administratively up (IFF_UP); undefined where the system does not say. */
  up?: boolean
  /** Up with a carrier (IFF_RUNNING); undefined where the system does not say. */
  running?: boolean
  /** Flag words: libpcap's (PCAP_IF_LOOPBACK) plus UP / RUNNING when known. */
  flags: string[]
}

/** Packets an interface has carried since boot (Linux), for marking the devices that carry traffic. */
export interface DeviceTraffic {
  name: string
  rxPackets: number
  txPackets: number
}

/** The parts of the `cap` module gamewire uses. */
export interface CapHandle {
  open(device: string, filter: string, bufferSize: number, buffer: Buffer): string
  close(): boolean
  /** libpcap's pcap_stats (the vendored cap in vendor/cap adds it; a stock cap 0.2.1 lacks it). */
  stats?(): { received: number; dropped: number; ifDropped: number }
  on(event: 'packet', listener: (nbytes: number, truncated: boolean) => void): unknown
  removeAllListeners(event?: string): unknown
}

export interface CapModule {
  Cap: {
    new (): CapHandle
    deviceList(): { name: string; description?: string; addresses?: DeviceAddress[]; flags?: string }[]
  }
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
    const why = (e as Error).message.split('\n')[0]
    // cap is an optional dependency: npm leaves it out when its build fails (no libpcap headers).
    if ((e as { code?: string }).code === 'MODULE_NOT_FOUND' && /'cap'/.test(why)) {
      throw new CaptureUnavailable(
        'live capture unavailable: the optional libpcap binding \'cap\' is not installed (npm skips it when libpcap-dev is missing); install libpcap-dev (e.g. apt-get install libpcap-dev) and run `npm install` again (see README "Live capture")'
      )
    }
    throw new CaptureUnavailable(
      `live capture unavailable: the libpcap binding 'cap' did not load (${why}); install libpcap-dev and run \`npm rebuild cap\` (for the Electron app: rebuild it for Electron, see README "Live capture")`
    )
  }
}

/** Why live capture cannot run here, or null when the binding loads. Never throws. */
export function captureUnavailableReason(): string | null {
  try {
    loadCap()
    return null
  } catch (e) {
    return (e as Error).message
  }
}

const IFF_UP = 0x1

function sysfs(name: string, file: string): string | undefined {
  // Interface names never contain '/', but a hostile name must not walk the tree.
  if (name.includes('/') || name === '.' || name === '..') return undefined
  try {
    return readFileSync(`/sys/class/net/${name}/${file}`, 'utf8').trim()
  } catch {
    return undefined
  }
}

const FRIENDLY_PREFIXES: [RegExp, string][] = [
  [/^lo\d*$/, 'Loopback'],
  [/^(eth|en)/, 'Ethernet'],
  [/^(wl|wlan|ath)/, 'Wi-Fi'],
  [/^(docker|br-)/, 'Docker bridge'],
  [/^veth/, 'Virtual Ethernet'],
  [/^virbr/, 'Virtual bridge'],
  [/^br/, 'Bridge'],
  [/^(tun|tap|utun|wg)/, 'VPN tunnel'],
  [/^ifb/, 'Intermediate functional block'],
  [/^usbmon/, 'USB bus monitor']
]

export function friendlyDeviceName(name: string, description?: string, loopback = false): string {
  if (description) return description
  if (loopback) return 'Loopback'
  for (const [re, label] of FRIENDLY_PREFIXES) if (re.test(name)) return `${label} (${name})`
  return name
}

export function listDevices(): CaptureDevice[] {
  const { Cap } = loadCap()
  return Cap.deviceList().map((d) => {
    const flags = (d.flags ?? '').split(/[\s,|]+/).filter(Boolean)
    const loopback = flags.includes('PCAP_IF_LOOPBACK')
    const sysFlags = sysfs(d.name, 'flags')
    const operstate = sysfs(d.name, 'operstate')
    let up: boolean | undefined
    let running: boolean | undefined
    if (sysFlags !== undefined && /^0x[0-9a-f]+$/i.test(sysFlags)) {
      up = (parseInt(sysFlags, 16) & IFF_UP) !== 0
      // The kernel reports IFF_RUNNING for an up device whose operstate is up or unknown (loopback).
      running = up && (operstate === 'up' || operstate === 'unknown')
      if (up) flags.push('UP')
      if (running) flags.push('RUNNING')
    }
    return {
      name: d.name,
      description: d.description,
      friendlyName: friendlyDeviceName(d.name, d.description, loopback),
      addresses: d.addresses ?? [],
      loopback,
      up,
      running,
      flags
    }
  })
}

/**
 * Packet counters per interface (Linux /sys/class/net; empty elsewhere). Sample twice: the devices whose
 * counters moved carry traffic.
 */
export function deviceTraffic(names: readonly string[]): DeviceTraffic[] {
  const out: DeviceTraffic[] = []
  for (const name of names) {
    const rx = Number(sysfs(name, 'statistics/rx_packets'))
    const tx = Number(sysfs(name, 'statistics/tx_packets'))
    if (Number.isFinite(rx) && Number.isFinite(tx)) out.push({ name, rxPackets: rx, txPackets: tx })
  }
  return out
}
