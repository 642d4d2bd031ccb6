// FigNet against its porting guide's rules as docs/fignet.md records them, each case a small ENet session built with the test ENet
// encoder (vanilla ENet: CONNECT, VERIFY_CONNECT, then one reliable send per FigNet message) and the
// test's own FigNet/BitBuffer/MemoryPack encoders: the EnableCheckSum magic as it is on the wire, the prefix
// form decided from evidence across messages, an encrypted RegisterIdentity counted as the registration,
// the byte-wide ConfigFlags of older TransformLite, RequestOwnership's two field orders,
// NetworkedObjectBinary.Data as MemoryPack, and AppKey's fields and handshake order.
import { describe, it, expect, beforeEach } from 'vitest'
import { checkRanges, find, findAll, rangeBytes, runEngine } from '../../helpers/decode'
import { resetFrames, udpFrame } from '../../helpers/frames'
import { messageText } from '../../../../src-shared/export/json'
import type { CaptureFrame } from '../../../../src-shared/capture/types'
import type { DecodedMessage } from '../../../../src-shared/model/types'
import { connect, datagram, reliable, verifyConnect } from '../enet/encoder'
import { BitWriter, MpWriter, packTransform, writeModel } from './encoders'
import { checkLeaves, checkNesting, decode, plain } from './helpers'

const C = '10.0.0.1'
const S = '10.0.0.2'
const START = 1_700_000_000

/** The FigNet envelope: optional prefix, u16 LE message id, flags (bit 7 encrypted, bits 0–6 callback id). */
function env(msgId: number, callbackId: number, payload: ArrayLike<number>, o: { encrypted?: boolean; prefix?: number[] } = {}): Uint8Array {
  return Uint8Array.from([...(o.prefix ?? []), msgId & 0xff, msgId >> 8, (o.encrypted ? 0x80 : 0) | callbackId, ...Array.from(payload)])
}

/** RegisterIdentityModel in NetStack BitBuffer form. */
function registerIdentity(peerType: number, secret: string, app: string): Uint8Array {
  return new BitWriter().byte(peerType).string(secret).string(app).toBytes()
}

const PING = Uint8Array.from([0x01, 0x01]) // PingModel {peerType = Client} in BitBuffer form

function at(f: CaptureFrame, t: number): CaptureFrame {
  f.tsSec = Math.floor(t)
  f.tsNsec = Math.round((t % 1) * 1e9)
  return f
}

/** An ENet session: CONNECT at START, VERIFY_CONNECT, then each message as a reliable send on channel 0. */
function enetSession(msgs: { dir: 'c2s' | 's2c'; bytes: Uint8Array; after?: number }[]): CaptureFrame[] {
  const connectId = 0x5eed
  const c2s = (d: Uint8Array) => udpFrame(C, 50000, S, 17777, d)
  const s2c = (d: Uint8Array) => udpFrame(S, 17777, C, 50000, d)
  const frames = [
    at(c2s(datagram({ variant: 'vanilla', peerId: 0xfff, sentTime: 1 }, [connect({ connectId, channels: 4 })])), START),
    at(s2c(datagram({ variant: 'vanilla', peerId: 0, sentTime: 2 }, [verifyConnect({ connectId, channels: 4 })])), START + 0.01)
  ]
  const seq = { c2s: 1, s2c: 1 }
  msgs.forEach((m, i) => {
    const d = datagram({ variant: 'vanilla', peerId: 0, sentTime: 10 + i }, [reliable(0, seq[m.dir]++, m.bytes)])
    frames.push(at(m.dir === 'c2s' ? c2s(d) : s2c(d), START + (m.after ?? 0.1 * (i + 1))))
  })
  return frames
}

/** The FigNet messages (those with an envelope) of a run. */
const figs = (ms: DecodedMessage[]) => ms.filter((m) => (m.value as { msgId?: unknown }).msgId !== undefined)
const value = (m: DecodedMessage) => m.value as Record<string, unknown>

beforeEach(() => resetFrames())

