// Every vector of test/fixtures/vectors/photon-public-vectors.json (taken from the public parsers' own tests)
// decodes to its `expect`. The vectors use a loose notation; `typedOf` maps it to the contract's typed
// values, and any notation it does not know fails the test (no vector is skipped silently).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it, expect } from 'vitest'
import { readEvent, readOperationRequest, readOperationResponse, readTypedValue, type GpVersion } from '../../../../src-shared/protocols/photon/gpbinary'
import type { PhotonEntry, PhotonParams, PhotonSlotType, PhotonValue } from '../../../../src-shared/protocols/photon/values'
import { jsonText } from '../../../../src-shared/export/json'
import { find, pv, run, unhex } from './gp-encoder'
import { cmd, datagram, initMessage, splitMessage } from './udp-encoder'
import { resetFrames, udpFrame } from '../../helpers/frames'
import { checkRanges, runEngine } from '../../helpers/decode'

interface Vector {
  source: string
  protocol: '16' | '18' | 'udp'
  hex: string
  expect: Record<string, any>
  note?: string
}

const VECTORS: Vector[] = JSON.parse(readFileSync(join(__dirname, '../../../fixtures/vectors/photon-public-vectors.json'), 'utf8'))

// ---- the notation adapter ----

/** Scalar tags used as `{"int32": 2}` and as type names ("int64", "bool"...). */
const TAGS: Record<string, (x: any) => PhotonValue> = {
  null: () => pv.null(),
  bool: (x) => pv.bool(x),
  byte: (x) => pv.byte(Number(x)),
  int16: (x) => pv.short(Number(x)),
  int32: (x) => pv.int(Number(x)),
  int64: (x) => pv.long(BigInt(x)),
  float: (x) => pv.float(Number(x)),
  double: (x) => pv.double(Number(x)),
  string: (x) => pv.str(x)
}

const TAG_TYPES: Record<string, PhotonSlotType> = {
  string: 'String',
  bool: 'Boolean',
  'byte[]': 'ByteArray',
  byte: 'Byte',
  int16: 'Int16',
  int32: 'Int32',
  int64: 'Int64',
  float: 'Float',
  double: 'Double'
}

/** A dictionary/hashtable key: `"\"a\""` a string, `"byte 255"` a tagged scalar, `"4"` an int32, else a bare string. */
function keyOf(k: string): PhotonValue {
  if (k.startsWith('"')) return pv.str(JSON.parse(k))
  const tagged = /^(\w+) (.+)$/.exec(k)
  if (tagged && TAGS[tagged[1]]) return TAGS[tagged[1]](tagged[2])
  if (/^-?\d+$/.test(k)) return pv.int(Number(k))
  return pv.str(k)
}

/** A loose value: `{"int32": 2}` (with an optional "via" note), a bare string/number/bool/null, or a plain object (a dictionary). */
function looseOf(x: unknown, elementType?: PhotonSlotType): PhotonValue {
  if (elementType === 'ByteArray') return pv.bytes(x as number[])
  if (elementType === 'Boolean') return pv.bool(x as boolean)
  if (x === null) return pv.null()
  if (typeof x === 'string') return pv.str(x)
  if (typeof x === 'boolean') return pv.bool(x)
  if (typeof x === 'number' && Number.isInteger(x)) return pv.int(x)
  if (typeof x === 'object' && !Array.isArray(x)) {
    const keys = Object.keys(x).filter((k) => k !== 'via')
    if (keys.length === 1 && TAGS[keys[0]]) return TAGS[keys[0]]((x as any)[keys[0]])
    const entries = Object.entries(x).map(([k, v]): [PhotonValue, PhotonValue] => [keyOf(k), looseOf(v)])
    const same = (vs: PhotonValue[]): PhotonSlotType => (vs.length && vs.every((v) => v.type === vs[0].type) ? (vs[0].type as PhotonSlotType) : 'Object')
    return pv.dict(same(entries.map((e) => e[0])), same(entries.map((e) => e[1])), ...entries)
  }
  throw new Error(`unknown loose value ${JSON.stringify(x)}`)
}

