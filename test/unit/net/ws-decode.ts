// Feeding recorded chunks into the WebSocket decoder, and a hostile-input fuzz of it. No vitest import:
// the byte-by-byte and fuzz runs load this module in a worker under a hard time limit (helpers/time-limit.ts).
import { ByteStream } from '../../../src-shared/net/byte-stream'
import { WebSocketConnection, type WebSocketOptions, type WsEvent } from '../../../src-shared/net/websocket'
import type { FieldNode } from '../../../src-shared/model/types'
import { rng } from '../helpers/rng'
import { pmd, upgradeRequest, upgradeResponse } from '../helpers/websocket'

export type Dir = 'c2s' | 's2c'
export interface Chunk {
  dir: Dir
  data: Uint8Array
  frame: number
}

export interface Decoded {
  events: WsEvent[]
  conn: WebSocketConnection
  c2s: ByteStream
  s2c: ByteStream
}

export function decode(chunks: Chunk[], opts: WebSocketOptions = {}, byteByByte = false, finish = true): Decoded {
  const c2s = new ByteStream()
  const s2c = new ByteStream()
  const conn = new WebSocketConnection(c2s, s2c, opts)
  const events: WsEvent[] = []
  for (const ch of chunks) {
    const stream = ch.dir === 'c2s' ? c2s : s2c
    const time = ch.frame / 1000
    if (byteByByte) {
      for (let i = 0; i < ch.data.length; i++) {
        stream.push(ch.data.subarray(i, i + 1), ch.frame, time)
        events.push(...conn.process(ch.dir))
      }
    } else {
      stream.push(ch.data, ch.frame, time)
      events.push(...conn.process(ch.dir))
    }
  }
  if (finish) events.push(...conn.process('c2s', true), ...conn.process('s2c', true))
  return { events, conn, c2s, s2c }
}

export const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')

function treeJson(nodes: FieldNode[]): unknown {
  return nodes.map((n) => ({
    ...n,
    value: n.value instanceof Uint8Array ? hex(n.value) : typeof n.value === 'bigint' ? String(n.value) : n.value,
    children: n.children ? treeJson(n.children) : undefined
  }))
}

/** A comparable, fully expanded view of an event (bytes as hex, trees as JSON). */
export function normalize(e: WsEvent): unknown {
  const out: Record<string, unknown> = { ...e }
  for (const k of ['payload', 'bytes'] as const) if (k in e) out[k] = hex((e as unknown as Record<string, Uint8Array>)[k])
  if ('head' in e) out.head = JSON.stringify(e.head)
  if ('draft' in e && e.draft) {
    out.draft = {
      sources: e.draft.sources.map((s) => ({ name: s.name, bytes: hex(s.bytes) })),
      tree: treeJson(e.draft.tree.roots),
      warnings: e.draft.warnings,
      error: e.draft.error
    }
  }
  return out
}

/** decode(), normalized (plain data, so it crosses a worker boundary). */
export function decodeNormalized(chunks: Chunk[], opts: WebSocketOptions = {}, byteByByte = false, finish = true): unknown[] {
  return decode(chunks, opts, byteByByte, finish).events.map(normalize)
}

/** One frame with any payload bytes: masked or not, any opcode, RSV bits, any length encoding. */
function hostileFrame(rand: () => number): Uint8Array {
  const pick = (n: number) => Math.floor(rand() * n)
  const len = [0, 1, 2, 5, 125, 126, 300, 70000][pick(8)]
  const payload = Uint8Array.from({ length: len }, () => pick(256))
  const masked = rand() < 0.7
  const b0 = (rand() < 0.8 ? 0x80 : 0) | (rand() < 0.4 ? 0x40 : 0) | (rand() < 0.05 ? 0x30 : 0) | [0, 1, 2, 8, 9, 10, 3, 0xb][pick(8)]
  const hdr = [b0]
  const m = masked ? 0x80 : 0
  if (len < 126 && rand() < 0.9) hdr.push(m | len)
  else if (len < 65536 && rand() < 0.9) hdr.push(m | 126, len >> 8, len & 0xff)
  else hdr.push(m | 127, 0, 0, 0, 0, (len >>> 24) & 0xff, (len >>> 16) & 0xff, (len >>> 8) & 0xff, len & 0xff)
  if (masked) hdr.push(pick(256), pick(256), pick(256), pick(256))
  return Uint8Array.from([...hdr, ...payload])
}

/**
 * Any payload bytes after a valid upgrade (with and without permessage-deflate, so random bytes are also
 * inflated), random deflate streams, and random bytes where a header should be; whole and byte by byte.
 * Returns what threw (nothing may) and how much was decoded.
 */
export function fuzzWebSocket(seed: number, runs: number): { runs: number; events: number; thrown: string[] } {
  const rand = rng(seed)
  const thrown: string[] = []
  let events = 0
  const enc = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'))
  for (let i = 0; i < runs; i++) {
    const deflate = rand() < 0.5 ? 'permessage-deflate' : ''
    const chunks: Chunk[] = [
      { dir: 'c2s', data: enc(upgradeRequest('/ws', deflate)), frame: 1 },
      { dir: 's2c', data: enc(upgradeResponse(deflate)), frame: 2 }
    ]
    for (let f = 0; f < 6; f++) {
      const dir: Dir = rand() < 0.5 ? 'c2s' : 's2c'
      const r = rand()
      // valid compressed frames of random data, random frames, or raw junk
      const data =
        r < 0.25
          ? Uint8Array.from([0xc2, 0, ...pmd(Uint8Array.from({ length: 200 }, () => Math.floor(rand() * 4)))])
          : r < 0.9
            ? hostileFrame(rand)
            : Uint8Array.from({ length: 1 + Math.floor(rand() * 40) }, () => Math.floor(rand() * 256))
      if (data[0] === 0xc2) data[1] = data.length - 2 < 126 ? data.length - 2 : 0 // a short one fits the 7-bit length; a long one is garbage too
      chunks.push({ dir, data, frame: 3 + f })
    }
    try {
      events += decode(chunks, {}, rand() < 0.2).events.length
    } catch (e) {
      thrown.push(`run ${i}: ${e instanceof Error ? e.stack : String(e)}`)
    }
  }
  return { runs, events, thrown }
}
