// Hostile input: mutated and truncated captures must never throw anything but CaptureFormatError,
// must terminate, and every field range must stay inside its data source.
import { describe, it, expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DecodeSession } from '../../../src-shared/engine/session'
import { CaptureFormatError } from '../../../src-shared/capture/types'
import type { DecodedMessage, FieldNode } from '../../../src-shared/model/types'
import { rng } from '../helpers/rng'
import { checkRanges } from '../helpers/decode'
import { CaptureReader } from '../../../src-shared/capture/reader'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { messageText } from '../../../src-shared/export/json'
import { Engine } from '../../../src-shared/engine/engine'
import { createDefaultRegistry } from '../../../src-shared/protocols'

const FIXTURES = [
  join(__dirname, '../../fixtures/net/loopback.pcapng'),
  join(__dirname, '../../fixtures/net/tcp-reordered.pcapng'),
  join(__dirname, '../../fixtures/net/link-sll2.pcap'),
  join(__dirname, '../../fixtures/net/link-null.pcap'),
  join(__dirname, '../../fixtures/shared/enet-fignet-loopback.pcapng')
]


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


describe('fuzzed captures', () => {
  it('never throw past the engine, always finish, and keep ranges inside their sources', () => {
    const rand = rng(20261202)
    let runs = 0
    let messages = 0
    for (const file of FIXTURES) {
      const original = new Uint8Array(readFileSync(file))
      for (let i = 0; i < 60; i++) {
        const data = mutate(original, rand)
        const s = new DecodeSession({
          onMessage: (m) => {
            messages++
            checkRanges(m)
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
          expect(e).toBeInstanceOf(CaptureFormatError)
        }
        runs++
      }
    }
    expect(runs).toBe(FIXTURES.length * 60)
    expect(messages).toBeGreaterThan(1000)
  })

  it('survives random garbage after a valid header', () => {
    const rand = rng(7)
    const header = new Uint8Array(readFileSync(FIXTURES[0])).subarray(0, 200)
    for (let i = 0; i < 50; i++) {
      const junk = Uint8Array.from({ length: 5000 }, () => Math.floor(rand() * 256))
      const s = new DecodeSession({ onMessage: checkRanges })
      try {
        s.push(header)
        s.push(junk)
        s.end()
      } catch (e) {
        expect(e).toBeInstanceOf(CaptureFormatError)
      }
    }
  })
})

// ---- record-level mutations: the engine's input past the capture reader ----

/** Captures whose payloads every decoder family sees: Photon UDP, SFS2X over TCP (zlib) and WebSocket (deflate), FigNet over ENet. */
const PROTOCOL_FIXTURES = [
  join(__dirname, '../../fixtures/ui/photon-session.pcapng'),
  join(__dirname, '../../fixtures/sfs2x/lastwar-tcp.pcapng'),
  join(__dirname, '../../fixtures/sfs2x/sdk-ws-deflate.pcapng'),
  join(__dirname, '../../fixtures/sfs2x/vanilla-tcp.pcapng'),
  join(__dirname, '../../fixtures/enet/enet-fignet-loopback.pcapng'),
  join(__dirname, '../../fixtures/net/tcp-reordered.pcapng')
]

function framesOf(file: string): CaptureFrame[] {
  const out: CaptureFrame[] = []
  const r = new CaptureReader({ onFrame: (f) => out.push(f) })
  r.push(new Uint8Array(readFileSync(file)))
  r.end()
  return out
}

/** Decodes frames (renumbered 1..n as a reader would); each message's text with how many frames were in when it came out. */
function decodeFrames(frames: CaptureFrame[]): { text: string; after: number }[] {
  const out: { text: string; after: number }[] = []
  let delivered = 0
  const engine = new Engine({
    registry: createDefaultRegistry(),
    recording: true,
    onMessage: (m) => {
      checkRanges(m)
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

describe('fuzzed frames', () => {
  it('decode the unmutated prefix exactly as before, and never throw, whatever follows', () => {
    const rand = rng(20261203)
    let checked = 0
    for (const file of PROTOCOL_FIXTURES) {
      const frames = framesOf(file)
      const original = decodeFrames(frames)
      expect(original.length, file).toBeGreaterThan(0)
      for (let i = 0; i < 12; i++) {
        const k = 1 + Math.floor(rand() * (frames.length - 1))
        const mutated = decodeFrames(mutateFrames(frames, k, rand))
        // What came out before frame k was delivered depends on frames before k only: identical.
        const before = (list: { text: string; after: number }[]) => list.filter((m) => m.after < k).map((m) => m.text)
        const expected = before(original)
        expect(before(mutated), `${file} mutated from frame ${k + 1}`).toEqual(expected)
        checked += expected.length
      }
    }
    expect(checked).toBeGreaterThan(300)
  })
})
