// A schema pack applied to Photon traffic built with the tests' own encoders (gp-encoder.ts,
// udp-encoder.ts): names by code and by the parameter that carries the real code, parameter names in name,
// summary, tree and filter, custom type layouts and nested byte[] values with their byte ranges, applicability
// by port, and the same names and index values without trees.
import { beforeEach, describe, expect, it } from 'vitest'
import { resetFrames, udpFrame } from '../helpers/frames'
import { checkRanges, find, findAll, rangeBytes } from '../helpers/decode'
import { cmd, command, datagram, initMessage, T } from '../protocols/photon/udp-encoder'
import { eventBody, requestBody, responseBody, pv, valueBytes } from '../protocols/photon/gp-encoder'
import { compileFilter, FilterError } from '../../../src-shared/filter'
import { registerSchemaFields } from '../../../src-shared/schema/set'
import type { DecodedMessage } from '../../../src-shared/model/types'
import { runWithPacks } from './helpers'

const C = '10.0.0.1'
const S = '10.0.0.2'

const PACK = {
  format: 'gamewire-schema/1',
  name: 'Test game',
  photon: {
    parameters: { '10': 'playerId' },
    operations: [
      { code: 1, codeParameter: 253, wireCode: 1, name: 'Move', parameters: { '0': 'position', '1': 'itemId' } },
      { code: 2, codeParameter: 253, wireCode: 1, name: 'PickUp', parameters: { '1': 'itemId', '5': { name: 'loot', nested: { format: 'protocol18' } } } },
      {
        code: 30,
        name: 'Chat',
        parameters: {
          '0': 'text',
          '7': {
            name: 'pos',
            nested: {
              format: 'struct',
              endian: 'little',
              fields: [
                { name: 'x', type: 'f32' },
                { name: 'y', type: 'i16' }
              ]
            }
          }
        }
      }
    ],
    events: [{ code: 22, name: 'ItemDropped', parameters: { '1': 'itemId', '2': 'where' } }],
    customTypes: [
      {
        code: 88,
        name: 'Cell',
        fields: [
          { name: 'row', type: 'i16' },
          { name: 'col', type: 'u16' }
        ]
      }
    ]
  }
}

const LOOT = pv.hash([pv.byte(1), pv.str('sword')], [pv.byte(2), pv.int(300)])
const CELL = pv.custom(88, [0xff, 0xfe, 0x01, 0x02]) // row -2, col 258 (big-endian)
const POS = Uint8Array.from([0x00, 0x00, 0x20, 0x41, 0xfb, 0xff]) // x 10.0 (f32 LE), y -5 (i16 LE)

/** The scripted session: which message carries which itemId is what the filter must find. */
function frames(serverPort = 5056) {
  resetFrames()
  const c2s = (b: Uint8Array) => udpFrame(C, 50123, S, serverPort, b)
  const s2c = (b: Uint8Array) => udpFrame(S, serverPort, C, 50123, b)
  const msg = (type: number, body: Uint8Array) => Uint8Array.from([0xf3, type, ...body])
  let seq = 1
  const rel = (m: Uint8Array) => command({ type: T.SEND_RELIABLE, channel: 0, seq: ++seq, body: m })
  const dg = (...commands: Uint8Array[]) => datagram({ peerId: 7, commands, sentTime: 1000, challenge: 0x1234 }).bytes
  return [
    c2s(dg(command({ type: T.CONNECT, channel: 255, seq: 1, body: new Uint8Array(32) }))),
    s2c(dg(cmd.ack(255, 1, 1000), command({ type: T.VERIFYCONNECT, channel: 255, seq: 1, body: Uint8Array.from([0, 7, ...new Uint8Array(30)]) }))),
    c2s(dg(command({ type: T.SEND_RELIABLE, channel: 0, seq: 1, body: initMessage(8) }))),
    // Move: operation 1 whose parameter 253 carries the real code 1; itemId 5.
    c2s(
      dg(
        rel(
          msg(
            2,
            requestBody(18, 1, [
              [253, pv.short(1)],
              [1, pv.int(5)],
              [0, pv.floats([1, 2])]
            ])
          )
        )
      )
    ),
    // PickUp: operation 1 with 253 = 2; itemId 7; loot a Protocol18 Hashtable in a byte[].
    c2s(
      dg(
        rel(
          msg(
            2,
            requestBody(18, 1, [
              [1, pv.int(7)],
              [5, pv.bytes(valueBytes(18, LOOT))],
              [253, pv.short(2)]
            ])
          )
        )
      )
    ),
    s2c(dg(rel(msg(3, responseBody(18, 1, 0, pv.null(), [[253, pv.short(1)]]))))),
    // ItemDropped event, itemId 5, where = a pack custom type; playerId named globally.
    s2c(
      dg(
        rel(
          msg(
            4,
            eventBody(18, 22, [
              [1, pv.int(5)],
              [2, CELL],
              [10, pv.int(42)]
            ])
          )
        )
      )
    ),
    // Chat by wire code, with a struct in a byte[]; and an event the pack does not name.
    c2s(
      dg(
        rel(
          msg(
            2,
            requestBody(18, 30, [
              [0, pv.str('hi')],
              [7, pv.bytes(POS)]
            ])
          )
        )
      )
    ),
    s2c(
      dg(
        rel(
          msg(
            4,
            eventBody(18, 99, [
              [1, pv.int(5)],
              [10, pv.int(3)]
            ])
          )
        )
      )
    )
  ]
}

