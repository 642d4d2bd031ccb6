// What capture-file readers hand the engine, and what writers take. Readers are push parsers: the host
// (Node stream, browser File, libpcap) pushes chunks in, so a file is never held whole in memory.

/** libpcap LINKTYPE_ values the engine decodes. */
export const LinkType = {
  NULL: 0, // BSD loopback: 4-byte host-order address family
  ETHERNET: 1,
  RAW: 101, // raw IPv4 or IPv6, version from the first nibble
  LOOP: 108, // OpenBSD loopback: 4-byte network-order address family
  LINUX_SLL: 113,
  IPV4: 228,
  IPV6: 229,
  LINUX_SLL2: 276
} as const

export const LinkTypeName: Record<number, string> = {
  0: 'NULL',
  1: 'ETHERNET',
  101: 'RAW',
  108: 'LOOP',
  113: 'LINUX_SLL',
  228: 'IPV4',
  229: 'IPV6',
  276: 'LINUX_SLL2'
}

export interface CaptureInterface {
  /** Global interface index across all sections (0-based, in file order). */
  id: number
  section: number
  linkType: number
  snapLen: number
  name?: string
  description?: string
  /** Timestamp resolution as units per second (1e6 for µs, 1e9 for ns, 2^k for binary resolutions). */
  tsUnitsPerSecond: number
  /** if_tsoffset seconds, added to every timestamp of this interface. */
  tsOffset: number
  /** Bytes of frame check sequence at the end of each frame (pcap link-type FCS bits, pcapng if_fcslen). */
  fcsLength?: number
}

export interface CaptureFrame {
  /** 1-based frame number, as Wireshark counts. */
  number: number
  interfaceId: number
  linkType: number
  /** Whole seconds since the epoch. */
  tsSec: number
  /** Nanoseconds within the second (0..999999999). */
  tsNsec: number
  originalLength: number
  /** Captured bytes (may be shorter than originalLength when snapped). */
  data: Uint8Array
  comments?: string[]
  /** Set when the record has no timestamp (pcapng Simple Packet Block); tsSec/tsNsec are then 0. */
  noTimestamp?: boolean
}

export type CaptureFormat = 'pcap' | 'pcapng'

/** Events a reader emits as bytes are pushed in. */
export interface CaptureSink {
  onInterface?(iface: CaptureInterface): void
  onFrame(frame: CaptureFrame): void
  onWarning?(text: string): void
}

/** Thrown for input that is not a capture file at all (bad magic) or is unreadable beyond recovery. */
export class CaptureFormatError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CaptureFormatError'
  }
}

export function frameTime(f: Pick<CaptureFrame, 'tsSec' | 'tsNsec'>): number {
  return f.tsSec + f.tsNsec / 1e9
}
