import { describe, it, expect } from 'vitest'
import {
  conversationJson,
  messageText,
  JsonExportWriter,
  jsonSafe,
  jsonText,
  writeMessage,
  writeValue,
  type ExportOptions
} from '../../../src-shared/export/json'
import { JsonBytes } from '../../../src-shared/export/json-bytes'
import type { ConversationInfo, DecodedMessage, FieldNode } from '../../../src-shared/model/types'
import { referenceText, referenceValue } from './reference'

const msg = (over: Partial<DecodedMessage> = {}): DecodedMessage => ({
  id: 7,
  conversation: 2,
  direction: 'c2s',
  frames: [3, 9],
  time: 1764700000.123456,
  protocol: 'sfs2x',
  stack: ['tcp', 'sfs2x'],
  name: 'Login "quoted"',
  summary: 'zone=\u00e9t\u00e9 \u2603 tab\there',
  value: { big: 2n ** 63n - 1n, bytes: new Uint8Array([0, 255]), nan: NaN, list: [1n, { deep: new Uint8Array([1]) }], skip: undefined, nul: null },
  tree: [
    {
      key: 'sfs2x.header',
      label: 'Header \u00e9',
      type: 'none',
      source: 0,
      start: 0,
      length: 3,
      children: [
        { key: 'sfs2x.header.byte', label: 'Byte: 128', type: 'u8', value: 128, source: 0, start: 0, length: 1 },
        { key: 'sfs2x.p.id', label: 'id', type: 'i64', value: -5n, source: 1, start: 2, length: 8 },
        { key: 'sfs2x.p.raw', label: 'raw', type: 'bytes', value: new Uint8Array(40).fill(0xab), source: 1, start: 10, length: 40 }
      ]
    },
    { key: 'sfs2x.note', label: 'no range', type: 'none' }
  ],
  sources: [
    { name: 'TCP payload', bytes: new Uint8Array(3) },
    { name: 'Inflated', bytes: new Uint8Array(50) }
  ],
  warnings: ['w1'],
  error: 'bad thing at offset 4',
  ...over
})

/** What a writer hands its sink, joined; `chunkSize` small enough to cut through every kind of piece. */
function bytesOf(write: (w: JsonBytes) => void, chunkSize = 64, reuse = false): Buffer {
  const parts: Buffer[] = []
  const w = new JsonBytes((c) => parts.push(Buffer.from(reuse ? c.slice() : c)), { chunkSize, reuse })
  write(w)
  w.flush()
  return Buffer.concat(parts)
}

const utf8 = (s: string) => Buffer.from(s, 'utf8')

// Deterministic pseudo-random numbers (no flaky tests).
function rng(seed: number) {
  return () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32
}