function paramsOf(ps: Record<string, unknown>): PhotonParams {
  return new Map(Object.entries(ps).map(([k, v]) => [k, looseOf(v)]))
}

type Expected =
  | { kind: 'value'; value: PhotonValue }
  | { kind: 'event' | 'request'; value: { code: number; parameters: PhotonParams } }
  | { kind: 'response'; value: { code: number; returnCode: number; debugMessage: PhotonValue; parameters: PhotonParams } }

/** The typed value (or message body) a vector's `expect` describes. */
function typedOf(e: Record<string, any>): Expected {
  const type: string = e.type
  const array = /^Array\(y\) of (.+)$/.exec(type)
  if (array) {
    const elementType = TAG_TYPES[array[1]]
    if (!elementType) throw new Error(`unknown element notation ${array[1]}`)
    return { kind: 'value', value: pv.arr(elementType, ...e.value.map((x: unknown) => looseOf(x, elementType))) }
  }
  // "int32 Int1", "int64 L2", "int32 CompressedInt (zigzag varint)": the logical type comes first
  const scalar = /^(\w+)(?: .*)?$/.exec(type)
  if (scalar && TAGS[scalar[1]]) return { kind: 'value', value: TAGS[scalar[1]](e.value) }
  switch (type) {
    case 'Hashtable':
      return { kind: 'value', value: pv.hash(...Object.entries(e.value).map(([k, v]): [PhotonValue, PhotonValue] => [keyOf(k), looseOf(v)])) }
    case 'Dictionary<object,object>':
      return {
        kind: 'value',
        value: pv.dict('Object', 'Object', ...Object.entries(e.value).map(([k, v]): [PhotonValue, PhotonValue] => [keyOf(k), looseOf(v)]))
      }
    case 'object[]':
      return { kind: 'value', value: pv.objs(...e.value.map((x: unknown) => looseOf(x))) }
    case 'int[]':
      return { kind: 'value', value: pv.ints(e.value) }
    case 'short[]':
      return { kind: 'value', value: pv.shorts(e.value) }
    case 'string[]':
      return { kind: 'value', value: pv.strs(e.value) }
    case 'Custom':
      return { kind: 'value', value: pv.custom(e.customCode, unhex(e.data)) }
    case 'CustomTypeArray':
      return { kind: 'value', value: pv.customs(e.customCode, ...e.value.map((h: string) => pv.custom(e.customCode, unhex(h)))) }
    case 'EventData':
      return { kind: 'value', value: { type: 'EventData', code: e.code, parameters: paramsOf(e.parameters) } }
    case 'OperationRequest':
      return { kind: 'value', value: { type: 'OperationRequest', code: e.opCode, parameters: paramsOf(e.parameters) } }
    case 'OperationResponse':
      return {
        kind: 'value',
        value: {
          type: 'OperationResponse',
          code: e.opCode,
          returnCode: e.returnCode,
          debugMessage: looseOf(e.debugMessage),
          parameters: paramsOf(e.parameters)
        }
      }
    case 'EventData body (after F3 04)':
      return { kind: 'event', value: { code: e.code, parameters: paramsOf(e.parameters) } }
    case 'OperationResponse body (after F3 03)':
      return {
        kind: 'response',
        value: { code: e.opCode, returnCode: e.returnCode, debugMessage: looseOf(e.debugMessage), parameters: paramsOf(e.parameters) }
      }
  }
  throw new Error(`unknown expect notation ${JSON.stringify(type)}`)
}

/**
 * JSON.parse puts integer-like keys first, so the vectors' objects do not carry wire order: entries and
 * parameters are compared as sets here (wire order is checked in codec.test.ts).
 */
