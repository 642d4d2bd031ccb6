// The decoding half of fuzz.test.ts, without vitest: the test runs these in a worker under a hard time
// limit (helpers/time-limit.ts), since a decoder loop that never ends cannot be stopped by vitest's timeout.
// They return what the test asserts on: thrown errors, range violations, decoded message texts.
import { readFileSync } from 'node:fs'
import { DecodeSession } from '../../../src-shared/engine/session'
import { CaptureFormatError } from '../../../src-shared/capture/types'
import { CaptureReader } from '../../../src-shared/capture/reader'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { messageText } from '../../../src-shared/export/json'
import { Engine } from '../../../src-shared/engine/engine'
import { createDefaultRegistry } from '../../../src-shared/protocols'
import { rng } from '../helpers/rng'
import { rangeProblems } from '../helpers/ranges'

function mutate(input: Uint8Array, rand: () => number): Uint8Array {
  const b = new Uint8Array(input)
  const kind = Math.floor(rand() * 4)
  const flips = 1 + Math.floor(rand() * 40)
  // Keep the first 64 bytes (file header) mostly intact so the reader gets to the records.
  const at = () => 64 + Math.floor(rand() * (b.length - 64))
  if (kind === 0) for (let i = 0; i < flips; i++) b[at()] ^= 1 << Math.floor(rand() * 8)
  if (kind === 1) for (let i = 0; i < flips; i++) b[at()] = Math.floor(rand() * 256)
  if (kind === 2) return b.subarray(0, at())
  if (kind === 3) {
    // Overwrite a run with 0xff: absurd lengths everywhere in it.
    const s = at()
    b.fill(0xff, s, Math.min(b.length, s + 1 + Math.floor(rand() * 64)))
  }
  return b
}

export interface FuzzReport {
  runs: number
  messages: number
  /** Anything thrown other than CaptureFormatError. */
  thrown: string[]
  ranges: string[]
}

const describeError = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e))

/** Mutated captures (bit flips, random bytes, truncation, 0xff runs), pushed in random pieces. */
export function fuzzCaptures(files: string[], seed: number, perFile: number): FuzzReport {
  const rand = rng(seed)
  const report: FuzzReport = { runs: 0, messages: 0, thrown: [], ranges: [] }
  for (const file of files) {
    const original = new Uint8Array(readFileSync(file))
    for (let i = 0; i < perFile; i++) {
      const data = mutate(original, rand)
      const s = new DecodeSession({
        onMessage: (m) => {
          report.messages++
          report.ranges.push(...rangeProblems(m))
        }
      })
      try {
        let pos = 0
        while (pos < data.length) {
          const n = 1 + Math.floor(rand() * 3000)
          s.push(data.subarray(pos, pos + n))
          pos += n
        }
        s.end()
      } catch (e) {
        if (!(e instanceof CaptureFormatError)) report.thrown.push(`${file} run ${i}: ${describeError(e)}`)
      }
      report.runs++
    }
  }
  return report
}

/** A valid capture header followed by random bytes. */
export function fuzzGarbage(file: string, seed: number, runs: number): FuzzReport {
  const rand = rng(seed)
  const report: FuzzReport = { runs: 0, messages: 0, thrown: [], ranges: [] }
  const header = new Uint8Array(readFileSync(file)).subarray(0, 200)
  for (let i = 0; i < runs; i++) {
    const junk = Uint8Array.from({ length: 5000 }, () => Math.floor(rand() * 256))
    const s = new DecodeSession({
      onMessage: (m) => {
        report.messages++
        report.ranges.push(...rangeProblems(m))
      }
    })
    try {
      s.push(header)
      s.push(junk)
      s.end()
    } catch (e) {
      if (!(e instanceof CaptureFormatError)) report.thrown.push(`run ${i}: ${describeError(e)}`)
    }
    report.runs++
  }
  return report
}

// ---- record-level mutations: the engine's input past the capture reader ----

function framesOf(file: string): CaptureFrame[] {
  const out: CaptureFrame[] = []
  const r = new CaptureReader({ onFrame: (f) => out.push(f) })
  r.push(new Uint8Array(readFileSync(file)))
  r.end()
  return out
}