describe('1. the EnableCheckSum magic', () => {
  it('is exported as the value on the wire; a wrong one is a warning naming the bytes and 0xC0DE', () => {
    const { messages } = runEngine(
      enetSession([
        { dir: 'c2s', bytes: env(60000, 1, registerIdentity(1, 'k', 'app'), { prefix: [0xde, 0xc0] }) },
        { dir: 's2c', bytes: env(60000, 1, registerIdentity(0, '', ''), { prefix: [0xef, 0xbe] }) }
      ])
    )
    const [req, reply] = figs(messages)
    expect(value(req).magic).toBe(0xc0de)
    expect(req.warnings.join('\n')).not.toMatch(/EnableCheckSum magic/)
    expect(find(req.tree, 'fignet.magic').label).toMatch(/0xC0DE \(EnableCheckSum magic\)/)

    expect(reply.name).toBe('RegisterIdentity response')
    expect(reply.error).toBeNull()
    expect(value(reply).magic).toBe(0xbeef)
    expect(JSON.parse(messageText(reply)).value.magic).toBe(48879)
    expect(reply.warnings).toContain(
      'EnableCheckSum magic: bytes EF BE (0xBEEF) seen, 0xC0DE (DE C0) expected; the providers drop messages whose magic does not match'
    )
    const magic = find(reply.tree, 'fignet.magic')
    expect(magic.value).toBe(0xbeef)
    expect([...rangeBytes(reply.sources, magic)]).toEqual([0xef, 0xbe])
    expect(magic.label).toMatch(/wrong: expected 0xC0DE/)
    for (const m of [req, reply]) checkRanges(m)
  })
})