function unordered(v: unknown): unknown {
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, unordered(x)] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1)))
  if (Array.isArray(v)) return v.map(unordered)
  if (v && typeof v === 'object' && !(v instanceof Uint8Array)) {
    const o: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) o[k] = unordered(x)
    if ((o.type === 'Hashtable' || o.type === 'Dictionary') && Array.isArray(o.value)) {
      o.value = [...(o.value as PhotonEntry[])].sort((a, b) => (jsonText(a.key) < jsonText(b.key) ? -1 : 1))
    }
    return o
  }
  return v
}

// ---- the checks ----

const gpVectors = VECTORS.map((v, i) => ({ ...v, i: String(i) })).filter((v) => v.protocol !== 'udp')

describe('public Photon vectors', () => {
  it('are all accounted for: 41 GpBinary vectors here, 1 transport-only vector', () => {
    expect(VECTORS).toHaveLength(42)
    const udp = VECTORS.filter((v) => v.protocol === 'udp')
    // photon_spectator's synthetic header test has no message body: the UDP transport tests own it.
    expect(udp).toHaveLength(1)
    expect(Object.keys(udp[0].expect).sort()).toEqual(['commands', 'packet'])
    expect(gpVectors).toHaveLength(41)
  })

  it.each(gpVectors.filter((v) => !v.expect.packet))('#$i $source: $expect.type', (vec) => {
    const version = Number(vec.protocol) as GpVersion
    const bytes = unhex(vec.hex)
    const exp = typedOf(vec.expect)
    const read =
      exp.kind === 'event' ? readEvent : exp.kind === 'response' ? readOperationResponse : exp.kind === 'request' ? readOperationRequest : readTypedValue
    const res = run(bytes, (r) => read(r, version))
    expect(res.pos).toBe(bytes.length)
    expect(unordered(res.value)).toEqual(unordered(exp.value))
    // the same without a tree
    expect(unordered(run(bytes, (r) => read(r, version), false).value)).toEqual(unordered(exp.value))
  })

  it.each(gpVectors.filter((v) => v.expect.packet))('#$i $source: a whole UDP datagram (message body read from it)', (vec) => {
    // ao-data's test writes 0x00 where real traffic has the 0xF3 signal byte (see its note): the body is
    // found through the packet and command headers (docs/photon.md, UDP layout), read by hand here.
    const bytes = unhex(vec.hex)
    const dv = new DataView(bytes.buffer, bytes.byteOffset)
    expect(dv.getInt16(0)).toBe(vec.expect.packet.peerId)
    expect(bytes[3]).toBe(vec.expect.packet.commandCount)
    expect(bytes[12]).toBe(vec.expect.command.type)
    const length = dv.getInt32(16)
    expect(length).toBe(vec.expect.command.length)
    const message = bytes.subarray(24, 12 + length)
    expect(message[1]).toBe(vec.expect.message.msgType)
    expect(vec.expect.message.msgType).toBe(2) // OperationRequest
    const body = message.subarray(2)
    const res = run(body, (r) => readOperationRequest(r, 18))
    expect(res.pos).toBe(body.length)
    expect(unordered(res.value)).toEqual(unordered({ code: vec.expect.message.opCode, parameters: paramsOf(vec.expect.message.parameters) }))
    // "via": the wire form shows in the parameter's type leaf
    for (const [code, x] of Object.entries<any>(vec.expect.message.parameters)) {
      if (!x?.via) continue
      const [form, codeHex] = String(x.via).split(' ')
      const typeLeaf = find(res.tree, `photon.param.${code}`).children!.find((n) => n.key === 'photon.value.type')!
      expect(typeLeaf.value).toBe(Number(codeHex))
      expect(typeLeaf.label).toContain(`(${form})`)
    }
  })
})

