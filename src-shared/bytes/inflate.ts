// Capped inflate (fflate) shared by every layer that decompresses untrusted bytes: the WebSocket
// permessage-deflate extension and protocol bodies (SFS2X zlib). Input that cannot reach the cap is inflated
// in one call; other input is pushed to a streaming inflater in slices small enough that one slice cannot
// overshoot the cap by more than ~1 MiB, so a zlib bomb costs at most the cap in memory.

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

/**
 * An empty final block with fixed codes (BFINAL 1, BTYPE 01, end-of-block): appended to a sync-flushed piece,
 * it lets the one-call inflater finish where the piece ends (RFC 1951 §3.2.3, §3.2.6).
 */
const FINAL_EMPTY_BLOCK = Uint8Array.of(0x03, 0x00)

/**
 * Where the one-call inflater writes: fflate grows its own output 128 KiB ahead of every block, and on this
 * machine a fresh buffer that size cost ~40 µs, far more than inflating a typical WebSocket or SFS2X message
 * (src-shared runs one decode at a time per thread, so one buffer serves them all). Grown, up to a bound,
 * when a message fills it.
 */
let scratch = new Uint8Array(64 * 1024)
const SCRATCH_MAX = 4 * 1024 * 1024

export function inflateCapped(data: Uint8Array, cap: number, opts: CappedInflateOptions): CappedInflateResult {
  // Input too short to reach the cap even at DEFLATE's largest expansion is inflated in one call: the
  // streaming inflater allocates a window and growing buffers per message, which dominated the cost of small
  // messages. A sync-flushed piece gets its tail and an empty final block, so that the call ends where the
  // piece does. Anything the call rejects (invalid data, a piece cut inside a block) goes the streaming way
  // below, which reports the fault and keeps what inflated before it.
  const oneCall = opts.final ? !opts.tail : opts.format === 'raw' && !!opts.tail
  if (oneCall && data.length > 0 && data.length * INFLATE_MAX_RATIO <= cap) {
    const input = opts.final ? data : concatBytes([data, opts.tail!, FINAL_EMPTY_BLOCK])
    const dictionary = opts.dictionary?.length ? opts.dictionary : undefined
    try {
      const out = opts.format === 'zlib' ? unzlibSync(input, { out: scratch }) : inflateSync(input, { out: scratch, dictionary })
      // Output that fills the buffer may have been cut at its end: the streaming way decides.
      if (out.length < scratch.length) return { out: out.slice(), capped: false, error: null }
      if (scratch.length < SCRATCH_MAX) scratch = new Uint8Array(scratch.length * 2)
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
