// LiveCapture: one libpcap capture through the `cap` binding, frames handed to a callback as they arrive.
//
//   const live = LiveCapture.open({ device: 'lo', filter: 'udp port 5055' }, (frame) => ...)
//   live.stats()   // { received, truncated, dropped, ifDropped } (libpcap's counters; null if unknown)
//   live.close()   // restart = close() + LiveCapture.open() again
//
// Errors are CaptureError with a `kind` (permission, no-device, filter, options) and one line of text
// that says what to do; a `cap` that does not load is CaptureUnavailable (devices.ts).
//
// What cap 0.2.1 imposes (measured, see README "Live capture"):
// - It polls on the process's default libuv loop, so it works only on a process's main thread: in a
//   worker thread the first packet aborts the process. gamewire runs it in a capture child process.
// - It does not deliver libpcap's timestamp: frames are stamped with the clock when they reach
//   JavaScript (microseconds). Stock cap 0.2.1 has no statistics either; the copy in vendor/cap adds
//   stats() (pcap_stats), and without it dropped/ifDropped stay null.
// - It opens every device promiscuous with a 65535-byte snapshot; a smaller snapLen is applied here.
// - It does not hold the packet buffer: that buffer must stay referenced while the capture is open, and
//   a handle whose open() failed must never be garbage-collected (its destructor touches an
//   uninitialised libuv handle). Both are kept here.

import { realpathSync } from 'node:fs'
import { LinkType } from '../../src-shared/capture/types'
import { loadCap, type CapHandle } from './devices'
import { copyBytes } from '../../src-shared/bytes/slab'

/** cap's snapshot length (fixed in the binding) and so the largest frame it copies. */
export const CAP_SNAPLEN = 65535
/**
 * libpcap's kernel buffer by default. cap opens with a 65,535-byte snapshot in immediate mode, where Linux
 * gives each queued frame a slot of about 64 KiB: 128 MiB queues about 2,000 frames, 80 ms at 25,000
 * datagrams/s, which rides out the capture process waiting for a core (with 32 MiB, 20 ms, datagrams were
 * lost at that rate). The ring is kernel memory held while capturing; `--buffer-size` / the capture panel
 * set another size. Where the kernel cannot give that much, libpcap asks again with 5 % fewer frames until
 * it can (create_ring() in libpcap's pcap-linux.c, https://github.com/the-tcpdump-group/libpcap).
 */
export const DEFAULT_BUFFER_BYTES = 128 << 20
export const MAX_SNAPLEN = 262144

export interface LiveCaptureOptions {
  device: string
  /** BPF expression (pcap-filter syntax); empty or absent captures everything. */
  filter?: string
  /** Bytes kept of each frame (1..262144; cap itself never delivers more than 65535). */
  snapLen?: number
  /** Default true. cap always opens promiscuous: false adds a warning instead. */
  promiscuous?: boolean
  /** libpcap's kernel buffer in bytes. With cap's 65535-byte snapshot, Linux immediate mode holds one queued frame per 64 KiB of it. */
  bufferSize?: number
}

export interface LiveFrame {
  /** LINKTYPE_ value. */
  linkType: number
  tsSec: number
  tsNsec: number
  /** Length libpcap captured (up to its 65535-byte snapshot). */
  originalLength: number
  data: Uint8Array
}

export interface LiveCaptureStats {
  /** Frames libpcap delivered. */
  received: number
  /** Frames cut to snapLen. */
  truncated: number
  /** libpcap's ps_drop / ps_ifdrop: not exposed by cap 0.2.1, so null. */
  dropped: number | null
  ifDropped: number | null
}

export type CaptureErrorKind = 'permission' | 'no-device' | 'filter' | 'options' | 'failed'

export class CaptureError extends Error {
  constructor(
    readonly kind: CaptureErrorKind,
    message: string
  ) {
    super(message)
    this.name = 'CaptureError'
  }
}

