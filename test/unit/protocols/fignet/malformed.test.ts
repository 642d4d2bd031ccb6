// Hostile payloads through the entry point: truncation at every offset of a sample of every message id,
// bit flips, random garbage for every id and direction, huge counts, deep nesting, and a worst case for
// the generic member guessing. The decoder must never throw, must leave the reader at the end with every
// tree node closed and inside the buffer, and must report failures with an offset inside the payload.
import { describe, it, expect } from 'vitest'
import { allMessages } from '../../../../src-shared/protocols/fignet/names'
import { rng } from '../../helpers/rng'
import { BitWriter, MpWriter, msgpack, packTransform, writeModel } from './encoders'
import { checkNesting, decode, walk } from './helpers'

const PREFIX = 3

function transLite(flags: number) {
  return { TransformData: [...packTransform(flags, { x: 1, y: 2, z: 3, rot: [0, 0, 0, 1], vel: [1, 2, 3] }).bytes], ConfigFlags: flags, SequenceNumber: 9 }
}

/** One realistic payload per message id (and direction where the forms differ). */
function samples(): { id: number; dir: 'c2s' | 's2c'; bytes: Uint8Array }[] {
  const out: { id: number; dir: 'c2s' | 's2c'; bytes: Uint8Array }[] = []
  const add = (id: number, dir: 'c2s' | 's2c', bytes: Uint8Array) => out.push({ id, dir, bytes })
  add(60000, 'c2s', new BitWriter().byte(1).string('secret').string('app').toBytes())
  add(60000, 's2c', new BitWriter().byte(0).string('invalid').string('bad key').toBytes())
  add(60002, 'c2s', new BitWriter().byte(1).toBytes())
  add(
    60300,
    'c2s',
    writeModel(new MpWriter(), 'CreateRoomData', {
      RoomName: 'Arena',
      MaxPlayers: 8,
      Password: 'pw',
      CellSize: 10,
      Width: 100,
      Height: 100,
      AoiActivationCount: 3,
      LodLevel: 1,
      ForcedRoomStateSyncInterval: -1,
      PresenterInGroupCast: true,
      FetchCachedEventsDelay: 250
    }).done()
  )
  add(60300, 's2c', writeModel(new MpWriter(), 'CreateRoomResponseData', { RoomId: 1, RoomName: 'Arena', ResponseCode: 0 }).done())
  add(
    60301,
    's2c',
    writeModel(
      new MpWriter(),
      'RoomJoinOperationData',
      { RoomId: 7, TeamId: 0, Password: null, UserName: 'u' },
      {
        extraMembers: (w) => (w.prim('byte', 0).string('tok').string('Lobby'), 3)
      }
    ).done()
  )
  add(
    60305,
    's2c',
    writeModel(new MpWriter(), 'RoomReJoinOperationData', {
      RoomId: 1,
      TeamId: 2,
      Password: '',
      IsRejoin: true,
      RoomAuthToken: 'tok',
      PeerId: 5,
      ResponseCode: 0,
      RoomName: 'R'
    }).done()
  )
  add(
    60406,
    's2c',
    writeModel(new MpWriter(), 'RoomEventData', { RoomId: 3, EventId: 7, DeliveryMethod: 1, Tag: 2, IsCached: true, UniqueId: 5, Data: [1, 2, 3, 4] }).done()
  )
  add(60404, 'c2s', writeModel(new MpWriter(), 'InstantiateOperationData', { RoomId: 1, EntityId: 3, EntityType: 0, TransLite: transLite(0x323) }).done())
  add(
    60404,
    's2c',
    writeModel(
      new MpWriter(),
      'InstantiateOperationResponseData',
      { RoomId: 1, OwnerId: 2, NetworkId: 3, EntityId: 4, EntityType: 1 },
      {
        extraMembers: (w) => (w.header(1).string('hp'), 1)
      }
    ).done()
  )
  const update = { RoomId: 1, EntityNetId: 2, EntityType: 0, TransLite: transLite(0x23) }
  add(60413, 'c2s', writeModel(new MpWriter(), 'EntityUpdateOperationData', update).done())
  add(60413, 's2c', writeModel(new MpWriter(), 'EntityUpdateResponseOperationData', { EntitiesUpdate: [update, update] }).done())
  const state = {
    RoomId: 1,
    NetworkId: 2,
    EntityType: 2,
    State: {
      DeliveryMethod: 1,
      Delta: [
        { Key: 1, Data: [9, 9] },
        { Key: 2, Data: null }
      ],
      SequenceNumber: 3
    }
  }
  add(60402, 'c2s', writeModel(new MpWriter(), 'EntityStateChangeOperationData', state).done())
  add(60402, 's2c', writeModel(new MpWriter(), 'EntityStateChangeResponseOperationData', { StatesBatch: [state, null, state] }).done())
  add(60407, 's2c', writeModel(new MpWriter(), 'RequestOwnershipOperationData', { RoomId: 1, IsLocked: true, EntityNetId: 2, EntityType: 0 }).done())
  add(60408, 'c2s', writeModel(new MpWriter(), 'ClearOwnershipData', { RoomId: 1, EntityNetId: 2 }).done())
  add(60304, 'c2s', new MpWriter().header(2).string('app-key').prim('bool', true).done())
  add(60500, 'c2s', new MpWriter().header(3).string('move').bytes([1, 2, 3, 4, 5, 6]).string(null).done())
  add(
    60302,
    's2c',
    Uint8Array.from(
      msgpack({
        t: 'arr',
        v: [
          {
            t: 'arr',
            v: [
              { t: 'str', v: 'Arena' },
              { t: 'uint', v: 3 }
            ]
          }
        ]
      })
    )
  )
  return out
}

