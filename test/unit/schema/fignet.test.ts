// A schema pack's FigNet message ids over WebSocket to /FigNet, payloads written with the FigNet test
// encoders (MpWriter for MemoryPack, BitWriter for NetStack BitBuffer): the pack's name, its fields as
// `fignet.field.<name>` on their bytes, and filters on them.
import { beforeEach, describe, expect, it } from 'vitest'
import { resetFrames, tcpFrame, SYN, ACK, PSH } from '../helpers/frames'
import { checkRanges, find, rangeBytes } from '../helpers/decode'
import { upgradeRequest, upgradeResponse, wsFrame } from '../helpers/websocket'
import { BitWriter, MpWriter } from '../protocols/fignet/encoders'
import { registerSchemaFields } from '../../../src-shared/schema/set'
import { runWithPacks } from './helpers'

const PACK = {
  format: 'gamewire-schema/1',
  name: 'FigNet test game',
  fignet: {
    messages: [
      {
        id: 61001,
        name: 'PlayerMove',
        codec: 'MemoryPack',
        fields: [
          { name: 'playerId', type: 'uint' },
          { name: 'x', type: 'float' },
          { name: 'nick', type: 'string' }
        ]
      },
      {
        id: 61002,
        name: 'Emote',
        codec: 'BitBuffer',
        fields: [
          { name: 'emote', type: 'byte' },
          { name: 'loud', type: 'bool' }
        ]
      }
    ]
  }
}

const envelope = (msgId: number, payload: Uint8Array) => Uint8Array.from([msgId & 0xff, msgId >> 8, 0, ...payload])
const MOVE = (id: number) => new MpWriter().header(3).prim('uint', id).prim('float', 1.5).string('bob').done()
const EMOTE = new BitWriter().byte(4).bool(true).toBytes()

function frames() {
  resetFrames()
  const [C, S, P] = ['10.0.0.1', '10.0.0.2', 8085]
  const req = upgradeRequest('/FigNet', '', 'FigNet')
  const res = upgradeResponse('', 'FigNet')
  let seq = 1001 + req.length
  const out = [
    tcpFrame(C, 40000, S, P, 1000, SYN),
    tcpFrame(S, P, C, 40000, 5000, SYN | ACK),
    tcpFrame(C, 40000, S, P, 1001, PSH | ACK, req),
    tcpFrame(S, P, C, 40000, 5001, PSH | ACK, res)
  ]
  for (const m of [envelope(61001, MOVE(9)), envelope(61001, MOVE(12)), envelope(61002, EMOTE)]) {
    const f = wsFrame(m, { mask: true })
    out.push(tcpFrame(C, 40000, S, P, seq, PSH | ACK, f))
    seq += f.length
  }
  return out
}

beforeEach(() => registerSchemaFields([]))

describe('FigNet with a schema pack', () => {
  it('names message ids and reads their MemoryPack and BitBuffer layouts', () => {
    const ms = runWithPacks(frames(), [PACK]).filter((m) => m.protocol === 'fignet')
    expect(ms.map((m) => m.summary)).toEqual(['PlayerMove playerId=9 x=1.5 nick="bob"', 'PlayerMove playerId=12 x=1.5 nick="bob"', 'Emote emote=4 loud=true'])
    expect(ms.map((m) => m.error)).toEqual([null, null, null])
    const id = find(ms[0].tree, 'fignet.field.playerId')
    expect(id.value).toBe(9)
    expect(rangeBytes(ms[0].sources, id)).toEqual(Uint8Array.from([9, 0, 0, 0]))
    expect(rangeBytes(ms[0].sources, find(ms[0].tree, 'fignet.field.x'))).toEqual(Uint8Array.from([0, 0, 0xc0, 0x3f]))
    expect(find(ms[2].tree, 'fignet.field.emote').value).toBe(4)
    expect(find(ms[0].tree, 'fignet.payload.model').value).toBe('PlayerMove')
    for (const m of ms) checkRanges(m)
  })

  it('filters on the named fields and ids, and without the pack the ids are unnamed', () => {
    expect(runWithPacks(frames(), [PACK], { filter: 'fignet.field.playerId == 12' }).map((m) => m.summary)).toEqual(['PlayerMove playerId=12 x=1.5 nick="bob"'])
    expect(runWithPacks(frames(), [PACK], { filter: 'fignet.msg_id == Emote' }).map((m) => m.name)).toEqual(['Emote'])
    const plain = runWithPacks(frames(), []).filter((m) => m.protocol === 'fignet')
    expect(plain.map((m) => m.name)).not.toContain('PlayerMove')
    const index = runWithPacks(frames(), [PACK], { recording: false }).filter((m) => m.protocol === 'fignet')
    expect(index.map((m) => m.summary)).toEqual(
      runWithPacks(frames(), [PACK])
        .filter((m) => m.protocol === 'fignet')
        .map((m) => m.summary)
    )
  })
})