/** The one line that tells a user without capture rights what to do. */
export function permissionHelp(execPath: string = process.execPath): string {
  let binary = execPath
  try {
    binary = realpathSync(execPath) // setcap needs the real file, not a symlink
  } catch {
    // keep the path as given
  }
  const isNode = /(^|\/)node(js)?(\.exe)?$/i.test(binary)
  const which = isNode ? 'node' : 'the Electron binary'
  return (
    `run as root (sudo), or grant ${which} the capture capabilities once: sudo setcap cap_net_raw,cap_net_admin=eip ${binary}` +
    (isNode ? ' (the same as `sudo setcap cap_net_raw,cap_net_admin=eip $(readlink -f $(which node))`)' : '')
  )
}

const PERMISSION = /operation not permitted|permission denied|don't have permission|not have sufficient privileges|EPERM|EACCES/i
const NO_DEVICE = /no such device|doesn't exist|no such file or directory|not found|isn't up|is not up/i

/** Sorts a message libpcap gave for a failed open into an actionable CaptureError. */
export function classifyOpenError(message: string, device: string, execPath?: string): CaptureError {
  const line = message.split('\n')[0].trim()
  if (PERMISSION.test(line)) return new CaptureError('permission', `no permission to capture on ${device} (libpcap: ${line}): ${permissionHelp(execPath)}`)
  if (NO_DEVICE.test(line)) return new CaptureError('no-device', `cannot capture on '${device}': ${line}`)
  return new CaptureError('failed', `cannot capture on ${device}: ${line}`)
}

/** cap names the link type by a string; gamewire uses LINKTYPE_ numbers. */
export function linkTypeFromCap(name: string): number {
  switch (name) {
    case 'ETHERNET':
      return LinkType.ETHERNET
    case 'NULL':
      return LinkType.NULL
    case 'RAW':
      return LinkType.RAW
    case 'LINKTYPE_LINUX_SLL':
      return LinkType.LINUX_SLL
    case 'IEEE802_11_RADIO':
      return 127
  }
  // "Unknown linktype N": N is libpcap's DLT_ value, which equals the LINKTYPE_ value for every link type
  // the engine reads (SLL2 276, IPv4 228, IPv6 229).
  const m = /^Unknown linktype (\d+)$/.exec(name)
  if (m) return Number(m[1])
  throw new CaptureError('failed', `unexpected link type from libpcap: ${name}`)
}

// Handles whose open() threw: cap leaves them half-open, and collecting one crashes the process.
const failedHandles: CapHandle[] = []

function checkOptions(o: LiveCaptureOptions): { snapLen: number; bufferSize: number } {
  if (typeof o.device !== 'string' || !o.device || o.device.length > 255 || o.device.includes('\0')) {
    throw new CaptureError('options', 'a capture device name is needed (gamewire devices lists them)')
  }
  const snapLen = o.snapLen ?? MAX_SNAPLEN
  if (!Number.isInteger(snapLen) || snapLen < 1 || snapLen > MAX_SNAPLEN)
    throw new CaptureError('options', `snapshot length must be 1..${MAX_SNAPLEN}, got ${o.snapLen}`)
  const bufferSize = o.bufferSize ?? DEFAULT_BUFFER_BYTES
  if (!Number.isInteger(bufferSize) || bufferSize < 65536 || bufferSize > 0x7fffffff) {
    throw new CaptureError('options', `buffer size must be 64 KiB..2 GiB, got ${o.bufferSize} bytes`)
  }
  if (o.filter !== undefined && (typeof o.filter !== 'string' || o.filter.includes('\0') || o.filter.length > 65536)) {
    throw new CaptureError('options', 'the capture filter must be text without NUL bytes')
  }
  return { snapLen, bufferSize }
}

export class LiveCapture {
  readonly linkType: number
  readonly warnings: string[] = []
  private readonly handle: CapHandle
  // Referenced for as long as the capture is open: libpcap copies every packet into it.
  private readonly packetBuffer: Buffer
  private received = 0
  private truncated = 0
  private closed = false

  private constructor(handle: CapHandle, packetBuffer: Buffer, linkType: number) {
    this.handle = handle
    this.packetBuffer = packetBuffer
    this.linkType = linkType
  }

