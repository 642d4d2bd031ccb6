// The app's JSON export of chosen messages (selected ones, or those the view's filter keeps) without
// decoding the whole capture again: only the conversations holding them are replayed, and each builds
// trees only from the first frame of a message it exports until that message comes out. The document is
// byte for byte what `gamewire decode` (runDecode) writes for the same rows, which the tests check.

import { KeyStore } from '../../../src-shared/keys/store'
import type { DecodedMessage } from '../../../src-shared/model/types'
import { beginExport, endExport, jobKeys, OUTPUT_CHUNK, type DecodeIo, type DecodeResult } from '../run-decode'
import type { DecodeJob } from '../decode-job'
import type { Token } from './cancel'
import type { SessionContext } from './context'
import type { DetailPart } from './details'
import type { Engine } from '../../../src-shared/engine/engine'

/** A conversation's exported rows, in order, with what the replay needs to find them. */
interface Wanted {
  rows: Uint32Array
  /** Each row's ordinal in its conversation: the replay's k-th message is the row whose ordinal is k. */
  ordinals: Uint32Array
  /** The earliest first frame among rows[j..]: trees are on while one of them has begun. */
  beganFrom: Float64Array
  /** The next row to come out. */
  next: number
  /** Messages the replay has given so far. */
  emitted: number
}

/**
 * Writes the export of `rows` (row numbers in capture order, no repeats) of a file's session. Returns null
 * after writing when a row did not come out of its conversation's replay: the caller then exports the slow way.
 * With `details`, each conversation's replay starts from its last detail checkpoint before the first row it
 * exports, when there is one; it stops after the last.
 */
export async function exportRows(
  ctx: SessionContext,
  rows: Uint32Array,
  job: DecodeJob,
  name: string,
  io: DecodeIo,
  token: Token,
  progress: (fraction: number) => void,
  details?: Pick<DetailPart, 'resumeBefore'>
): Promise<DecodeResult | null> {
  // The capture warnings are the session's: its index pass and runDecode over its held frames both list
  // the reader's among the engine's where they arose (amongFrames), each text once, the first 1,000.
  const warnings = ctx.warnings
  const index = ctx.rows.index
  const wanted = new Map<number, Wanted>()
  for (const [c, of] of ctx.rows.byConversation(rows)) {
    const ordinals = Uint32Array.from(of, (r) => ctx.rows.ordinal(r))
    const beganFrom = Float64Array.from(of, (r) => index.firstFrameAt(r))
    for (let j = of.length - 2; j >= 0; j--) beganFrom[j] = Math.min(beganFrom[j], beganFrom[j + 1])
    wanted.set(c, { rows: of, ordinals, beganFrom, next: 0, emitted: 0 })
  }

  // The job's keys, as runDecode reads them (the labels name where each came from: a key-file line, or the app).
  const keys = new KeyStore()
  keys.addAll(jobKeys(job))
  const writer = beginExport(job, io, keys)
  // Conversations replay side by side in frame order, so a message can come out before one with a lower
  // id (one flushed at its conversation's end, say): it waits here until the rows before it are written.
  const waiting = new Map<number, DecodedMessage>()
  let written = 0
  const trees = job.tree !== 'none'
  const onMessage = (m: DecodedMessage) => {
    const w = wanted.get(m.conversation)!
    if (w.next >= w.rows.length || w.ordinals[w.next] !== w.emitted++) return
    m.id = w.rows[w.next++] + 1
    waiting.set(m.id, m)
    while (written < rows.length) {
      const next = waiting.get(rows[written] + 1)
      if (!next) break
      waiting.delete(next.id)
      writer.message(next)
      written++
    }
    writer.flush(OUTPUT_CHUNK / 2)
  }
  const resumed = new Map<number, { engine: Engine; next: number }>()
  if (details) {
    for (const [c, w] of wanted) {
      const r = details.resumeBefore(c, w.ordinals[0], w.beganFrom[0], onMessage, { keys, layers: false })
      if (!r) continue
      resumed.set(c, r)
      w.emitted = r.emitted
    }
  }
  await ctx.replayConversations(new Set(wanted.keys()), {
    token,
    recording: false,
    keys,
    resumed,
    recordingAt: (c, frame) => {
      const w = wanted.get(c)!
      return trees && w.next < w.rows.length && frame >= w.beganFrom[w.next]
    },
    onMessage,
    // A conversation whose rows have all come out is not decoded further.
    done: (c) => {
      const w = wanted.get(c)!
      return w.next >= w.rows.length
    },
    onProgress: progress
  })
  if (written < rows.length) return null
  await endExport(writer, io, { file: name, frames: ctx.frames, linkTypes: ctx.linkTypes, warnings }, ctx.conversations, {
    messages: written,
    errors: ctx.rows.errors
  })
  return { frames: ctx.frames, messages: ctx.rows.count, matched: written, errors: ctx.rows.errors, warnings }
}
