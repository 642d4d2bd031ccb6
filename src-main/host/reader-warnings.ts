// The capture reader's warnings of a file the app holds, kept with their place among the frames, so that
// decoding the held frames again (an export, a re-decode after a key change) lists its warnings in the
// order decoding the file itself does.

import type { CaptureFrame } from '../../src-shared/capture/types'

/** A warning of the capture reader, with how many frames it had read before it. */
export interface ReaderWarning {
  text: string
  after: number
}

/**
 * The frames, giving `warn` each reader warning where reading the file raised it: before the first frame
 * read after it, and those raised after the last frame once the frames run out (before the decode's end).
 */
export function* amongFrames(frames: Iterable<CaptureFrame>, warnings: readonly ReaderWarning[], warn: (text: string) => void): Generator<CaptureFrame> {
  let next = 0
  for (const f of frames) {
    while (next < warnings.length && warnings[next].after < f.number) warn(warnings[next++].text)
    yield f
  }
  while (next < warnings.length) warn(warnings[next++].text)
}