describe('2. the prefix form, from evidence across messages', () => {
  it('a first message whose bytes 4–5 happen to form a registered id does not latch the 4-byte form', () => {
    const first = Uint8Array.from([0x01, 0x01, 0x00, 0x00, 0x60, 0xea, 0x01, 0x01])
    const { messages } = runEngine(
      enetSession([
        { dir: 'c2s', bytes: first },
        { dir: 'c2s', bytes: env(60000, 1, registerIdentity(1, 'secret', 'app')) },
        { dir: 's2c', bytes: env(60000, 1, registerIdentity(0, '', '')) },
        { dir: 'c2s', bytes: env(60002, 0, PING) }
      ])
    )
    const fn = figs(messages)
    expect(fn.map((m) => m.name)).toEqual(['Message 257', 'RegisterIdentity', 'RegisterIdentity response', 'Ping'])
    const form = find(fn[0].tree, 'fignet.prefix_form')
    expect(form.value).toBe('none')
    expect(form.label).toMatch(/the 4-byte prefix form would read message 60000, but it comes only from old v1\.0\.6 binaries/)
    expect(findAll(fn[0].tree, 'fignet.hash')).toHaveLength(0)
    expect(fn[1].summary).toBe('RegisterIdentity #1 peerType=Client app="app"')
    expect(fn[2].summary).toBe('RegisterIdentity response #1 peerType=Server app=""')
    expect(value(fn[3])).toMatchObject({ msgId: 60002, magic: null, payload: { peerType: { value: 1, name: 'Client' } } })
    for (const m of fn.slice(1)) {
      expect(m.error, m.summary).toBeNull()
      expect(find(m.tree, 'fignet.prefix_form').value).toBe('none')
      expect(m.warnings.join('\n')).not.toMatch(/4-byte prefix/)
    }
  })

  it('a 4-byte-prefixed conversation is read so while its messages support it, and revised when they stop', () => {
    const event = writeModel(new MpWriter(), 'RoomEventData', {
      RoomId: 12,
      EventId: 7,
      DeliveryMethod: 1,
      Tag: 2,
      IsCached: false,
      UniqueId: 0,
      Data: [1, 2]
    }).done()
    const { messages, conversations } = runEngine(
      enetSession([
        { dir: 'c2s', bytes: env(60000, 1, registerIdentity(1, 'k', 'old'), { prefix: [0x11, 0x22, 0x33, 0x44] }) },
        { dir: 's2c', bytes: env(60000, 1, registerIdentity(0, '', ''), { prefix: [0x55, 0x66, 0x77, 0x88] }) },
        { dir: 'c2s', bytes: env(60406, 0, event) }
      ])
    )
    const fn = figs(messages)
    expect(fn.map((m) => m.name)).toEqual(['RegisterIdentity', 'RegisterIdentity response', 'RoomEvent'])
    expect(find(fn[0].tree, 'fignet.hash').value).toBe(0x44332211)
    expect(find(fn[1].tree, 'fignet.hash').value).toBe(0x88776655)
    expect(fn[0].summary).toBe('RegisterIdentity #1 peerType=Client app="old"')
    expect(value(fn[2])).toMatchObject({ msgId: 60406, codec: 'MemoryPack', payload: { RoomId: { value: 12 }, EventId: { value: 7 } } })
    expect(findAll(fn[2].tree, 'fignet.hash')).toHaveLength(0)
    expect(find(fn[2].tree, 'fignet.prefix_form').label).toMatch(/revised from the 4-byte prefix/)
    expect(conversations[0].notes.join('\n')).toMatch(new RegExp(`FigNet prefix form revised from hash to none at frame ${fn[2].frames[0]}`))
    for (const m of fn) expect(m.error, m.summary).toBeNull()
  })

  it("after messages without a prefix, one message that reads better with 4 bytes is still read in the guide's form", () => {
    const { messages } = runEngine(
      enetSession([
        { dir: 'c2s', bytes: env(60000, 1, registerIdentity(1, 'k', 'a')) },
        { dir: 's2c', bytes: env(60000, 1, registerIdentity(0, '', '')) },
        { dir: 'c2s', bytes: env(60002, 0, PING, { prefix: [0xaa, 0xbb, 0xcc, 0xdd] }) }
      ])
    )
    const odd = figs(messages)[2]
    expect(odd.name).toBe(`Message ${0xbbaa}`)
    expect(find(odd.tree, 'fignet.prefix_form').label).toMatch(/1 message support it against 2 for the guide's forms/)
  })
})

describe('3. an encrypted RegisterIdentity', () => {
  it('counts as the registration: no "none was seen" note, and the 5-second check runs', () => {
    const sealed = Uint8Array.from({ length: 40 }, (_, i) => (i * 37 + 11) & 0xff)
    const late = runEngine(enetSession([{ dir: 'c2s', bytes: env(60000, 1, sealed, { encrypted: true }), after: 6.5 }]))
    const reg = figs(late.messages)[0]
    expect(reg.summary).toBe('RegisterIdentity #1 encrypted 40 bytes')
    expect(reg.warnings.join('\n')).toMatch(/the peer registered 6\.5 s after connecting/)
    expect(late.conversations[0].notes.join('\n')).not.toMatch(/no RegisterIdentity/)
    expect(late.conversations[0].notes.join('\n')).toMatch(/within about 5 s/)
    resetFrames()
    const inTime = runEngine(enetSession([{ dir: 'c2s', bytes: env(60000, 1, sealed, { encrypted: true }), after: 0.5 }]))
    expect(figs(inTime.messages)[0].warnings.join('\n')).not.toMatch(/after connecting/)
    expect(inTime.conversations[0].notes.join('\n')).not.toMatch(/RegisterIdentity|5 s/)
    resetFrames()
    // The control: without any RegisterIdentity the note is there.
    const none = runEngine(enetSession([{ dir: 'c2s', bytes: env(60002, 0, PING) }]))
    expect(none.conversations[0].notes.join('\n')).toMatch(/no RegisterIdentity \(60000\) was seen/)
  })
})

describe('4. TransformLite with the byte-wide ConfigFlags of older builds', () => {
  /** InstantiateOperationData with TransLite written by hand: ConfigFlags `width` bytes wide. */
  function instantiate(flags: number, width: 1 | 2, seq: number): { bytes: Uint8Array; expect: Record<string, number> } {
    const t = packTransform(flags, { x: 1.25, y: -2.5, z: 3.75, rot: [0, 0.5, 0, 0.866] })
    const w = new MpWriter().header(4).prim('uint', 7).prim('short', 3).prim('byte', 1)
    w.header(3)
      .bytes([...t.bytes])
      .prim(width === 1 ? 'byte' : 'ushort', flags)
      .prim('ushort', seq)
    return { bytes: w.done(), expect: t.expect }
  }

  it('is read one byte wide when the 2-byte reading does not fit and the 1-byte one does, with a tree note and a warning', () => {
    const old = instantiate(0x23, 1, 0x0102)
    const { messages } = runEngine(enetSession([{ dir: 'c2s', bytes: env(60404, 2, old.bytes) }]))
    const m = figs(messages)[0]
    expect(m.error).toBeNull()
    const tl = (value(m).payload as { TransLite: { value: Record<string, { type: string; value: unknown; width?: number }> } }).TransLite.value
    expect(tl.ConfigFlags).toMatchObject({ type: 'byte', value: 0x23, width: 1 })
    expect(tl.SequenceNumber).toMatchObject({ type: 'ushort', value: 0x0102 })
    const warning = 'byte-wide ConfigFlags (before the Advanced NetworkTransform change): the 2-byte reading does not fit, the 1-byte one does'
    expect(m.warnings).toContain(warning)
    const width = find(m.tree, 'entangle.config_flags.width')
    expect(width.value).toBe(1)
    expect(width.label).toContain(warning)
    const flags = find(m.tree, 'entangle.config_flags')
    expect([...rangeBytes(m.sources, flags)]).toEqual([0x23])
    expect(findAll(m.tree, 'entangle.config_flags.reserved')).toHaveLength(0)
    for (const [key, name] of [
      ['x', 'X'],
      ['y', 'Y'],
      ['z', 'Z'],
      ['rot_y', 'RotY'],
      ['rot_w', 'RotW']
    ]) {
      expect(find(m.tree, `entangle.transform.${key}`).value, key).toBe(old.expect[name])
    }
    checkRanges(m)
  })

  it('the current 2-byte form is unaffected, and a cut 2-byte payload is not taken for the old form', () => {
    const cur = instantiate(0x23, 2, 9)
    const d = decode(cur.bytes, 60404, 'c2s')
    expect(d.res.error).toBeUndefined()
    const trans = (d.res.payload as { TransLite: { value: Record<string, unknown> } }).TransLite.value
    expect(plain(trans.ConfigFlags)).toMatchObject({ type: 'ushort', value: 0x23 })
    expect(findAll(d.roots, 'entangle.config_flags.width')).toHaveLength(0)
    // Two updates, the second cut short: read one byte wide, the first would leave the second with an empty header.
    const tl = { TransformData: [...packTransform(0x23, { x: 1, y: 2, z: 3, rot: [0, 0, 0, 1] }).bytes], ConfigFlags: 0x23, SequenceNumber: 9 }
    const update = { RoomId: 1, EntityNetId: 2, EntityType: 0, TransLite: tl }
    const batch = writeModel(new MpWriter(), 'EntityUpdateResponseOperationData', { EntitiesUpdate: [update, update] }).done()
    for (let cut = 1; cut < batch.length; cut++) {
      const c = decode(batch.subarray(0, cut), 60413, 's2c')
      expect(c.res.warnings.join('\n'), `cut ${cut}`).not.toMatch(/byte-wide/)
    }
  })
})

describe("5. RequestOwnership's two field orders (§8.10)", () => {
  /** The broadcast table's order: RoomId, EntityNetId, IsLocked, EntityType. */
  const broadcast = (owner: number, entity: number, locked: boolean, type: number) =>
    new MpWriter().header(4).prim('uint', owner).prim('uint', entity).prim('bool', locked).prim('byte', type).done()

  it("a broadcast in the broadcast table's order is read in that order, and the tree says why", () => {
    const bytes = broadcast(5, 0x0304, true, 1)
    const { messages } = runEngine(
      enetSession([
        { dir: 'c2s', bytes: env(60000, 1, registerIdentity(1, 'k', 'a')) },
        { dir: 's2c', bytes: env(60407, 0, bytes) }
      ])
    )
    const m = figs(messages)[1]
    expect(m.error).toBeNull()
    expect(m.summary).toBe('RequestOwnerShip owner 5 entity 772 locked')
    expect(value(m).payload).toMatchObject({
      RoomId: { value: 5 },
      EntityNetId: { value: 772 },
      IsLocked: { value: true },
      EntityType: { value: 1, name: 'Agent' }
    })
    expect(Object.keys(value(m).payload as object)).toEqual(['RoomId', 'EntityNetId', 'IsLocked', 'EntityType'])
    expect(m.warnings.join('\n')).not.toMatch(/bool at/)
    const order = find(m.tree, 'entangle.field_order')
    expect(order.value).toBe('broadcast table (§8.10)')
    expect(order.label).toMatch(/RoomId, EntityNetId, IsLocked, EntityType/)
    expect(order.label).toMatch(/the request table \(§8\.10\) reading fails: bool at offset \d+ holds 4/)
    const d = decode(bytes, 60407, 's2c')
    expect(checkLeaves(d.roots, d.buf, 'le')).toBeGreaterThanOrEqual(4)
    checkNesting(d.roots, d.buf)
    expect(find(d.roots, 'entangle.entity_net_id').start).toBe(3 + 5)
  })

  it('where both orders validate, the first (the request table) is kept and the tree says so', () => {
    const req = writeModel(new MpWriter(), 'RequestOwnershipOperationData', { RoomId: 9, IsLocked: true, EntityNetId: 900, EntityType: 2 }).done()
    const d = decode(req, 60407, 'c2s')
    expect(d.res.summary).toBe('room 9 entity 900 lock')
    const order = find(d.roots, 'entangle.field_order')
    expect(order.value).toBe('request table (§8.10)')
    expect(order.label).toMatch(/every order validates equally/)
  })
})

describe('6. NetworkedObjectBinary.Data, AppKey and the handshake order', () => {
  it('Data is decoded as a MemoryPack union (RoomSeatsData) or object; neither stays bytes with the reason', () => {
    const union = new MpWriter().raw([0]).header(2).prim('uint', 7).string('A1').done()
    const object = new MpWriter().header(1).string('hp').done()
    const neither = Uint8Array.from([5, 1])
    const state = {
      RoomId: 1,
      NetworkId: 2,
      EntityType: 2,
      State: {
        DeliveryMethod: 1,
        Delta: [
          { Key: 1, Data: [...union] },
          { Key: 2, Data: [...object] },
          { Key: 3, Data: [...neither] }
        ],
        SequenceNumber: 3
      }
    }
    const bytes = writeModel(new MpWriter(), 'EntityStateChangeOperationData', state).done()
    const { messages } = runEngine(
      enetSession([
        { dir: 'c2s', bytes: env(60000, 1, registerIdentity(1, 'k', 'a')) },
        { dir: 'c2s', bytes: env(60402, 0, bytes) }
      ])
    )
    const m = figs(messages)[1]
    expect(m.error).toBeNull()
    const values = findAll(m.tree, 'entangle.data.value')
    expect(values.map((n) => n.label.split(':')[0].split(';')[0])).toEqual([
      'Data (MemoryPack union, tag 0, 2 members)',
      'Data (MemoryPack object, 1 member)',
      'Data (MemoryPack)'
    ])
    expect(values[0].label).toMatch(/only the union reading fits \(the server registers a union only for RoomSeatsData, §9\.2\)/)
    expect(values[2].label).toBe('Data (MemoryPack): neither one MemoryPack object nor a union of one; kept as bytes')
    expect(values[2].length).toBe(0)
    expect(find(m.tree, 'entangle.data.union_header').value).toBe(0)
    expect(find(m.tree, 'entangle.data.union_header').label).toMatch(/RoomSeatsData/)
    const members = findAll(values[0].children!, 'fignet.memorypack.member')
    expect(members.map((n) => n.value)).toEqual([7, 'A1'])
    expect(findAll(values[1].children!, 'fignet.memorypack.member').map((n) => n.value)).toEqual(['hp'])
    // Application bytes that do not decode are no fault of the message: the tree says so, not a warning.
    expect(m.warnings.join('\n')).not.toMatch(/NetworkedObjectBinary|Data/)
    // The typed value keeps the guide's fields: Data stays its bytes.
    const delta = (value(m).payload as { State: { value: { Delta: { value: { value: { Data: { value: Uint8Array } } }[] } } } }).State.value.Delta.value
    expect(delta.map((d) => plain(d.value.Data.value))).toEqual([union, object, neither].map((b) => plain(b)))
    checkRanges(m)
    const d = decode(bytes, 60402, 'c2s')
    checkNesting(d.roots, d.buf)
    expect(checkLeaves(d.roots, d.buf, 'le')).toBeGreaterThan(10)
  })

  it('AppKey and its IsSuccess reply have named fields; AppKey in order is not flagged', () => {
    const key = new MpWriter().header(1).string('my-app-key').done()
    const ok = new MpWriter().header(1).prim('bool', true).done()
    const { messages } = runEngine(
      enetSession([
        { dir: 'c2s', bytes: env(60000, 1, registerIdentity(1, 'k', 'a')) },
        { dir: 's2c', bytes: env(60000, 1, registerIdentity(0, '', '')) },
        { dir: 'c2s', bytes: env(60304, 2, key) },
        { dir: 's2c', bytes: env(60304, 2, ok) }
      ])
    )
    const [, , req, reply] = figs(messages)
    expect(req.summary).toBe('AppKey #2 key="my-app-key"')
    const k = find(req.tree, 'entangle.app_key')
    expect(k.value).toBe('my-app-key')
    expect(new TextDecoder().decode(rangeBytes(req.sources, k))).toBe('my-app-key')
    expect(reply.summary).toBe('AppKey response #2 IsSuccess=true')
    const s = find(reply.tree, 'entangle.is_success')
    expect(s.value).toBe(true)
    expect([...rangeBytes(reply.sources, s)]).toEqual([1])
    expect(value(reply)).toMatchObject({ responseTo: req.frames[0] })
    for (const m of [req, reply]) {
      expect(m.warnings.join('\n')).not.toMatch(/out-of-order/)
      expect(findAll(m.tree, 'fignet.handshake')).toHaveLength(0)
    }
  })

  for (const [what, before, pattern] of [
    ['before any RegisterIdentity', [], /AppKey \(60304\) before any RegisterIdentity \(60000\)/],
    [
      'before the RegisterIdentity reply',
      [{ dir: 'c2s', bytes: env(60000, 1, registerIdentity(1, 'k', 'a')) }],
      /AppKey \(60304\) before the RegisterIdentity \(60000\) reply/
    ],
    [
      'after a rejected RegisterIdentity',
      [
        { dir: 'c2s', bytes: env(60000, 1, registerIdentity(1, 'bad', 'a')) },
        { dir: 's2c', bytes: env(60000, 1, registerIdentity(0, 'invalid', 'wrong secret')) }
      ],
      /AppKey \(60304\) after a rejected RegisterIdentity \(60000\)/
    ]
  ] as const) {
    it(`flags an out-of-order handshake: AppKey ${what}`, () => {
      const { messages } = runEngine(enetSession([...before, { dir: 'c2s', bytes: env(60304, 2, new MpWriter().header(1).string('key').done()) }]))
      const appKey = figs(messages).find((m) => m.name === 'AppKey')!
      expect(appKey.warnings.join('\n')).toMatch(pattern)
      expect(appKey.warnings.join('\n')).toMatch(/out-of-order handshake: .*docs\/fignet\.md, guide §5/)
      expect(find(appKey.tree, 'fignet.handshake').value).toBe('out-of-order')
    })
  }
})