  /**
   * Opens the device and starts delivering frames. The filter is compiled by libpcap before the first
   * frame; a bad one throws CaptureError('filter') with libpcap's message. Must run on a process's main
   * thread (see the top of this file).
   */
  static open(opts: LiveCaptureOptions, onFrame: (f: LiveFrame) => void): LiveCapture {
    const { snapLen, bufferSize } = checkOptions(opts)
    const { Cap } = loadCap()
    const devices = Cap.deviceList()
    if (!devices.some((d) => d.name === opts.device)) {
      throw new CaptureError(
        'no-device',
        `no capture device '${opts.device}' (devices: ${devices.map((d) => d.name).join(', ') || 'none'}; see gamewire devices)`
      )
    }
    const filter = opts.filter?.trim() ?? ''
    const handle = new Cap()
    // cap's snapshot is CAP_SNAPLEN, so every frame fits whole; snapLen is applied when copying out.
    const packetBuffer = Buffer.alloc(CAP_SNAPLEN)
    let capLinkType: string
    try {
      capLinkType = handle.open(opts.device, filter, bufferSize, packetBuffer)
    } catch (e) {
      failedHandles.push(handle)
      throw LiveCapture.openFailure((e as Error).message, opts.device, filter)
    }
    const live = new LiveCapture(handle, packetBuffer, linkTypeFromCap(capLinkType))
    if (opts.promiscuous === false) live.warnings.push('the cap binding always opens the device in promiscuous mode; --no-promisc has no effect')
    const linkType = live.linkType
    handle.on('packet', (nbytes: number) => {
      // Stamped here: cap does not pass libpcap's header timestamp on.
      const ms = performance.timeOrigin + performance.now()
      const tsSec = Math.floor(ms / 1000)
      const tsNsec = Math.min(999_999_999, Math.round((ms - tsSec * 1000) * 1e3) * 1000)
      const kept = Math.min(nbytes, snapLen)
      // A view of a shared slab, not a buffer of its own per frame: the frame is copied on (to the
      // decoder's batch, the ring, the -w file) and dropped soon after.
      const data = copyBytes(live.packetBuffer, 0, kept)
      live.received++
      if (kept < nbytes) live.truncated++
      onFrame({ linkType, tsSec, tsNsec, originalLength: nbytes, data })
    })
    return live
  }

  /** A failed open with a filter: libpcap compiles the filter after activating the device, so try again without it to tell a filter error from a device error. */
  private static openFailure(message: string, device: string, filter: string): CaptureError {
    const first = classifyOpenError(message, device)
    if (first.kind !== 'failed' || !filter) return first
    const { Cap } = loadCap()
    const probe = new Cap()
    try {
      probe.open(device, '', 65536, Buffer.alloc(CAP_SNAPLEN))
    } catch {
      failedHandles.push(probe)
      return first
    }
    probe.close()
    return new CaptureError('filter', `bad capture filter '${filter}': ${message.split('\n')[0].trim()}`)
  }

  stats(): LiveCaptureStats {
    let dropped: number | null = null
    let ifDropped: number | null = null
    if (!this.closed && typeof this.handle.stats === 'function') {
      try {
        const s = this.handle.stats()
        dropped = s.dropped
        ifDropped = s.ifDropped
        this.lastPcapStats = { dropped, ifDropped }
      } catch {
        // counters unavailable on this device: keep the last ones seen
      }
    }
    const last = this.closed ? this.lastPcapStats : null
    return { received: this.received, truncated: this.truncated, dropped: dropped ?? last?.dropped ?? null, ifDropped: ifDropped ?? last?.ifDropped ?? null }
  }

  /** libpcap's counters as last read (they cannot be read once the handle is closed). */
  private lastPcapStats: { dropped: number; ifDropped: number } | null = null

  get isOpen(): boolean {
    return !this.closed
  }

  /** Stops capturing. Safe to call from inside the frame callback and more than once. */
  close(): void {
    if (this.closed) return
    this.stats() // read libpcap's counters while the handle is still open
    this.closed = true
    this.handle.close()
    this.handle.removeAllListeners('packet')
  }
}