describe('decoded-JSON export', () => {
  const messages = [
    msg(),
    msg({ value: null, tree: [], warnings: [], error: null }),
    msg({ value: { hex: new Uint8Array(100).fill(1) } }),
    msg({ value: undefined, frames: [], stack: [], sources: [], warnings: ['a', 'b\n'] }),
    msg({
      value: new Map<unknown, unknown>([
        [253, 1],
        [
          'b',
          [
            new Map<string, unknown>([
              ['2', 'x'],
              ['1', 5n]
            ])
          ]
        ]
      ])
    }),
    msg({ id: 2 ** 40, conversation: 0, time: 0.1 + 0.2, frames: [1, 2 ** 31, 2 ** 32 + 1] })
  ]

  it('writes exactly the text of the JSON.stringify reference, for every option', () => {
    for (const m of messages) {
      for (const opts of [{}, { includeSourceBytes: true }, { tree: 'none' as const }, { tree: 'full' as const, includeSourceBytes: true }]) {
        const want = referenceText(m, opts)
        expect(messageText(m, opts)).toBe(want)
        // the same bytes however the output is cut into chunks, reused buffer or not
        for (const chunk of [64, 1000])
          for (const reuse of [false, true]) expect(bytesOf((w) => writeMessage(w, m, opts), chunk, reuse).equals(utf8(want))).toBe(true)
      }
    }
  })

  it('types values as the contract says: 64-bit as decimal strings, bytes as lowercase hex', () => {
    expect(jsonSafe(msg().value)).toEqual({ big: '9223372036854775807', bytes: '00ff', nan: 'NaN', list: ['1', { deep: '01' }], nul: null })
    const o = JSON.parse(messageText(msg()))
    expect(o.tree[0].children[1].value).toBe('-5')
    expect(o.tree[0].children[2].value).toBe('ab'.repeat(40))
    expect(o.tree[1]).toEqual({ key: 'sfs2x.note', label: 'no range', type: 'none', children: [] })
    expect(o.sources).toEqual([
      { name: 'TCP payload', length: 3 },
      { name: 'Inflated', length: 50 }
    ])
  })

  it('leaves the tree out with tree none, and nothing else', () => {
    const o = JSON.parse(messageText(msg(), { tree: 'none', includeSourceBytes: true }))
    expect(Object.keys(o)).toEqual([
      'id',
      'conversation',
      'direction',
      'frames',
      'time',
      'protocol',
      'stack',
      'name',
      'summary',
      'value',
      'sources',
      'warnings',
      'error'
    ])
    expect(o.sources).toEqual([
      { name: 'TCP payload', length: 3, hex: '000000' },
      { name: 'Inflated', length: 50, hex: '00'.repeat(50) }
    ])
  })

  it('writes Map values in insertion order, integer-like keys included (wire order)', () => {
    const value = new Map<string, unknown>([
      ['253', 1],
      [
        'b',
        new Map<string, unknown>([
          ['2', 'x'],
          ['1', 5n]
        ])
      ],
      ['7', [new Uint8Array([0xff])]],
      ['__proto__', true]
    ])
    expect(jsonText(value)).toBe('{"253":1,"b":{"2":"x","1":"5"},"7":["ff"],"__proto__":true}')
    const line = messageText(msg({ value: { parameters: value } }))
    expect(line).toContain('"value":{"parameters":{"253":1,"b":{"2":"x","1":"5"},"7":["ff"],"__proto__":true}}')
    // without Maps the text is what JSON.stringify of the JSON-safe copy gives
    expect(jsonText(msg().value)).toBe(JSON.stringify(jsonSafe(msg().value)))
    // the in-memory copy keeps every key, even __proto__, as own data
    expect(Object.keys(jsonSafe(value) as object).sort()).toEqual(['253', '7', '__proto__', 'b'])
  })

  it('escapes strings exactly as JSON.stringify does: control characters, quotes, U+2028/2029, lone surrogates', () => {
    const cases = [
      '',
      Array.from({ length: 0x80 }, (_, c) => String.fromCharCode(c)).join(''),
      '"\\/\u007f\u0080\u00ff\u0100\u07ff\u0800\uffff\ufeff',
      '\u2028 line \u2029 paragraph',
      '\ud800',
      '\udfff',
      'a\ud800b',
      'a\udc00b',
      '\udc00\ud800',
      '\ud800\ud800\udc00',
      '\ud83d\ude00 pair',
      'end \ud83d',
      '\u{10ffff}\u{1f600}'
    ]
    // a pair straddling the writer's 4096-unit pieces, lone halves at the edges, long runs of escapes
    for (const at of [4094, 4095, 4096, 4097, 8191])
      cases.push('x'.repeat(at) + '\ud83d\ude00' + 'y'.repeat(10), 'x'.repeat(at) + '\ud83d', '\n'.repeat(at) + '\udc00')
    const random = rng(1)
    for (let i = 0; i < 300; i++) {
      // code units from every range, surrogates and controls over-represented
      const n = Math.floor(random() * 40)
      let s = ''
      for (let k = 0; k < n; k++) {
        const r = random()
        s += String.fromCharCode(
          r < 0.2
            ? Math.floor(random() * 0x20)
            : r < 0.4
              ? 0xd800 + Math.floor(random() * 0x800)
              : r < 0.7
                ? Math.floor(random() * 0x80)
                : Math.floor(random() * 0x10000)
        )
      }
      cases.push(s)
    }
    for (const s of cases) {
      const want = utf8(JSON.stringify(s))
      for (const chunk of [64, 1 << 16]) expect(bytesOf((w) => w.string(s), chunk).equals(want), JSON.stringify(s).slice(0, 80)).toBe(true)
      // keys (cached once) and values take the same escapes
      expect(bytesOf((w) => writeValue(w, new Map([[s, s]]))).equals(utf8(`{${JSON.stringify(s)}:${JSON.stringify(s)}}`))).toBe(true)
      expect(bytesOf((w) => w.name(s)).equals(want)).toBe(true)
    }
  })

  it('writes numbers as JSON.stringify does, and bigints and non-finite numbers as strings', () => {
    const numbers = [
      0,
      -0,
      1,
      9,
      10,
      99,
      100,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 32,
      -1,
      -(2 ** 31),
      1.5,
      -1.5,
      0.1 + 0.2,
      1e21,
      1e-7,
      5e-324,
      Number.MAX_VALUE,
      Number.MAX_SAFE_INTEGER,
      1764700000.123456
    ]
    const random = rng(2)
    for (let i = 0; i < 200; i++) numbers.push(Math.floor(random() * 2 ** (i % 53)), (random() - 0.5) * 10 ** (i % 30))
    for (const n of numbers) {
      expect(bytesOf((w) => w.number(n)).toString()).toBe(JSON.stringify(n))
      expect(jsonText(n)).toBe(JSON.stringify(n))
    }
    for (const n of [NaN, Infinity, -Infinity]) {
      expect(bytesOf((w) => w.number(n)).toString()).toBe('null') // an envelope number: JSON.stringify's null
      expect(jsonText(n)).toBe(`"${n}"`) // a typed value: the contract's string
    }
    for (const b of [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 64n, -(10n ** 40n)]) expect(jsonText(b)).toBe(`"${b}"`)
    const tree: FieldNode[] = [
      { key: 'k', label: 'l', type: 'f64', value: NaN, source: 0, start: NaN, length: Infinity },
      { key: 'b', label: 'b', type: 'i64', value: -(2n ** 63n) }
    ]
    const m = msg({ tree, time: NaN, value: [Infinity, -Infinity, NaN, -0, 2n ** 70n] })
    expect(messageText(m)).toBe(referenceText(m))
    expect(JSON.parse(messageText(m)).value).toEqual(['Infinity', '-Infinity', 'NaN', 0, '1180591620717411303424'])
  })

  it('writes the numbers of game traffic digit for digit as JSON.stringify: decimals, float32 values, timestamps, near the edges', () => {
    // The writer spells short decimals itself instead of asking String(v); V8's own toString is the reference.
    const random = rng(7)
    const f32 = new Float32Array(1)
    const numbers: number[] = []
    const near = (x: number) => {
      // x and its neighbouring doubles: where a decimal stops reading back as the same number
      const f = new Float64Array([x])
      const i = new BigInt64Array(f.buffer)
      for (const step of [-2n, -1n, 1n, 2n]) {
        i[0] += step
        numbers.push(f[0])
        i[0] -= step
      }
      numbers.push(x)
    }
    for (let k = 0; k < 20_000; k++) {
      const d = k % 7
      const scale = 10 ** d
      const whole = Math.floor(random() * [1, 10, 1000, 2 ** 20, 2 ** 31, 2 ** 32 - 1, 4e9][k % 7])
      const frac = Math.floor(random() * scale)
      near((whole * scale + frac) / scale) // a d-digit decimal
      near(-(whole * scale + frac) / scale)
      near((frac + 0.5) / scale) // halfway between two d-digit decimals
      f32[0] = (random() - 0.5) * 2 ** ((k % 40) - 20) // float32 values, as FigNet and Photon send them
      numbers.push(f32[0], -f32[0])
      numbers.push(Math.round((random() - 0.5) * 65536) / [10, 100, 128, 1000, 10000][k % 5]) // a scaled short
      numbers.push(1_796_233_260 + Math.floor(random() * 1e9) / 1e6) // a capture timestamp with microseconds
      numbers.push(-Math.floor(random() * 2 ** (k % 54))) // negative integers
    }
    for (const x of [2 ** 31, 2 ** 32 - 1e-6, 2 ** 32 - 0.5, 2 ** 32, 2 ** 32 + 0.5, 1e-6, 1.5e-6, 9.999995e-7, 0.000001, 0.1, 0.7, 1 / 3]) near(x)
    const joined = bytesOf((w) => {
      for (const n of numbers) {
        w.number(n)
        w.byte(0x2c)
      }
    }).toString()
    const want = `${numbers.map((n) => JSON.stringify(n)).join(',')},`
    if (joined !== want) {
      const got = joined.split(',')
      const i = got.findIndex((g, k) => g !== JSON.stringify(numbers[k]))
      expect(got[i], `number ${numbers[i]}`).toBe(JSON.stringify(numbers[i]))
    }
    expect(joined).toBe(want)
  })

  it('writes large byte arrays as hex, straight from the bytes', () => {
    const random = rng(3)
    for (const n of [0, 1, 31, 32, 4095, 4096, 4097, 100_000]) {
      const b = Uint8Array.from({ length: n }, () => Math.floor(random() * 256))
      const want = `"${Buffer.from(b).toString('hex')}"`
      for (const chunk of [64, 1 << 16]) expect(bytesOf((w) => w.hex(b), chunk).toString()).toBe(want)
      // a view into a bigger buffer writes only its own bytes
      const big = new Uint8Array(n + 20)
      big.set(b, 10)
      expect(jsonText(big.subarray(10, 10 + n))).toBe(want)
    }
    const m = msg({ value: { body: new Uint8Array(300_000).fill(7) }, sources: [{ name: 'big', bytes: new Uint8Array(1 << 20).fill(0xfe) }] })
    expect(messageText(m, { includeSourceBytes: true })).toBe(referenceText(m, { includeSourceBytes: true }))
  })

  it('writes deep trees and deep values', () => {
    // 1000 levels: as deep as any decoder's nesting limit allows (their maxDepth is capped at 1000)
    let node: FieldNode = { key: 'leaf', label: 'leaf', type: 'u8', value: 1, source: 0, start: 0, length: 1 }
    let value: unknown = 'bottom'
    for (let i = 0; i < 1000; i++) {
      node = { key: `k${i % 7}`, label: `level ${i}`, type: 'none', children: [node, { key: 'x', label: 'x', type: 'str', value: `v${i}` }] }
      value = i % 2 ? new Map([['m', value]]) : [value, i]
    }
    const m = msg({ tree: [node], value })
    expect(messageText(m)).toBe(referenceText(m))
    expect(bytesOf((w) => writeMessage(w, m)).equals(utf8(referenceText(m)))).toBe(true)
  })

  it('writes what it is given without throwing: undefined, functions, symbols and other odd values', () => {
    const odd = { u: undefined, f: () => 1, s: Symbol('x'), arr: [undefined, () => 1, Symbol('y')], d: new Date(0), o: Object.create(null) as object }
    expect(jsonText(odd)).toBe('{"f":null,"s":null,"arr":[null,null,null],"d":{},"o":{}}')
    expect(jsonText(undefined)).toBe('null')
    expect(referenceValue([undefined])).toBe(jsonText([undefined]))
  })

  it('writes a long conversation list in pieces that join to the one-document form', () => {
    const conversations: ConversationInfo[] = Array.from({ length: 5000 }, (_, i) => ({
      id: i + 1,
      transport: i % 2 ? 'tcp' : 'udp',
      client: `10.0.${i >> 8}.${i & 255}:40000`,
      server: '[::1]:5055',
      roleFrom: i % 3 === 0 ? 'handshake' : 'first-packet',
      protocol: 'unknown',
      stack: ['udp'],
      frames: 2,
      bytes: 140,
      firstTime: 1.5,
      lastTime: 2.25,
      notes: i % 7 ? [] : ['a "note"']
    }))
    const source = { file: 'f', frames: 10_000, linkTypes: ['ETHERNET'], warnings: ['w'] }
    const stats = { messages: 3, errors: 0 }
    const keys = [{ type: 'SFS2X_AES', conversation: '*', key: 'ab' }]
    const convs = conversations.map(conversationJson)
    const chunks: Uint8Array[] = []
    const w = new JsonExportWriter({ format: 'json', keys }, (c) => chunks.push(Uint8Array.from(c)))
    let steps = 0
    for (const _ of w.endPieces(source, conversations, stats)) steps++
    expect(steps).toBeGreaterThan(5)
    expect(Buffer.concat(chunks).toString()).toBe(
      `\n],"source":${JSON.stringify(source)},"conversations":${JSON.stringify(convs)},"stats":${JSON.stringify(stats)},"keys":${JSON.stringify(keys)}}\n`
    )
    const nd: Uint8Array[] = []
    new JsonExportWriter({ format: 'ndjson', keys }, (c) => nd.push(Uint8Array.from(c))).end(source, conversations, stats)
    expect(Buffer.concat(nd).toString()).toBe(JSON.stringify({ summary: { format: 'gamewire/1', source, conversations: convs, stats, keys } }) + '\n')
  })

  it('streams a json document and ndjson lines that parse, in chunks whatever their size', () => {
    const conv: ConversationInfo = {
      id: 1,
      transport: 'udp',
      client: '127.0.0.1:1',
      server: '127.0.0.1:2',
      roleFrom: 'port',
      protocol: 'photon',
      stack: ['udp', 'photon'],
      frames: 2,
      bytes: 10,
      firstTime: 1,
      lastTime: 2,
      notes: ['n\u00e9']
    }
    for (const format of ['json', 'ndjson'] as const) {
      const run = (chunkSize: number, reuse: boolean, opts: Partial<ExportOptions> = {}) => {
        const parts: Buffer[] = []
        const w = new JsonExportWriter({ format, ...opts }, (c) => parts.push(Buffer.from(reuse ? c.slice() : c)), { chunkSize, reuse })
        w.begin()
        w.message(msg({ id: 1 }))
        w.flush()
        w.message(msg({ id: 2 }))
        w.end({ file: 'f\u00e9', frames: 2, linkTypes: [], warnings: [] }, [conv], { messages: 2, errors: 2 })
        expect(w.buffered).toBe(0)
        return Buffer.concat(parts).toString('utf8')
      }
      const text = run(1 << 16, false)
      for (const [chunk, reuse] of [
        [64, false],
        [64, true],
        [1 << 20, true]
      ] as const)
        expect(run(chunk, reuse)).toBe(text)
      if (format === 'json') {
        expect(
          text.startsWith('{"format":"gamewire/1","messages":[\n' + referenceText(msg({ id: 1 })) + ',\n' + referenceText(msg({ id: 2 })) + '\n],"source":')
        ).toBe(true)
        const doc = JSON.parse(text)
        expect(doc.format).toBe('gamewire/1')
        expect(doc.messages.map((m: { id: number }) => m.id)).toEqual([1, 2])
        expect(doc.conversations[0].notes).toEqual(['n\u00e9'])
        expect(doc.keys).toBeUndefined()
        expect(JSON.parse(run(64, false, { keys: [{ type: 'T', conversation: '*', key: '00' }] })).keys).toEqual([{ type: 'T', conversation: '*', key: '00' }])
      } else {
        const lines = text.trim().split('\n')
        expect(lines.slice(0, 2)).toEqual([referenceText(msg({ id: 1 })), referenceText(msg({ id: 2 }))])
        expect(lines.map((l) => JSON.parse(l)).map((l) => l.id ?? 'summary')).toEqual([1, 2, 'summary'])
        expect(run(64, true, { tree: 'none' }).split('\n')[0]).toBe(referenceText(msg({ id: 1 }), { tree: 'none' }))
      }
    }
  })
})