const photon = (ms: DecodedMessage[]) =>
  ms.filter((m) => m.protocol === 'photon' && /Operation|Event|Move|PickUp|Chat|Item/.test(m.name + m.summary) && !/Init/.test(m.name))

beforeEach(() => registerSchemaFields([]))

describe('Photon with a schema pack', () => {
  it('names messages by code and by the parameter that carries the real code', () => {
    const ms = photon(runWithPacks(frames(), [PACK]))
    expect(ms.map((m) => m.name)).toEqual(['Move', 'PickUp', 'Move response', 'ItemDropped event', 'Chat', 'Event 99'])
    expect(ms.map((m) => m.summary)).toEqual([
      'Move itemId=5 position=[1, 2]',
      'PickUp itemId=7 loot=16 bytes: 15020301070573776f726403020d2c01',
      'Move response rc=0 (Ok)',
      'ItemDropped event itemId=5 where={row: -2, col: 258} playerId=42',
      'Chat text="hi" pos=6 bytes: 00002041fbff',
      // Not in the pack: only the global name applies (parameter 1 is named per message).
      'Event 99 playerId=3'
    ])
    const move = ms[0].value as Record<string, unknown>
    expect(move.codeName).toBe('Move')
    expect(move.schemaCode).toBe(1)
    expect(move.code).toBe(1)
    // schema.name / schema.code fields, with their ranges: the code byte and the carrying parameter.
    const name = find(ms[0].tree, 'schema.name')
    expect(name.value).toBe('Move')
    expect(rangeBytes(ms[0].sources, name)).toEqual(Uint8Array.from([1]))
    const code = find(ms[1].tree, 'schema.code')
    expect(code.value).toBe(2)
    expect(rangeBytes(ms[1].sources, code)).toEqual(Uint8Array.from([253, 0x04, 2, 0])) // key, Int16 type (P18 0x04), 2 LE
    for (const m of ms) checkRanges(m)
  })

  it('labels parameter nodes with their names and lets filters use them beside the codes', () => {
    const ms = photon(runWithPacks(frames(), [PACK]))
    const item = find(ms[0].tree, 'photon.param.1')
    expect(item.label).toBe('itemId (1): Int32 (Int1) 5')
    expect(item.alias).toBe('photon.param.itemId')
    expect(find(ms[3].tree, 'photon.param.10').label).toMatch(/^playerId \(10\): /)
    for (const expr of ['photon.param.itemId == 5', 'photon.param.1 == 5 && photon.param.itemId']) {
      const got = runWithPacks(frames(), [PACK], { filter: expr }).map((m) => m.name)
      expect({ expr, got }).toEqual({ expr, got: ['Move', 'ItemDropped event'] })
    }
    expect(runWithPacks(frames(), [PACK], { filter: 'photon.param.itemId == 7' }).map((m) => m.name)).toEqual(['PickUp'])
    // Pack names for codes are filter values; schema.name is an index field.
    expect(runWithPacks(frames(), [PACK], { filter: 'photon.ev.code == ItemDropped' }).map((m) => m.name)).toEqual(['ItemDropped event'])
    expect(runWithPacks(frames(), [PACK], { filter: 'schema.code == PickUp' }).map((m) => m.name)).toEqual(['PickUp'])
    expect(runWithPacks(frames(), [PACK], { filter: 'schema.name == "Move"' }).map((m) => m.name)).toEqual(['Move', 'Move response'])
  })

  it('without the pack the named field is unknown to filters and nothing is renamed', () => {
    const ms = photon(runWithPacks(frames(), []))
    expect(ms.map((m) => m.name)).toEqual(['Operation 1', 'Operation 1', 'Operation 1 response', 'Event 22', 'Operation 30', 'Event 99'])
    expect(() => compileFilter('photon.param.itemId == 5')).toThrow(FilterError)
    expect(findAll(ms[0].tree, 'schema.name')).toEqual([])
  })

  it('decodes a custom type by its layout and nested byte[] values, every field on its bytes', () => {
    const ms = photon(runWithPacks(frames(), [PACK]))
    const ev = ms[3]
    const row = find(ev.tree, 'photon.param.2.row')
    const col = find(ev.tree, 'photon.param.2.col')
    expect([row.value, col.value]).toEqual([-2, 258])
    expect(rangeBytes(ev.sources, row)).toEqual(Uint8Array.from([0xff, 0xfe]))
    expect(rangeBytes(ev.sources, col)).toEqual(Uint8Array.from([0x01, 0x02]))
    expect(find(ev.tree, 'photon.param.2').label).toBe("where (2): Custom 'X' (88) (slim) Cell {row: -2, col: 258}")
    const where = (ev.value as { parameters: Map<string, { name?: string; decoded?: unknown }> }).parameters.get('2')!
    expect(where.name).toBe('Cell')
    expect(where.decoded).toEqual({ row: -2, col: 258 })

    // Protocol18 Hashtable inside PickUp's byte[] parameter 5: entries keyed under the parameter.
    const pick = ms[1]
    const sword = find(pick.tree, 'photon.param.5.nested.1')
    expect(sword.value).toBe('sword')
    const encoded = valueBytes(18, LOOT)
    const nestedNode = find(pick.tree, 'photon.param.5.nested')
    expect(rangeBytes(pick.sources, nestedNode)).toEqual(encoded)
    expect(find(pick.tree, 'photon.param.5.nested.2').value).toBe(300)
    const loot = (pick.value as { parameters: Map<string, { nested?: { type: string } }> }).parameters.get('5')!
    expect(loot.nested?.type).toBe('Hashtable')

    // A little-endian struct in Chat's parameter 7.
    const chat = ms[4]
    const x = find(chat.tree, 'photon.param.7.x')
    const y = find(chat.tree, 'photon.param.7.y')
    expect([x.value, y.value]).toEqual([10, -5])
    expect(rangeBytes(chat.sources, x)).toEqual(POS.subarray(0, 4))
    expect(rangeBytes(chat.sources, y)).toEqual(POS.subarray(4, 6))
    for (const m of ms) checkRanges(m)
  })

  it('a nested value that does not parse is a warning, the message keeps its parameters', () => {
    const bad = structuredClone(PACK)
    ;(bad.photon.operations[2].parameters as Record<string, unknown>)['7'] = { name: 'pos', nested: { format: 'struct', fields: [{ name: 'x', type: 'f64' }] } }
    const chat = photon(runWithPacks(frames(), [bad]))[4]
    expect(chat.error).toBeNull()
    expect(chat.warnings.join('\n')).toMatch(/parameter pos \(7\): not a struct layout value/)
    expect(find(chat.tree, 'photon.param.7').value).toEqual(POS)
  })

  it('applies by port: a pack for another port leaves the conversation alone', () => {
    const onPort = { ...PACK, appliesTo: { ports: [5056] } }
    expect(photon(runWithPacks(frames(5056), [onPort]))[0].name).toBe('Move')
    expect(photon(runWithPacks(frames(5055), [onPort]))[0].name).toBe('Operation 1')
    expect(photon(runWithPacks(frames(5055), [{ ...PACK, appliesTo: { hosts: [S] } }]))[0].name).toBe('Move')
  })

  it('gives the same names, summaries, values and index fields without trees', () => {
    const full = photon(runWithPacks(frames(), [PACK]))
    const index = photon(runWithPacks(frames(), [PACK], { recording: false }))
    expect(index.map((m) => [m.name, m.summary])).toEqual(full.map((m) => [m.name, m.summary]))
    const ix = (m: DecodedMessage, key: string) => {
      const i = m.indexed
      return i ? i.values.filter((_, k) => i.keys[k] === key) : []
    }
    for (let i = 0; i < full.length; i++) {
      for (const key of ['schema.name', 'schema.code', 'photon.op.code', 'photon.ev.code']) {
        expect({ i, key, v: ix(index[i], key) }).toEqual({ i, key, v: findAll(full[i].tree, key).map((n) => n.value) })
      }
    }
    expect(ix(index[1], 'schema.code')).toEqual([2])
  })
})
