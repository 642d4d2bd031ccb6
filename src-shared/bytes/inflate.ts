// Capped streaming inflate (fflate) shared by every layer that decompresses untrusted bytes: the
// WebSocket permessage-deflate extension and protocol bodies (SFS2X zlib). The compressed input is pushed
// in slices small enough that one slice cannot overshoot the cap by more than ~1 MiB, so a zlib bomb
// costs at most the cap in memory.

import { Inflate, Unzlib, inflateSync, unzlibSync } from 'fflate'
import { concatBytes } from './concat'

/** Upper bound of DEFLATE expansion per input byte. */
const INFLATE_MAX_RATIO = 1032

export interface CappedInflateOptions {
  /** 'raw' = DEFLATE (RFC 1951), 'zlib' = RFC 1950 with its header and Adler-32. */
  format: 'raw' | 'zlib'
  /** Preset LZ77 window (raw only: permessage-deflate context takeover). */
  dictionary?: Uint8Array | null
  /** Bytes pushed after the input, not counted in it (permessage-deflate's stripped 00 00 ff ff). */
  tail?: Uint8Array
  /** The input is a whole stream (true) or a sync-flushed piece of one (false). */
  final: boolean
}

export interface CappedInflateResult {
  /** Everything inflated, at most `cap` bytes (partial when `error` is set). */
  out: Uint8Array
  /** The output reached the cap and decompression stopped there. */
  capped: boolean
  /** The inflater's complaint, when the data is not valid. */
  error: string | null
}

export function inflateCapped(data: Uint8Array, cap: number, opts: CappedInflateOptions): CappedInflateResult {
  // A whole stream too short to reach the cap even at DEFLATE's largest expansion is inflated in one call:
  // the streaming inflater allocates a window and growing buffers per message, which dominated the cost of
  // small zlib bodies. Invalid data goes the streaming way below, which keeps what inflated before the fault.
  if (opts.final && !opts.tail && data.length > 0 && data.length * INFLATE_MAX_RATIO <= cap) {
    try {
      const dictionary = opts.dictionary?.length ? opts.dictionary : undefined
      const out = opts.format === 'zlib' ? unzlibSync(data) : inflateSync(data, dictionary ? { dictionary } : undefined)
      return { out, capped: false, error: null }
    } catch {
      // fall through
    }
  }
  const parts: Uint8Array[] = []
  let total = 0
  let capped = false
  const onData = (chunk: Uint8Array) => {
    if (capped || chunk.length === 0) return
    if (total + chunk.length > cap) {
      parts.push(chunk.subarray(0, cap - total))
      total = cap
      capped = true
      return
    }
    total += chunk.length
    parts.push(chunk)
  }
  const inf = opts.format === 'zlib' ? new Unzlib(onData) : new Inflate(opts.dictionary?.length ? { dictionary: opts.dictionary } : {}, onData)
  const result = (error: string | null): CappedInflateResult => ({ out: concatBytes(parts.length ? parts : [new Uint8Array(0)]), capped, error })
  const lastPush = !opts.tail && opts.final
  try {
    let pos = 0
    while (pos < data.length) {
      const budget = Math.max(0, cap - total)
      const slice = Math.max(1024, Math.min(65536, Math.ceil(budget / INFLATE_MAX_RATIO) + 1))
      const end = Math.min(data.length, pos + slice)
      inf.push(data.subarray(pos, end), lastPush && end === data.length)
      pos = end
      if (capped) return result(null)
    }
    if (opts.tail) inf.push(opts.tail, opts.final)
    else if (data.length === 0) inf.push(data, opts.final)
  } catch (e) {
    return result((e as Error)?.message ?? String(e))
  }
  return result(null)
}