describe('public Photon vectors wrapped in real datagrams, through the whole engine', () => {
  const values = gpVectors.filter((v) => !v.expect.packet)

  it('every GpBinary vector decodes inside a UDP session (values as event parameter 245; every third vector fragmented)', () => {
    resetFrames()
    const frames = values.flatMap((vec, i) => {
      const version = Number(vec.protocol) as GpVersion
      const exp = typedOf(vec.expect)
      const bytes = unhex(vec.hex)
      const type = exp.kind === 'event' || exp.kind === 'value' ? 4 : exp.kind === 'response' ? 3 : 2
      // A value rides as the only parameter (245) of event 200: count (i16 in 1.6, a byte in 1.8), key, value.
      const body = exp.kind === 'value' ? [200, ...(version === 16 ? [0, 1] : [1]), 245, ...bytes] : [...bytes]
      const msg = Uint8Array.from([0xf3, type, ...body])
      const port = 50000 + i
      const c2s = (b: Uint8Array) => udpFrame('10.1.0.1', port, '10.1.0.2', 5056, b)
      const s2c = (b: Uint8Array) => udpFrame('10.1.0.2', 5056, '10.1.0.1', port, b)
      const dg = (...commands: Uint8Array[]) => datagram({ peerId: 3, commands, sentTime: 100 + i }).bytes
      const first = [c2s(dg(cmd.reliable(0, 1, initMessage(version === 18 ? 8 : 6, 'vectors'))))]
      if (i % 3 !== 2) return [...first, s2c(dg(cmd.reliable(0, 1, msg)))]
      const parts = splitMessage(msg, { startSeq: 1, fragmentSize: Math.max(2, Math.ceil(msg.length / 3)) })
      return [...first, ...parts.reverse().map((p) => s2c(dg(p.command)))]
    })
    const { messages } = runEngine(frames)
    const decoded = messages.filter((m) => m.protocol === 'photon' && m.direction === 's2c' && (m.value as { code?: number }).code !== undefined)
    expect(decoded).toHaveLength(values.length)
    decoded.forEach((m, i) => {
      const vec = values[i]
      const exp = typedOf(vec.expect)
      const v = m.value as { protocol: string; protocolFrom: string; code: number; parameters: PhotonParams; returnCode?: number; debugMessage?: PhotonValue }
      expect(m.error, `#${vec.i} ${vec.source}`).toBeNull()
      expect(v.protocol).toBe(vec.protocol === '18' ? 'GpBinary18' : 'GpBinary16')
      expect(v.protocolFrom).toBe('init')
      if (exp.kind === 'value') {
        expect(v.code).toBe(200)
        expect(unordered(v.parameters.get('245'))).toEqual(unordered(exp.value))
      } else {
        const { code, parameters } = exp.value
        expect({ code: v.code, parameters: unordered(v.parameters) }).toEqual({ code, parameters: unordered(parameters) })
        if (exp.kind === 'response')
          expect({ returnCode: v.returnCode, debugMessage: v.debugMessage }).toEqual({ returnCode: exp.value.returnCode, debugMessage: exp.value.debugMessage })
      }
      if (i % 3 === 2) expect(m.frames.length, `#${vec.i} fragmented`).toBeGreaterThan(1)
      checkRanges(m)
    })
  })

  it('the whole-datagram vector decodes through the engine (its 0x00 signal byte set to the real 0xF3, as its note says)', () => {
    resetFrames()
    const vec = VECTORS.find((v) => v.expect.packet && v.protocol !== 'udp')!
    const bytes = unhex(vec.hex)
    expect(bytes[24]).toBe(0x00)
    bytes[24] = 0xf3
    const { messages } = runEngine([udpFrame('10.1.0.1', 40000, '10.1.0.2', 5056, bytes)])
    expect(messages).toHaveLength(1)
    const v = messages[0].value as { msgType: number; code: number; parameters: PhotonParams; protocol: string; protocolFrom: string }
    const want = (vec.expect as any).message
    expect(messages[0].error).toBeNull()
    expect({ msgType: v.msgType, code: v.code, protocol: v.protocol, protocolFrom: v.protocolFrom }).toEqual({
      msgType: want.msgType,
      code: want.opCode,
      protocol: 'GpBinary18',
      protocolFrom: 'trial'
    })
    expect(unordered(v.parameters)).toEqual(unordered(paramsOf(want.parameters)))
    checkRanges(messages[0])
  })
})