const FULLY_TYPED = new Set([
  '60300 c2s',
  '60300 s2c',
  '60305 s2c',
  '60406 s2c',
  '60404 c2s',
  '60413 c2s',
  '60413 s2c',
  '60402 c2s',
  '60402 s2c',
  '60407 s2c',
  '60408 c2s'
])

function checkResult(d: ReturnType<typeof decode>, len: number, what: string): void {
  const { res, roots, buf } = d
  expect(typeof res.summary, what).toBe('string')
  if (res.error) {
    expect(res.error.offset, `${what}: ${res.error.message}`).toBeGreaterThanOrEqual(PREFIX)
    expect(res.error.offset, `${what}: ${res.error.message}`).toBeLessThanOrEqual(PREFIX + len)
    expect(res.error.message, what).toMatch(/offset \d+/)
    expect(res.error.message, what).not.toMatch(/payload decoder failed/)
  }
  checkNesting(roots, buf)
}

describe('malformed FigNet payloads never throw', () => {
  it('the samples decode cleanly', () => {
    for (const s of samples()) {
      const d = decode(s.bytes, s.id, s.dir)
      expect(d.res.error, `${s.id} ${s.dir}: ${d.res.error?.message}`).toBeUndefined()
      expect(d.res.codec, `${s.id}`).not.toBe('raw')
    }
  })

  it('every truncation of every sample: an error or warning with an offset, the fields read so far, a closed tree', () => {
    for (const s of samples()) {
      let fieldsRead = 0
      for (let cut = 0; cut < s.bytes.length; cut++) {
        const part = s.bytes.subarray(0, cut)
        for (const recording of [true, false]) {
          const d = decode(part, s.id, s.dir, recording)
          // The fields read before the failure are kept: more bytes never give fewer fields.
          const n = d.res.payload ? Object.keys(d.res.payload).length : 0
          if (FULLY_TYPED.has(`${s.id} ${s.dir}`)) expect(n, `${s.id} ${s.dir} cut ${cut}`).toBeGreaterThanOrEqual(fieldsRead)
          fieldsRead = n
          checkResult(d, cut, `${s.id} ${s.dir} cut ${cut}`)
          // A cut payload of a fully typed model never passes as complete (members without a schema can:
          // any shorter byte run may split into the same number of members).
          if (FULLY_TYPED.has(`${s.id} ${s.dir}`) && cut > 0)
            expect(d.res.error ?? d.res.warnings[0], `${s.id} cut ${cut} ${d.res.codec} ${d.res.summary}`).toBeDefined()
        }
      }
      if (FULLY_TYPED.has(`${s.id} ${s.dir}`) && s.id !== 60413 && s.id !== 60402) expect(fieldsRead, `${s.id} ${s.dir}`).toBeGreaterThan(0)
    }
  })

  it('bit flips and byte stomps', () => {
    const rand = rng(4242)
    const base = samples()
    for (let i = 0; i < 3000; i++) {
      const s = base[i % base.length]
      const p = s.bytes.slice()
      const n = 1 + Math.floor(rand() * 4)
      for (let k = 0; k < n; k++) {
        const at = Math.floor(rand() * p.length)
        if (rand() < 0.5) p[at] ^= 1 << Math.floor(rand() * 8)
        else p[at] = [0x00, 0xff, 0x7f, 0x80, 0xfa][Math.floor(rand() * 5)]
      }
      checkResult(decode(p, s.id, s.dir, rand() < 0.5), p.length, `${s.id} mutation ${i}`)
    }
  })

  it('random garbage for every message id and direction', () => {
    const rand = rng(1337)
    const ids = [...allMessages().map((m) => m.id), 0, 1, 59999, 65535]
    for (const id of ids) {
      for (const dir of ['c2s', 's2c', null] as const) {
        for (let i = 0; i < 12; i++) {
          const p = Uint8Array.from({ length: Math.floor(rand() * 64) }, () => Math.floor(rand() * 256))
          checkResult(decode(p, id, dir, i % 2 === 0), p.length, `${id} ${dir} garbage ${i}`)
        }
      }
    }
  })

  it('huge counts and lengths fail fast without allocating', () => {
    const before = process.memoryUsage()
    const t0 = performance.now()
    const cases: [number, Uint8Array][] = [
      [60413, new MpWriter().header(1).i32(0x7fffffff).done()],
      [
        60413,
        new MpWriter()
          .header(1)
          .i32(-(2 ** 31))
          .done()
      ],
      [60402, new MpWriter().header(1).i32(1).header(4).prim('uint', 1).prim('uint', 2).prim('byte', 0).header(3).prim('byte', 1).i32(0x7ffffff0).done()],
      [60406, new MpWriter().header(7).prim('uint', 1).raw([1, 1, 1, 1]).prim('uint', 1).i32(0x7fffffff).done()],
      [
        60300,
        new MpWriter()
          .header(11)
          .i32(-(2 ** 31))
          .i32(5)
          .raw([65])
          .done()
      ],
      [60300, new MpWriter().header(11).i32(0x7fffffff).done()],
      [60500, new MpWriter().header(249).raw(new Array(300).fill(0)).done()],
      [60302, Uint8Array.from([0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0])],
      [60302, Uint8Array.from([0xdf, 0x7f, 0xff, 0xff, 0xff, 0xc0, 0xc0])]
    ]
    for (const [id, p] of cases) {
      for (const dir of ['c2s', 's2c', null] as const) {
        const d = decode(p, id, dir)
        checkResult(d, p.length, `${id} huge`)
      }
    }
    expect(performance.now() - t0).toBeLessThan(2000)
    expect(process.memoryUsage().arrayBuffers - before.arrayBuffers).toBeLessThan(32 * 1024 * 1024)
  })

  it('deep MessagePack nesting in a payload is capped (no stack overflow)', () => {
    const deep = Uint8Array.from([...new Array(100_000).fill(0x91), 0xc0])
    const d = decode(deep, 60300, 'c2s')
    expect(d.res.codec).toBe('raw')
    expect(d.res.notes.join(' ')).toMatch(/nesting deeper than 32/)
    checkResult(d, deep.length, 'deep')
  })

  it('generic guessing on a hostile 4 KB payload stays fast', () => {
    // Overlapping UTF-8 string headers at every position, many members.
    const w = new MpWriter().header(60)
    while (w.length < 4000) w.i32(~8).i32(8).raw([0x61, 0x61, 0x61, 0x61, 0xfe, 0xff, 0xff, 0xff])
    const p = w.done()
    const t0 = performance.now()
    for (const dir of ['c2s', 's2c', null] as const) checkResult(decode(p, 60500, dir), p.length, 'hostile generic')
    expect(performance.now() - t0).toBeLessThan(3000)
  })
})

