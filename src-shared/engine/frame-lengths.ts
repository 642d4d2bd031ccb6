// The lengths of the frames behind a message's `frame.len` (on the wire) and `frame.cap_len` (captured).
// The app's frame store keeps every frame's; a decode that streams a file keeps the most recent frames'
// here, so a filter on them needs neither the frames nor trees with their layers.

import type { CaptureFrame } from '../capture/types'

/** A frame's lengths by its number; undefined for a frame not held. */
export interface FrameLengths {
  originalLength(frame: number): number | undefined
  capturedLength(frame: number): number | undefined
}

/** The keys FrameLengths answer, as the frame groups of a tree with layers give them. */
export const FRAME_LENGTH_KEYS: ReadonlySet<string> = new Set(['frame.len', 'frame.cap_len'])

export function readsFrameLengths(keys: readonly string[]): boolean {
  return keys.some((k) => FRAME_LENGTH_KEYS.has(k))
}

/** `frame.len` or `frame.cap_len` of a message in these frames: one value per frame held. */
export function frameLengthValues(key: string, frames: readonly number[], lengths: FrameLengths): number[] {
  const out: number[] = []
  const original = key === 'frame.len'
  for (const f of frames) {
    const v = original ? lengths.originalLength(f) : lengths.capturedLength(f)
    if (v !== undefined) out.push(v)
  }
  return out
}

/**
 * The lengths of the last `capacity` frames taken, in a ring (16 bytes a slot, 16 MiB by default). A
 * message's frames are nearly always recent; one further back than the ring reaches has no length, as a
 * tree with layers reports a frame no longer held (net/frame-ring.ts, which holds fewer).
 */
export class RecentFrameLengths implements FrameLengths {
  private readonly numbers: Float64Array
  private readonly captured: Uint32Array
  private readonly original: Uint32Array

  constructor(private readonly capacity = 1 << 20) {
    this.numbers = new Float64Array(capacity)
    this.captured = new Uint32Array(capacity)
    this.original = new Uint32Array(capacity)
  }

  put(f: CaptureFrame): void {
    const slot = f.number % this.capacity
    this.numbers[slot] = f.number
    this.captured[slot] = f.data.length
    this.original[slot] = f.originalLength
  }

  originalLength(frame: number): number | undefined {
    const slot = frame % this.capacity
    return frame > 0 && this.numbers[slot] === frame ? this.original[slot] : undefined
  }

  capturedLength(frame: number): number | undefined {
    const slot = frame % this.capacity
    return frame > 0 && this.numbers[slot] === frame ? this.captured[slot] : undefined
  }
}