/** Decodes frames (renumbered 1..n as a reader would); each message's text with how many frames were in when it came out. */
function decodeFrames(frames: CaptureFrame[], ranges: string[]): { text: string; after: number }[] {
  const out: { text: string; after: number }[] = []
  let delivered = 0
  const engine = new Engine({
    registry: createDefaultRegistry(),
    recording: true,
    onMessage: (m) => {
      ranges.push(...rangeProblems(m))
      out.push({ text: messageText(m), after: delivered })
    }
  })
  frames.forEach((f, i) => {
    delivered = i
    engine.addFrame({ ...f, number: i + 1 })
  })
  delivered = frames.length
  engine.finish()
  return out
}

const EXTREMES = [0, 0xff, 0x7fff, 0xffff, 0x7fffffff, 0xffffffff, 0x80000000]

/** Mutates frames from index `k` on (bit flips, extreme lengths, duplicates, shuffles, truncation); frames before `k` stay as they were. */
function mutateFrames(frames: CaptureFrame[], k: number, rand: () => number): CaptureFrame[] {
  const out = frames.map((f) => ({ ...f, data: new Uint8Array(f.data) }))
  const pick = (n: number) => Math.floor(rand() * n)
  const later = () => k + pick(out.length - k)
  switch (pick(5)) {
    case 0: // bit flips in a few frames' payload area (past a minimal Ethernet+IP+UDP header)
      for (let i = 0, n = 1 + pick(6); i < n; i++) {
        const d = out[later()].data
        if (d.length > 42) d[42 + pick(d.length - 42)] ^= 1 << pick(8)
      }
      break
    case 1: {
      // an extreme 16- or 32-bit value where a length field may be
      const d = out[k].data
      const at = 14 + pick(Math.max(1, d.length - 18))
      const v = EXTREMES[pick(EXTREMES.length)]
      if (pick(2)) new DataView(d.buffer).setUint16(Math.min(at, d.length - 2), v & 0xffff, pick(2) === 0)
      else if (d.length >= 4) new DataView(d.buffer).setUint32(Math.min(at, d.length - 4), v >>> 0, pick(2) === 0)
      break
    }
    case 2: // a later frame repeated at k (retransmissions, duplicated records)
      out.splice(k, 0, { ...out[later()] })
      break
    case 3: {
      // frames from k on in a random order
      const tail = out.splice(k)
      for (let i = tail.length - 1; i > 0; i--) {
        const j = pick(i + 1)
        ;[tail[i], tail[j]] = [tail[j], tail[i]]
      }
      out.push(...tail)
      break
    }
    case 4: // the capture ends inside frame k
      out.length = k + 1
      out[k] = { ...out[k], data: out[k].data.subarray(0, pick(out[k].data.length)) }
      break
  }
  return out
}

export interface PrefixCase {
  what: string
  /** Texts of the messages out before the first mutated frame was delivered: original, then mutated. */
  expected: string[]
  got: string[]
}

/** Per file, `perFile` record-level mutations from a random frame k on; the messages out before frame k, both ways. */
export function fuzzFrames(files: string[], seed: number, perFile: number): { originals: number[]; cases: PrefixCase[]; thrown: string[]; ranges: string[] } {
  const rand = rng(seed)
  const res = { originals: [] as number[], cases: [] as PrefixCase[], thrown: [] as string[], ranges: [] as string[] }
  for (const file of files) {
    const frames = framesOf(file)
    const original = decodeFrames(frames, res.ranges)
    res.originals.push(original.length)
    for (let i = 0; i < perFile; i++) {
      const k = 1 + Math.floor(rand() * (frames.length - 1))
      const what = `${file} mutated from frame ${k + 1}`
      try {
        const mutated = decodeFrames(mutateFrames(frames, k, rand), res.ranges)
        // What came out before frame k was delivered depends on frames before k only: identical.
        const before = (list: { text: string; after: number }[]) => list.filter((m) => m.after < k).map((m) => m.text)
        res.cases.push({ what, expected: before(original), got: before(mutated) })
      } catch (e) {
        res.thrown.push(`${what}: ${describeError(e)}`)
      }
    }
  }
  return res
}