// `entangle` is answered from the index: without a tree, the decoder keeps that a payload has an Entangle
// model field. Exact only if every reading that puts an entangle.* node in the tree marks it without one
// too, on the failure paths as well (a field begun and cut off still shows in the tree).
describe("Entangle presence without a tree equals the tree's", () => {
  const inTree = (roots: Parameters<typeof walk>[0]) => {
    let found = false
    walk(roots, (n) => {
      if (n.key.startsWith('entangle.')) found = true
    })
    return found
  }
  const compare = (bytes: Uint8Array, id: number, dir: 'c2s' | 's2c' | null, what: string) => {
    const want = inTree(decode(bytes, id, dir, true).roots)
    const got = decode(bytes, id, dir, false).indexed?.keys.includes('has:entangle') ?? false
    expect(got, what).toBe(want)
    return want
  }

  it('for every sample, every truncation of it and 3,000 mutations', () => {
    let present = 0
    let compared = 0
    const base = samples()
    for (const s of base) {
      for (let cut = 0; cut <= s.bytes.length; cut++) {
        if (compare(s.bytes.subarray(0, cut), s.id, s.dir, `${s.id} ${s.dir} cut ${cut}`)) present++
        compared++
      }
    }
    const rand = rng(99)
    for (let i = 0; i < 3000; i++) {
      const s = base[i % base.length]
      const p = s.bytes.slice()
      for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) p[Math.floor(rand() * p.length)] ^= 1 << Math.floor(rand() * 8)
      if (compare(p, s.id, rand() < 0.2 ? null : s.dir, `${s.id} mutation ${i}`)) present++
      compared++
    }
    // Both answers occur often: the comparison is not one-sided.
    expect(present).toBeGreaterThan(compared / 4)
    expect(compared - present).toBeGreaterThan(compared / 10)
  })

  it('an AppKey payload and a MessagePack model have it, through the members named and the slots', () => {
    const appKey = samples().find((s) => s.id === 60304)!
    expect(compare(appKey.bytes, appKey.id, appKey.dir, 'AppKey')).toBe(true)
    // MessagePack-CSharp writes a model as the array of its fields: the elements take the schema's keys.
    const response = Uint8Array.from(
      msgpack({
        t: 'arr',
        v: [
          { t: 'uint', v: 1 },
          { t: 'str', v: 'Arena' },
          { t: 'uint', v: 0 }
        ]
      })
    )
    // A string is a group (format byte, then the text): here the only field of the model.
    const request = Uint8Array.from(msgpack({ t: 'arr', v: [{ t: 'str', v: 'Arena' }] }))
    for (const [bytes, dir] of [
      [response, 's2c'],
      [request, 'c2s']
    ] as const) {
      expect(decode(bytes, 60300, dir).res.codec).toBe('MessagePack')
      expect(compare(bytes, 60300, dir, `MessagePack ${dir}`)).toBe(true)
      for (let cut = 0; cut < bytes.length; cut++) compare(bytes.subarray(0, cut), 60300, dir, `MessagePack ${dir} cut ${cut}`)
    }
  })
})
