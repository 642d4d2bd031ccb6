// Detail checkpoints copy a conversation engine's state (src-shared/engine/state-copy.ts). The copy must be
// deep and faithful, refuse what it cannot copy, and an engine forked part way through a capture must give
// exactly the messages the original gives from there on: checked at points through every committed capture,
// against the original engine fed the same frames.
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CaptureReader } from '../../../src-shared/capture/reader'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { Engine } from '../../../src-shared/engine/engine'
import { copyState, leftOutOfCopies, shareable, StateCopyRefused } from '../../../src-shared/engine/state-copy'
import { parseKeyFile } from '../../../src-shared/keys/keyfile'
import { KeyStore } from '../../../src-shared/keys/store'
import type { DecodedMessage } from '../../../src-shared/model/types'
import { createDefaultRegistry } from '../../../src-shared/protocols'
import { messageJson } from '../export/reference'
import { committedCaptures } from '../helpers/captures'

const ROOT = join(__dirname, '../../..')

class Counter {
  n = 0
  readonly seen = new Map<string, number[]>()
  bytes = new Uint8Array([1, 2, 3])
  bump(key: string): void {
    this.n++
    const list = this.seen.get(key) ?? []
    list.push(this.n)
    this.seen.set(key, list)
    this.bytes[0]++
  }
}

describe('copyState', () => {
  it('copies class instances, Maps, Sets, arrays and typed arrays deeply, keeping prototypes and cycles', () => {
    const a = new Counter()
    a.bump('x')
    const holder = { a, again: a, set: new Set([a]), list: [a, 1, 'two', null], big: 5n }
    const b = copyState(holder, new Map())
    if (b instanceof StateCopyRefused) throw new Error(b.path)
    expect(b.a).toBeInstanceOf(Counter)
    expect(b.a).not.toBe(a)
    expect(b.again).toBe(b.a) // one object stays one object
    expect([...b.set][0]).toBe(b.a)
    expect(b.list).toEqual([b.a, 1, 'two', null])
    expect(b.big).toBe(5n)
    // Independent from here on: changing the copy leaves the original as it was, and the other way round.
    b.a.bump('x')
    b.a.bump('y')
    expect(a.n).toBe(1)
    expect(a.seen).toEqual(new Map([['x', [1]]]))
    expect(a.bytes[0]).toBe(2)
    expect(b.a.seen).toEqual(
      new Map([
        ['x', [1, 2]],
        ['y', [3]]
      ])
    )
    expect(b.a.bytes[0]).toBe(4)
  })

  it("copies a typed array's own bytes only, and a Buffer stays a Buffer", () => {
    const slab = new Uint8Array(1024).fill(7)
    const view = slab.subarray(10, 14)
    const buf = Buffer.from('abc')
    const c = copyState({ view, buf }, new Map())
    if (c instanceof StateCopyRefused) throw new Error(c.path)
    expect(c.view.buffer.byteLength).toBe(4)
    expect([...c.view]).toEqual([7, 7, 7, 7])
    expect(Buffer.isBuffer(c.buf)).toBe(true)
    expect(c.buf.toString()).toBe('abc')
  })

  it('maps the objects it is told to, and shares frozen objects and shareable functions', () => {
    const options = { name: 'original' }
    const replacement = { name: 'the copy' }
    const frozen = Object.freeze({ frame: 3 })
    const fn = shareable((x: number) => x + 1)
    const c = copyState({ options, frozen, fn }, new Map([[options, replacement]]))
    if (c instanceof StateCopyRefused) throw new Error(c.path)
    expect(c.options).toBe(replacement)
    expect(c.frozen).toBe(frozen)
    expect(c.fn).toBe(fn)
  })

  it('refuses a closure, an accessor and kinds it does not know, naming the path', () => {
    const closure = () => 1
    const refused = (v: unknown) => {
      const r = copyState(v, new Map())
      return r instanceof StateCopyRefused ? r.path : null
    }
    expect(refused({ inner: { callback: closure } })).toBe('root.inner.callback')
    expect(refused({ list: [1, closure] })).toBe('root.list[1]')
    expect(refused({ m: new Map([['k', closure]]) })).toBe('root.m.get(k)')
    expect(
      refused({
        get now() {
          return 1
        }
      })
    ).toBe('root.now (accessor)')
    expect(refused({ p: Promise.resolve(1) })).toBe('root.p (Promise)')
    expect(refused({ w: new WeakMap() })).toBe('root.w (WeakMap)')
    class Tagged extends Map<string, number> {
      tag = 'lost in a plain Map'
    }
    expect(refused({ t: new Tagged() })).toBe('root.t (Tagged)')
    expect(refused({ e: new RangeError('x') })).toBe('root.e (RangeError)')
  })

  it('leaves out the fields a class names, keeping them as unset properties', () => {
    class WithCache {
      value = 2
      cache: (() => number) | undefined = undefined
      get(): number {
        this.cache ??= () => this.value
        return this.cache()
      }
    }
    leftOutOfCopies(WithCache, ['cache'])
    const w = new WithCache()
    expect(w.get()).toBe(2)
    const c = copyState(w, new Map())
    if (c instanceof StateCopyRefused) throw new Error(c.path)
    expect(Object.hasOwn(c, 'cache')).toBe(true)
    expect(c.cache).toBeUndefined()
    c.value = 5
    expect(c.get()).toBe(5) // its own callback, made on first use
    expect(w.get()).toBe(2)
  })
})

