import { describe, it, expect } from 'vitest'
import { conversationJson, messageJson, messageText, JsonExportWriter, jsonSafe, jsonText } from '../../../src-shared/export/json'
import type { ConversationInfo, DecodedMessage } from '../../../src-shared/model/types'

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
    { key: 'sfs2x.header', label: 'Header \u00e9', type: 'none', source: 0, start: 0, length: 3, children: [
      { key: 'sfs2x.header.byte', label: 'Byte: 128', type: 'u8', value: 128, source: 0, start: 0, length: 1 },
      { key: 'sfs2x.p.id', label: 'id', type: 'i64', value: -5n, source: 1, start: 2, length: 8 },
      { key: 'sfs2x.p.raw', label: 'raw', type: 'bytes', value: new Uint8Array(40).fill(0xab), source: 1, start: 10, length: 40 }
    ] },
    { key: 'sfs2x.note', label: 'no range', type: 'none' }
  ],
  sources: [{ name: 'TCP payload', bytes: new Uint8Array(3) }, { name: 'Inflated', bytes: new Uint8Array(50) }],
  warnings: ['w1'],
  error: 'bad thing at offset 4',
  ...over
})

describe('decoded-JSON export', () => {
  it('builds exactly the text JSON.stringify would give for the message object', () => {
    for (const m of [msg(), msg({ value: null, tree: [], warnings: [], error: null }), msg({ value: { hex: new Uint8Array(100).fill(1) } })]) {
      expect(messageText(m)).toBe(JSON.stringify(messageJson(m)))
      expect(messageText(m, { includeSourceBytes: true })).toBe(JSON.stringify(messageJson(m, { includeSourceBytes: true })))
    }
  })

  it('types values as the contract says: 64-bit as decimal strings, bytes as lowercase hex', () => {
    expect(jsonSafe(msg().value)).toEqual({ big: '9223372036854775807', bytes: '00ff', nan: 'NaN', list: ['1', { deep: '01' }], nul: null })
    const o = JSON.parse(messageText(msg()))
    expect(o.tree[0].children[1].value).toBe('-5')
    expect(o.tree[0].children[2].value).toBe('ab'.repeat(40))
    expect(o.tree[1]).toEqual({ key: 'sfs2x.note', label: 'no range', type: 'none', children: [] })
    expect(o.sources).toEqual([{ name: 'TCP payload', length: 3 }, { name: 'Inflated', length: 50 }])
  })

  it('writes Map values in insertion order, integer-like keys included (wire order)', () => {
    const value = new Map<string, unknown>([['253', 1], ['b', new Map<string, unknown>([['2', 'x'], ['1', 5n]])], ['7', [new Uint8Array([0xff])]], ['__proto__', true]])
    expect(jsonText(value)).toBe('{"253":1,"b":{"2":"x","1":"5"},"7":["ff"],"__proto__":true}')
    const line = messageText(msg({ value: { parameters: value } }))
    expect(line).toContain('"value":{"parameters":{"253":1,"b":{"2":"x","1":"5"},"7":["ff"],"__proto__":true}}')
    // without Maps the text is what JSON.stringify of the JSON-safe copy gives
    expect(jsonText(msg().value)).toBe(JSON.stringify(jsonSafe(msg().value)))
    // the in-memory copy keeps every key, even __proto__, as own data
    expect(Object.keys(jsonSafe(value) as object).sort()).toEqual(['253', '7', '__proto__', 'b'])
  })

  it('writes a long conversation list in pieces that join to the one-string form', () => {
    const conversations: ConversationInfo[] = Array.from({ length: 5000 }, (_, i) => ({
      id: i + 1, transport: i % 2 ? 'tcp' : 'udp', client: `10.0.${i >> 8}.${i & 255}:40000`, server: '[::1]:5055', roleFromHandshake: i % 3 === 0,
      protocol: 'unknown', stack: ['udp'], frames: 2, bytes: 140, firstTime: 1.5, lastTime: 2.25, notes: i % 7 ? [] : ['a "note"']
    }))
    const source = { file: 'f', frames: 10_000, linkTypes: ['ETHERNET'], warnings: ['w'] }
    const stats = { messages: 3, errors: 0 }
    const keys = [{ type: 'SFS2X_AES', conversation: '*', key: 'ab' }]
    const convs = conversations.map(conversationJson)
    const w = new JsonExportWriter({ format: 'json', keys })
    const pieces = [...w.endChunks(source, conversations, stats)]
    expect(pieces.length).toBeGreaterThan(5)
    expect(pieces.join('')).toBe(`\n],"source":${JSON.stringify(source)},"conversations":${JSON.stringify(convs)},"stats":${JSON.stringify(stats)},"keys":${JSON.stringify(keys)}}\n`)
    const nd = new JsonExportWriter({ format: 'ndjson', keys })
    expect(nd.end(source, conversations, stats)).toBe(JSON.stringify({ summary: { format: 'gamewire/1', source, conversations: convs, stats, keys } }) + '\n')
  })

  it('streams a json document and ndjson lines that parse', () => {
    for (const format of ['json', 'ndjson'] as const) {
      const w = new JsonExportWriter({ format })
      const text = w.begin() + w.message(msg({ id: 1 })) + w.message(msg({ id: 2 })) + w.end({ file: 'f', frames: 2, linkTypes: [], warnings: [] }, [], { messages: 2, errors: 2 })
      if (format === 'json') {
        const doc = JSON.parse(text)
        expect(doc.format).toBe('gamewire/1')
        expect(doc.messages.map((m: { id: number }) => m.id)).toEqual([1, 2])
        expect(doc.keys).toBeUndefined()
      } else {
        const lines = text.trim().split('\n').map((l) => JSON.parse(l))
        expect(lines.map((l) => l.id ?? 'summary')).toEqual([1, 2, 'summary'])
      }
    }
  })
})
