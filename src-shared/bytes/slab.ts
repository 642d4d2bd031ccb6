// Small byte arrays carved out of shared 8 KiB slabs, the way Node's Buffer.allocUnsafe() uses its pool
// (https://nodejs.org/api/buffer.html#static-method-bufferallocunsafesize, Buffer.poolSize). A typed array
// with a buffer of its own costs about 3 µs in V8 (a native allocation the GC tracks and later frees): one
// per captured frame was 90 % of reading a game capture. A view of a slab costs a copy.
//
// The price is the pool's: an array kept alive keeps its whole slab (at most 8 KiB) alive. Layers that
// keep bytes for long (held inputs, out-of-order segments, partial messages) copy them with `.slice()`.

const SLAB = 8 * 1024
/** Larger arrays get a buffer of their own (as Node's pool takes sizes below half of it). */
const IN_SLAB = SLAB >>> 1

let slab = new Uint8Array(0)
let used = 0

/** A new zero-filled array of `n` bytes. */
export function allocBytes(n: number): Uint8Array {
  if (n > IN_SLAB) return new Uint8Array(n)
  if (used + n > slab.length) {
    slab = new Uint8Array(SLAB)
    used = 0
  }
  const out = slab.subarray(used, used + n)
  used += n
  return out
}

/** A copy of src[start, end), in a slab when it is small. */
export function copyBytes(src: Uint8Array, start = 0, end = src.length): Uint8Array {
  const out = allocBytes(end - start)
  out.set(src.subarray(start, end))
  return out
}