function frames(file: string): CaptureFrame[] {
  const out: CaptureFrame[] = []
  const reader = new CaptureReader({ onFrame: (f) => out.push({ ...f, data: f.data.slice() }), onWarning: () => undefined })
  try {
    reader.push(new Uint8Array(readFileSync(file)))
    reader.end()
  } catch {
    // Corrupt-capture fixtures: what was read still counts.
  }
  return out
}

function keys(): KeyStore {
  const k = new KeyStore()
  k.addAll(parseKeyFile(readFileSync(join(ROOT, 'test/fixtures/ui/keys.txt'), 'utf8')).keys)
  return k
}

const text = (m: DecodedMessage) => JSON.stringify(messageJson(m, { includeSourceBytes: true }))

describe('Engine.fork', () => {
  let compared = 0
  it.each(committedCaptures().map((f) => [f.slice(ROOT.length + 1), f]))(
    '%s: a fork part way through gives what the original gives from there on',
    (_n, file) => {
      const all = frames(file)
      const store = keys()
      // Up to 12 points spread through the capture, each a fresh engine fed the frames before it.
      const step = Math.max(1, Math.floor(all.length / 12))
      for (let at = step; at < all.length; at += step) {
        const original: string[] = []
        const forked: string[] = []
        const engine = new Engine({ registry: createDefaultRegistry(), keys: store, layers: true, onMessage: (m) => original.push(text(m)) })
        for (let i = 0; i < at; i++) engine.addFrame(all[i])
        original.length = 0
        const twin = engine.fork((m) => forked.push(text(m)))
        if (twin instanceof StateCopyRefused) throw new Error(`${file}: the engine's state could not be copied at ${twin.path}`)
        for (let i = at; i < all.length; i++) {
          engine.addFrame(all[i])
          twin.addFrame(all[i])
        }
        engine.finish()
        twin.finish()
        expect(forked).toEqual(original)
        compared += original.length
      }
    }
  )

  it('a fork without layers shows none, though the original kept frames for them', () => {
    const all = frames(join(ROOT, 'resources/demo.pcapng'))
    const at = Math.floor(all.length / 2)
    const withLayers = new Engine({ registry: createDefaultRegistry(), keys: keys(), layers: true, onMessage: () => undefined })
    const without: string[] = []
    const plain = new Engine({ registry: createDefaultRegistry(), keys: keys(), onMessage: (m) => without.push(text(m)) })
    for (let i = 0; i < at; i++) {
      withLayers.addFrame(all[i])
      plain.addFrame(all[i])
    }
    without.length = 0
    const forked: string[] = []
    const twin = withLayers.fork((m) => forked.push(text(m)), { layers: false })
    if (twin instanceof StateCopyRefused) throw new Error(twin.path)
    for (let i = at; i < all.length; i++) {
      twin.addFrame(all[i])
      plain.addFrame(all[i])
    }
    twin.finish()
    plain.finish()
    expect(without.length).toBeGreaterThan(50)
    expect(forked).toEqual(without)
  })

  it('compared messages at all (the captures above hold thousands after their fork points)', () => {
    expect(compared).toBeGreaterThan(5000)
  })
})
