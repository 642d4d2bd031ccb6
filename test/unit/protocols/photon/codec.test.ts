// GpBinary Protocol16/Protocol18 codecs: round trips through the independent encoder for every type and
// wire form, message bodies, tree keys, labels and exact byte ranges, the row pass, and version trials.
import { describe, it, expect } from 'vitest'
import { jsonText } from '../../../../src-shared/export/json'
import { decodeCustom } from '../../../../src-shared/protocols/photon/custom-types'
import {
  readDisconnectMessage,
  readEvent,
  readMessageObject,
  readOperationRequest,
  readOperationResponse,
  readTypedValue,
  trialVersion,
  type GpOptions,
  type GpVersion
} from '../../../../src-shared/protocols/photon/gpbinary'
import { FieldReader } from '../../../../src-shared/bytes/reader'
import { TreeBuilder } from '../../../../src-shared/bytes/tree'
import { targetFromMessage } from '../../../../src-shared/filter'
import {
  checkTiling,
  disconnectBody,
  enc16,
  enc18,
  eventBody,
  find,
  findAll,
  hex,
  paramBytes,
  pv,
  requestBody,
  responseBody,
  run,
  runFail,
  slice,
  unhex,
  valueBytes,
  wire,
  type Params,
  type PV
} from './gp-encoder'

const NAMES: Record<number, string> = { 254: 'ActorNr', 245: 'Data', 251: 'Properties', 244: 'Code', 255: 'GameId' }
const opts: GpOptions = { paramName: (c) => NAMES[c] }

const readEv =
  (v: GpVersion, o: GpOptions = opts) =>
  (r: FieldReader) =>
    readEvent(r, v, o)

/** Decodes an event body with the params and checks value, full consumption and tiling. */
function roundTrip(v: GpVersion, params: Params) {
  const bytes = eventBody(v, 42, params)
  const res = run(bytes, readEv(v))
  expect(res.pos).toBe(bytes.length)
  expect(res.value).toEqual({ code: 42, parameters: pv.params(params) })
  checkTiling(res.tree, 0, bytes.length)
  return { bytes, ...res }
}

const ALL16: Params = [
  [0, pv.null()],
  [1, pv.bool(true)],
  [2, pv.bool(false)],
  [3, pv.byte(255)],
  [4, pv.short(-1337)],
  [5, pv.int(-7)],
  [6, pv.int(2147483647)],
  [7, pv.long(-(2n ** 63n))],
  [8, pv.long(2n ** 63n - 1n)],
  [9, pv.float(1.1)],
  [10, pv.double(-2.5e-10)],
  [11, pv.str('héllo 中 😀')],
  [12, pv.str('')],
  [13, pv.bytes([0, 255, 16])],
  [14, pv.ints([2147483647, -2147483648, 0])],
  [15, pv.strs(['', 'x', 'ü'])],
  [16, pv.objs(pv.int(1), pv.str('two'), pv.null(), pv.hash([pv.byte(1), pv.long(5n)]), pv.objs())],
  [17, pv.arr('String', pv.str('a'), pv.str('bc'))],
  [18, pv.hash([pv.byte(255), pv.int(7)], [pv.str('k'), pv.null()], [pv.int(4), pv.float(2.3)], [pv.objs(pv.int(1)), pv.bool(true)])],
  [19, pv.dict('Object', 'Object', [pv.byte(0), pv.short(4660)], [pv.str('a'), pv.byte(255)])],
  [20, pv.dict('String', 'Int32', [pv.str('a'), pv.int(1)], [pv.str('b'), pv.int(-2)])],
  // value type 'D': each value is a whole dictionary with its own header (see gpbinary.ts)
  [
    21,
    pv.dict(
      'Byte',
      'Dictionary',
      [pv.byte(1), pv.dict('String', 'Int16', [pv.str('x'), pv.short(5)])],
      [pv.byte(2), pv.dict('Object', 'Object', [pv.int(1), pv.null()])]
    )
  ],
  [22, pv.dict('Int32', 'Array', [pv.int(1), pv.arr('String', pv.str('z'))], [pv.int(2), pv.arr('Int32')])],
  [23, pv.dict('Int64', 'Hashtable', [pv.long(-1n), pv.hash()])],
  [24, pv.vec3(1, -2.5, 1e10)],
  [25, pv.quat(1, 0, 0.5, -0.25)],
  [26, pv.vec2(3, 4)],
  [27, pv.player(7)],
  [28, pv.custom(0x58, [1, 2, 3])],
  [29, pv.custom(0x56, [1, 2])], // Vector3 code, wrong size: kept as bytes
  [
    30,
    pv.event(200, [
      [245, pv.objs(pv.int(5), pv.vec3(0, 1, 2))],
      [254, pv.int(1)]
    ])
  ],
  [
    31,
    pv.request(253, [
      [244, pv.byte(22)],
      [245, pv.hash()]
    ])
  ],
  [32, pv.response(226, -2, pv.str('err'), [[255, pv.str('room')]])],
  [33, pv.response(1, 0, pv.null())],
  [34, pv.arr('Array', pv.arr('Int32', pv.int(1), pv.int(2)), pv.arr('Int32'), pv.arr('Array', pv.arr('Byte', pv.byte(9))))],
  [35, pv.arr('ByteArray', pv.bytes([1, 3]), pv.bytes([]))],
  [36, pv.arr('IntArray', pv.ints([1]), pv.ints([]))],
  [37, pv.arr('Byte', pv.byte(1), pv.byte(2))],
  [38, pv.arr('Boolean', pv.bool(true), pv.bool(false), pv.bool(true))],
  [39, pv.arr('Dictionary', pv.dict('String', 'Int32', [pv.str('a'), pv.int(1)]), pv.dict('String', 'Int32'))],
  [40, pv.arr('Dictionary', pv.dict('Object', 'Object', [pv.byte(1), pv.str('x')]))],
  [41, pv.arr('Custom', pv.vec3(1, 2, 3), pv.vec3(4, 5, 6))],
  [42, pv.arr('Hashtable', pv.hash([pv.str('a'), pv.int(1)]), pv.hash())],
  [43, pv.arr('ObjectArray', pv.objs(pv.str('q')), pv.objs())],
  [44, pv.arr('Null', pv.null(), pv.null())],
  [45, pv.arr('Int64', pv.long(1n), pv.long(-1n))],
  [46, pv.arr('Double', pv.double(0.1))],
  [47, pv.arr('Float', pv.float(0.1))],
  [48, pv.arr('Int16', pv.short(-1))],
  [49, pv.arr('EventData', pv.event(1, [[1, pv.str('x')]]))],
  [50, pv.arr('StringArray', pv.strs(['a']), pv.strs([]))],
  [51, pv.arr('String')],
  [52, wire(pv.null(), { code: 0x00 })], // type 0 (Unknown) reads as null
  [53, pv.dict('Object', 'Object')],
  [255, pv.str('last')]
]

const INTS18 = [0, 1, 255, 256, 65535, 65536, -1, -255, -256, -65535, -65536, 2147483647, -2147483648, 1234567]
const LONGS18 = [
  0n,
  1n,
  255n,
  256n,
  65535n,
  65536n,
  -1n,
  -255n,
  -256n,
  -65535n,
  -65536n,
  2n ** 48n - 1n,
  2n ** 48n,
  -(2n ** 48n),
  -(2n ** 48n) - 1n,
  2n ** 53n + 1n,
  2n ** 63n - 1n,
  -(2n ** 63n),
  1234567890123n
]

const ALL18: Params = [
  [0, pv.null()],
  [1, wire(pv.null(), { code: 0x00 })],
  [2, pv.bool(true)], // 0x1c
  [3, pv.bool(false)], // 0x1b
  [4, wire(pv.bool(true), { code: 0x02 })],
  [5, wire(pv.bool(false), { code: 0x02 })],
  [6, pv.byte(0)], // ByteZero
  [7, pv.byte(200)],
  [8, pv.short(0)], // ShortZero
  [9, pv.short(-2)],
  [10, wire(pv.short(0), { code: 0x04 })],
  [11, pv.float(1.5)],
  [12, wire(pv.float(0), { code: 0x20 })],
  [13, pv.double(-0.1)],
  [14, wire(pv.double(0), { code: 0x21 })],
  [15, pv.str('héllo 中 😀')],
  [16, pv.str('')],
  [17, wire(pv.int(5), { code: 0x09 })],
  [18, wire(pv.int(0), { code: 0x0b })],
  [19, wire(pv.int(0), { code: 0x0c })],
  [20, wire(pv.int(300), { code: 0x09 })],
  [21, wire(pv.long(5n), { code: 0x0a })],
  [22, wire(pv.long(0n), { code: 0x10 })],
  [23, pv.bytes([0, 255, 16])],
  [24, pv.bytes([])],
  [25, pv.ints([0, -1, 2147483647, -2147483648, 64, -65])],
  [26, pv.longs([0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 48n])],
  [27, pv.shorts([-32768, 32767, 0])],
  [28, pv.floats([0.1, -2])],
  [29, pv.doubles([0.1, -0.5])],
  [30, pv.strs(['', 'x', 'ü'])],
  [31, pv.objs(pv.int(1), pv.str('two'), pv.null(), pv.hash([pv.byte(1), pv.long(5n)]), pv.objs())],
  [32, pv.hash([pv.byte(255), pv.int(7)], [pv.str('k'), pv.null()], [pv.int(-4), pv.float(2.3)], [pv.objs(pv.int(1)), pv.bool(true)])],
  [33, pv.dict('Object', 'Object', [pv.byte(0), pv.short(4660)], [pv.str('a'), pv.byte(255)])],
  [34, pv.dict('String', 'Int32', [pv.str('a'), pv.int(1)], [pv.str('b'), pv.int(-2)], [pv.str('c'), pv.int(-2147483648)])],
  // nested header after 0x14; every value repeats its own header
  [35, pv.dict('Byte', 'Dictionary', [pv.byte(1), pv.dict('String', 'Int16', [pv.str('x'), pv.short(5)])], [pv.byte(2), pv.dict('String', 'Int16')])],
  [36, pv.dict('Byte', 'Dictionary', [pv.byte(1), pv.dict('Int32', 'Dictionary', [pv.int(9), pv.dict('String', 'Object', [pv.str('deep'), pv.long(-3n)])])])],
  // value type 0x40: a chain naming the array levels; every value carries its own type byte
  [37, pv.dict('Int32', 'Array', [pv.int(1), pv.arr('IntArray', pv.ints([1, 2]), pv.ints([]))], [pv.int(2), pv.arr('Object')])], // an empty array of arrays has no element type
  [38, pv.dict('String', 'Array', [pv.str('a'), pv.arr('Array', pv.arr('StringArray', pv.strs(['x'])))])],
  [39, pv.dict('String', 'IntArray', [pv.str('a'), pv.ints([1, -1])])],
  [40, pv.dict('Byte', 'ObjectArray', [pv.byte(3), pv.objs(pv.str('o'))])],
  // compact and zero forms as fixed key/value types
  [41, wire(pv.dict('Int32', 'Int64', [pv.int(7), pv.long(-5n)], [pv.int(255), pv.long(0n)]), { keyCode: 0x0b, valueCode: 0x10 })],
  [42, wire(pv.dict('Boolean', 'Int32', [pv.bool(true), pv.int(0)], [pv.bool(true), pv.int(0)]), { keyCode: 0x1c, valueCode: 0x1e })],
  [43, wire(pv.dict('Byte', 'Custom', [pv.byte(1), pv.vec3(1, 2, 3)]), { valueCode: 0xd6 })],
  [44, pv.dict('Byte', 'Custom', [pv.byte(1), pv.custom(200, [9])], [pv.byte(2), pv.vec2(1, 2)])],
  [45, pv.vec3(1, -2.5, 1e10)], // slim 0xd6
  [46, pv.quat(1, 0, 0.5, -0.25)], // 0xd1
  [47, pv.vec2(3, 4)], // 0xd7
  [48, pv.player(-7)], // 0xd0
  [49, pv.custom(200, [1, 2, 3])], // 0x13 (code >= 100)
  [50, wire(pv.vec3(0, 0, 1), { code: 0x13 })], // a small code written the long way
  [51, pv.custom(0x58, [])],
  [52, pv.customs(0x56, pv.vec3(1, 2, 3), pv.vec3(4, 5, 6))],
  [53, pv.customs(7, pv.custom(7, [0xaa, 0xbb]), pv.custom(7, [0xcc]))],
  [54, pv.dicts('String', 'Int32', pv.dict('String', 'Int32', [pv.str('a'), pv.int(1)]), pv.dict('String', 'Int32'))],
  [55, pv.dicts('Object', 'Object', pv.dict('Object', 'Object', [pv.byte(1), pv.str('x')]))],
  [56, pv.hashes(pv.hash([pv.str('a'), pv.int(1)]), pv.hash())],
  [57, pv.arr('IntArray', pv.ints([1]), pv.ints([2, 3]))],
  [58, pv.arr('Array', pv.arr('StringArray', pv.strs(['a'])), pv.arr('Object'))],
  [59, pv.arr('Object', pv.ints([1]), pv.strs(['mixed']))],
  [60, pv.arr('Object')],
  [
    61,
    pv.event(200, [
      [245, pv.objs(pv.int(5), pv.vec3(0, 1, 2))],
      [254, pv.int(1)]
    ])
  ],
  [
    62,
    pv.request(253, [
      [244, pv.byte(22)],
      [245, pv.hash()]
    ])
  ],
  [63, pv.response(226, -2, pv.str('err'), [[255, pv.str('room')]])],
  [64, pv.response(1, 0, pv.strs(['albion', 'puts', 'a string[] here']))],
  [65, pv.custom(0x56, [1, 2])], // Vector3 code, wrong size
  ...INTS18.map((n, i): [number, PV] => [100 + i, pv.int(n)]),
  ...LONGS18.map((n, i): [number, PV] => [150 + i, pv.long(n)]),
  ...[0, 1, 7, 8, 9, 16, 17].map((n, i): [number, PV] => [200 + i, pv.bools(Array.from({ length: n }, (_, k) => k % 3 === 0))]),
  [255, pv.str('last')]
]

describe('PUN custom types', () => {
  it('reads Vector3 floats and Player ints bit-exactly (-0, NaN, infinities, subnormals, negative ints)', () => {
    const words = [0x80000000, 0x7fc00001, 0xff800000, 0x00000001, 0x7f7fffff, 0xc0490fdb]
    for (let i = 0; i + 3 <= words.length; i++) {
      const b = new Uint8Array(12)
      const view = new DataView(b.buffer)
      words.slice(i, i + 3).forEach((w, k) => view.setUint32(k * 4, w, false))
      expect(decodeCustom(0x56, b).decoded).toEqual({ x: view.getFloat32(0, false), y: view.getFloat32(4, false), z: view.getFloat32(8, false) })
      expect(Object.is(decodeCustom(0x56, b).decoded!.x, view.getFloat32(0, false))).toBe(true)
    }
    expect(decodeCustom(0x50, Uint8Array.from([0xff, 0xff, 0xff, 0xf9])).decoded).toEqual({ actorNr: -7 })
    expect(decodeCustom(0x01, Uint8Array.from([1, 2]))).toEqual({})
  })

  it("reads Vector2 and Quaternion in PUN's member order, each member's float from its 4 bytes", () => {
    // PUN writes Vector2 as x, y and Quaternion as w, x, y, z (CustomTypes.cs), each a big-endian float
    for (const [code, members] of [
      [0x57, ['x', 'y']],
      [0x51, ['w', 'x', 'y', 'z']]
    ] as const) {
      const b = new Uint8Array(4 * members.length)
      const view = new DataView(b.buffer)
      members.forEach((_, k) => view.setFloat32(4 * k, (k + 1) * 1.5 - 4, false))
      const decoded = decodeCustom(code, b).decoded!
      expect(Object.keys(decoded)).toEqual(members)
      members.forEach((m, k) => expect(decoded[m]).toBe(view.getFloat32(4 * k, false)))
    }
  })
})

describe('Protocol16 codec', () => {
  it('round-trips every type through the independent encoder', () => {
    const res = roundTrip(16, ALL16)
    const params = res.value.parameters
    expect(params.get('24')).toEqual({ type: 'Custom', code: 0x56, value: expect.any(Uint8Array), decoded: { x: 1, y: -2.5, z: 1e10 } })
    expect(params.get('27')).toMatchObject({ decoded: { actorNr: 7 } })
    expect(params.get('29')).not.toHaveProperty('decoded')
    expect(params.get('9')).toEqual({ type: 'Float', value: Math.fround(1.1) })
  })

  it('keeps the custom-size mismatch as bytes and says why', () => {
    const warnings: string[] = []
    const bytes = eventBody(16, 1, [[1, pv.custom(0x56, [1, 2])]])
    const res = run(bytes, (r) => readEvent(r, 16, { warn: (w) => warnings.push(w) }))
    expect(warnings).toEqual(["custom type 'V' (86): 2 bytes where Vector3 has 12: not decoded"])
    expect(find(res.tree, 'photon.param.1').label).toBe("Parameter 1: Custom 'V' (86) Vector3 2 bytes: 0102 (2 bytes where Vector3 has 12: not decoded)")
  })

  it('reads the byte layouts of the reference (big-endian, i16 counts, i32 byte[]/int[] lengths)', () => {
    // event 3: {1: 'k' -2, 2: 'n' [1], 3: 'x' ab, 4: 'y' of 'c' 'V' (one code, i16 length per element)}
    const bytes = unhex('03 0004 01 6b fffe 02 6e 00000001 00000001 03 78 00000001 ab 04 79 0001 63 56 000c 3f800000 40000000 40400000')
    const res = run(bytes, readEv(16))
    expect(res.pos).toBe(bytes.length)
    expect(res.value.parameters).toEqual(
      pv.params([
        [1, pv.short(-2)],
        [2, pv.ints([1])],
        [3, pv.bytes([0xab])],
        [4, pv.arr('Custom', pv.vec3(1, 2, 3))]
      ])
    )
  })
})

describe('Protocol18 codec', () => {
  it('round-trips every type and wire form through the independent encoder', () => {
    const res = roundTrip(18, ALL18)
    expect(res.value.parameters.get('45')).toMatchObject({ type: 'Custom', code: 0x56, decoded: { x: 1, y: -2.5, z: 1e10 } })
    expect(res.value.parameters.get('48')).toMatchObject({ decoded: { actorNr: -7 } })
  })

  it('picks the compact int forms the writer uses, at their boundaries', () => {
    const forms = INTS18.map((n) => enc18(pv.int(n))[0])
    expect(forms).toEqual([0x1e, 0x0b, 0x0b, 0x0d, 0x0d, 0x09, 0x0c, 0x0c, 0x0e, 0x0e, 0x09, 0x09, 0x09, 0x09])
    const lforms = LONGS18.slice(0, 11).map((n) => enc18(pv.long(n))[0])
    expect(lforms).toEqual([0x1f, 0x0f, 0x0f, 0x11, 0x11, 0x0a, 0x10, 0x10, 0x12, 0x12, 0x0a])
    for (const n of INTS18) expect(run(valueBytes(18, pv.int(n)), (r) => readTypedValue(r, 18)).value).toEqual(pv.int(n))
    for (const n of LONGS18) expect(run(valueBytes(18, pv.long(n)), (r) => readTypedValue(r, 18)).value).toEqual(pv.long(n))
  })

  it('reads the byte layouts of the reference (little-endian, varints, zigzag)', () => {
    expect(run(unhex('043412'), (r) => readTypedValue(r, 18)).value).toEqual(pv.short(0x1234))
    expect(run(unhex('050000c03f'), (r) => readTypedValue(r, 18)).value).toEqual(pv.float(1.5))
    expect(run(unhex('06000000000000f03f'), (r) => readTypedValue(r, 18)).value).toEqual(pv.double(1))
    expect(run(unhex('0903'), (r) => readTypedValue(r, 18)).value).toEqual(pv.int(-2))
    expect(run(unhex('0a ffffffffffffffffff01'), (r) => readTypedValue(r, 18)).value).toEqual(pv.long(-(2n ** 63n)))
    expect(run(unhex('07 03 e4b8ad'), (r) => readTypedValue(r, 18)).value).toEqual(pv.str('中'))
  })

  it('packs bool[] LSB first, the last byte partial', () => {
    const v = pv.bools([true, false, false, false, false, false, false, true, true, true])
    const bytes = valueBytes(18, v)
    expect(hex(bytes)).toBe('420a' + '81' + '03')
    expect(run(bytes, (r) => readTypedValue(r, 18)).value).toEqual(v)
  })

  it('labels compact forms with their wire form and keeps the logical type', () => {
    const bytes = eventBody(18, 1, [
      [254, wire(pv.int(-5), { code: 0x0c })],
      [1, pv.long(0n)],
      [2, pv.vec3(1, 2, 3)],
      [3, pv.bool(true)]
    ])
    const res = run(bytes, readEv(18))
    expect(find(res.tree, 'photon.param.254').label).toBe('ActorNr (254): Int32 (Int1_) -5')
    expect(find(res.tree, 'photon.param.254').value).toBe(-5)
    expect(find(res.tree, 'photon.param.1').label).toBe('Parameter 1: Int64 (LongZero) 0')
    expect(find(res.tree, 'photon.param.2').label).toBe("Parameter 2: Custom 'V' (86) (slim) Vector3 {x: 1, y: 2, z: 3}")
    expect(find(res.tree, 'photon.param.3').label).toBe('Parameter 3: Boolean (BooleanTrue) true')
    expect(findAll(res.tree, 'photon.value.type').map((n) => n.label)).toEqual([
      'Type: 0x0c Int32 (Int1_)',
      'Type: 0x1f Int64 (LongZero)',
      'Type: 0xd6 Custom (slim)',
      'Type: 0x1c Boolean (BooleanTrue)'
    ])
  })
})

describe.each([16, 18] as const)('Protocol%i message bodies', (v) => {
  it('reads an OperationRequest (msgType 2/6)', () => {
    const ps: Params = [
      [244, pv.byte(22)],
      [245, pv.objs(pv.int(1), pv.str('x'))],
      [247, pv.byte(5)]
    ]
    const bytes = requestBody(v, 253, ps)
    const res = run(bytes, (r) => readOperationRequest(r, v, { codeName: (c) => (c === 253 ? 'RaiseEvent' : undefined) }))
    expect(res.value).toEqual({ code: 253, parameters: pv.params(ps) })
    expect(res.pos).toBe(bytes.length)
    expect(res.tree[0]).toMatchObject({ key: 'photon.op.code', label: 'Operation code: 253 (RaiseEvent)', value: 253, start: 0, length: 1 })
    expect(res.tree[1]).toMatchObject({ key: 'photon.param_count', value: 3, start: 1, length: v === 16 ? 2 : 1 })
    checkTiling(res.tree, 0, bytes.length)
  })

  it('reads an OperationResponse (msgType 3/7) with any typed debug message', () => {
    for (const debug of [pv.null(), pv.str('SomeDebug message'), pv.strs(['a', 'b'])]) {
      const ps: Params = [
        [255, pv.str('room')],
        [254, pv.int(2)]
      ]
      const bytes = responseBody(v, 226, -32768 + 5, debug, ps)
      const res = run(bytes, (r) => readOperationResponse(r, v, opts))
      expect(res.value).toEqual({ code: 226, returnCode: -32763, debugMessage: debug, parameters: pv.params(ps) })
      expect(find(res.tree, 'photon.return_code')).toMatchObject({ value: -32763, start: 1, length: 2 })
      expect(slice(bytes, find(res.tree, 'photon.debug_message'))).toEqual(valueBytes(v, debug))
      checkTiling(res.tree, 0, bytes.length)
    }
  })

  it('reads the return code in the version byte order', () => {
    const bytes = responseBody(v, 1, 0x0102, pv.null())
    expect([...bytes.subarray(1, 3)]).toEqual(v === 16 ? [1, 2] : [2, 1])
    expect(run(bytes, (r) => readOperationResponse(r, v)).value.returnCode).toBe(0x0102)
  })

  it('reads an Event (msgType 4)', () => {
    const ps: Params = [
      [245, pv.hash([pv.byte(1), pv.vec3(1, 2, 3)])],
      [254, pv.int(3)]
    ]
    const bytes = eventBody(v, 200, ps)
    const res = run(bytes, (r) => readEvent(r, v, opts))
    expect(res.value).toEqual({ code: 200, parameters: pv.params(ps) })
    expect(res.tree[0]).toMatchObject({ key: 'photon.ev.code', value: 200 })
  })

  it('reads a DisconnectMessage (msgType 5) and a Message object (msgType 8)', () => {
    const bytes = disconnectBody(v, -3, pv.str('bye'), [[1, pv.int(1)]])
    const res = run(bytes, (r) => readDisconnectMessage(r, v))
    expect(res.value).toEqual({ code: -3, debugMessage: pv.str('bye'), parameters: pv.params([[1, pv.int(1)]]) })
    expect(find(res.tree, 'photon.disconnect_code')).toMatchObject({ value: -3, start: 0, length: 2 })
    const obj = pv.hash([pv.str('k'), pv.objs(pv.int(1))])
    const m = run(valueBytes(v, obj), (r) => readMessageObject(r, v))
    expect(m.value).toEqual(obj)
    expect(m.tree[0]).toMatchObject({ key: 'photon.message', label: 'Message: Hashtable (1 entry)', start: 0, length: valueBytes(v, obj).length })
  })

  it('gives every parameter node exactly the bytes of its key, type and payload', () => {
    const ps = (v === 16 ? ALL16 : ALL18).slice(0, 70)
    const bytes = eventBody(v, 7, ps)
    const res = run(bytes, readEv(v))
    for (const [code, value] of ps) {
      const node = res.tree.find((n) => n.key === `photon.param.${code}`)!
      expect(hex(slice(bytes, node)), `param ${code}`).toBe(hex(paramBytes(v, code, value)))
    }
  })

  it('keys nested entries by their scalar keys and array elements by the array', () => {
    const ps: Params = [
      [
        251,
        pv.hash(
          [pv.byte(255), pv.int(7)],
          [pv.str('PlatformId'), pv.int(1)],
          [pv.float(1.5), pv.str('float key')],
          [pv.str('n'), pv.hash([pv.int(3), pv.str('deep')])]
        )
      ],
      [252, pv.objs(pv.int(1), pv.hash([pv.byte(9), pv.bool(true)]))],
      [253, pv.ints([5, 6])]
    ]
    const bytes = eventBody(v, 253, ps)
    const res = run(bytes, readEv(v))
    const int1 = v === 18 ? ' (Int1)' : ''
    expect(find(res.tree, 'photon.param.251.255')).toMatchObject({ label: `255: Int32${int1} 7`, value: 7 })
    expect(find(res.tree, 'photon.param.251.PlatformId').label).toBe(`"PlatformId": Int32${int1} 1`)
    expect(find(res.tree, 'photon.param.251.n.3')).toMatchObject({ label: '3: String "deep"', value: 'deep' })
    // a non-integer key keeps the parent's key
    expect(findAll(res.tree, 'photon.param.251').map((n) => n.label)).toEqual(['Properties (251): Hashtable (4 entries)', '<Float 1.5>: String "float key"'])
    expect(findAll(res.tree, 'photon.param.252').map((n) => n.label)).toEqual([
      'Parameter 252: ObjectArray (2 elements)',
      `[0]: Int32${int1} 1`,
      '[1]: Hashtable (1 entry)'
    ])
    expect(find(res.tree, 'photon.param.252.9').value).toBe(true)
    expect(findAll(res.tree, 'photon.param.253').map((n) => n.value)).toEqual([undefined, 5, 6])
    // entry key nodes hold the key's own bytes
    const key = find(res.tree, 'photon.param.251.PlatformId').children![0]
    expect(key).toMatchObject({ key: 'photon.value.entry_key', label: 'Key: String "PlatformId"' })
    expect(slice(bytes, key)).toEqual(valueBytes(v, pv.str('PlatformId')))
    checkTiling(res.tree, 0, bytes.length)
  })

  it('gives the same value and no tree when not recording', () => {
    const all = v === 16 ? ALL16 : ALL18
    const bytes = eventBody(v, 1, all)
    const rows = run(bytes, readEv(v), false)
    expect(rows.tree).toEqual([])
    expect(rows.value).toEqual(run(bytes, readEv(v)).value)
    expect(rows.pos).toBe(bytes.length)
  })

  it("keeps in the index a parameter's value when that is all its tree has under its key, otherwise that the body has it", () => {
    const all: Params = [...(v === 16 ? ALL16 : ALL18), [250, pv.str('x'.repeat(65))], [251, pv.str('y'.repeat(64))]]
    const bytes = eventBody(v, 1, all)
    const rows = new TreeBuilder(false)
    readEvent(new FieldReader(bytes, rows, 0), v, opts)
    const ix = rows.indexed!
    const full = targetFromMessage({ tree: run(bytes, readEv(v)).tree, protocol: '', stack: [] })
    const short = (p: PV) =>
      ['Null', 'Boolean', 'Byte', 'Int16', 'Int32', 'Int64', 'Float', 'Double'].includes(p.type) || (p.type === 'String' && p.value.length <= 64)
    for (const [code, p] of all) {
      const key = `photon.param.${code}`
      const kept = ix.values.filter((_, i) => ix.keys[i] === key)
      expect({ code, kept: kept.length, has: ix.keys.includes(`has:${key}`) }).toEqual({ code, kept: short(p) ? 1 : 0, has: !short(p) })
      if (short(p)) expect(kept).toEqual(full.values(key))
    }

    // Why a container is only marked: an entry whose key is no key segment (an array) keeps the parameter's
    // key, for its value and the key's elements. A value cut short leaves its nodes so far: marked too.
    const cut = eventBody(v, 1, [
      [3, pv.int(1)],
      [5, pv.hash([pv.objs(pv.int(1)), pv.int(9)], [pv.byte(1), pv.int(2)])]
    ]).subarray(0, -2)
    const cutRows = new TreeBuilder(false)
    expect(() => readEvent(new FieldReader(cut, cutRows, 0), v, opts)).toThrow()
    const cutIx = cutRows.indexed!
    expect(cutIx.keys.flatMap((k, i) => (k.includes('photon.param') ? [[k, cutIx.values[i]]] : []))).toEqual([
      ['photon.param.3', 1],
      ['has:photon.param.5', true]
    ])
    const cutTree = runFail(cut, readEv(v)).tree
    expect(targetFromMessage({ tree: cutTree, protocol: '', stack: [] }).values('photon.param.5')).toEqual([9, 1])
  })

  it('keeps parameters in wire order in the export, and the last value of a duplicate', () => {
    const warnings: string[] = []
    const bytes = eventBody(v, 1, [
      [255, pv.int(1)],
      [3, pv.int(2)],
      [254, pv.str('x')],
      [3, pv.int(4)]
    ])
    const res = run(bytes, (r) => readEvent(r, v, { warn: (w) => warnings.push(w) }))
    expect(jsonText(res.value.parameters)).toBe('{"255":{"type":"Int32","value":1},"254":{"type":"String","value":"x"},"3":{"type":"Int32","value":4}}')
    expect(warnings).toEqual([`duplicate parameter 3 at offset ${v === 16 ? 20 : 12}: the last value is kept`])
    expect(findAll(res.tree, 'photon.param.3').map((n) => n.value)).toEqual([2, 4])
  })

  it('exports 64-bit values as decimal strings and bytes as hex', () => {
    const bytes = eventBody(v, 1, [
      [1, pv.long(-(2n ** 63n))],
      [2, pv.bytes([0xab, 0x01])],
      [3, pv.vec2(1, 2)]
    ])
    expect(jsonText(run(bytes, readEv(v)).value.parameters)).toBe(
      '{"1":{"type":"Int64","value":"-9223372036854775808"},"2":{"type":"ByteArray","value":"ab01"},' +
        `"3":{"type":"Custom","code":87,"value":"3f80000040000000","decoded":{"x":1,"y":2}}}`
    )
  })
})

describe('trialVersion', () => {
  const props = pv.hash([pv.byte(255), pv.int(7)], [pv.str('hshchk'), pv.str('abc')], [pv.byte(253), pv.bool(true)])
  const cases: { name: string; msgType: number; body: (v: GpVersion) => Uint8Array }[] = [
    {
      name: 'PropertiesChanged event',
      msgType: 4,
      body: (v) =>
        eventBody(v, 253, [
          [251, props],
          [253, pv.int(0)],
          [254, pv.int(1)]
        ])
    },
    {
      name: 'RPC event',
      msgType: 4,
      body: (v) =>
        eventBody(v, 200, [
          [245, pv.hash([pv.byte(0), pv.int(1001)], [pv.byte(4), pv.objs(pv.vec3(1, 2, 3), pv.float(0.5))])],
          [254, pv.int(2)]
        ])
    },
    {
      name: 'Join event',
      msgType: 4,
      body: (v) =>
        eventBody(v, 255, [
          [252, pv.ints([1, 2, 3])],
          [249, pv.hash([pv.byte(255), pv.str('nick')])],
          [254, pv.int(3)]
        ])
    },
    {
      name: 'AppStats event',
      msgType: 4,
      body: (v) =>
        eventBody(v, 226, [
          [227, pv.int(1200)],
          [228, pv.int(35)],
          [229, pv.int(4)]
        ])
    },
    {
      name: 'Albion-style event',
      msgType: 4,
      body: (v) =>
        eventBody(v, 1, [
          [0, pv.long(123456789n)],
          [1, v === 16 ? pv.arr('Float', pv.float(1.5), pv.float(-2)) : pv.floats([1.5, -2])],
          [2, pv.strs(['Sword'])],
          [252, pv.short(29)]
        ])
    },
    {
      name: 'RaiseEvent request',
      msgType: 2,
      body: (v) =>
        requestBody(v, 253, [
          [244, pv.byte(22)],
          [245, pv.objs(pv.int(5), pv.str('x'))],
          [247, pv.byte(5)],
          [246, pv.byte(1)]
        ])
    },
    {
      name: 'Authenticate request',
      msgType: 2,
      body: (v) =>
        requestBody(v, 230, [
          [221, pv.str('eyJhbGciOiJIUzI1NiJ9.token')],
          [220, pv.str('1.0')]
        ])
    },
    { name: 'InitEncryption request', msgType: 6, body: (v) => requestBody(v, 0, [[1, pv.bytes(Array.from({ length: 96 }, (_, i) => (i * 37) & 255))]]) },
    {
      name: 'JoinGame response',
      msgType: 3,
      body: (v) =>
        responseBody(v, 226, 0, pv.null(), [
          [254, pv.int(2)],
          [249, pv.hash([pv.int(1), props])],
          [248, props]
        ])
    },
    { name: 'error response', msgType: 3, body: (v) => responseBody(v, 226, 32758, pv.str('Game does not exist'), []) },
    { name: 'SetProperties response', msgType: 3, body: (v) => responseBody(v, 252, 0, pv.null(), []) },
    { name: 'InitEncryption response', msgType: 7, body: (v) => responseBody(v, 0, 0, pv.null(), [[1, pv.bytes(Array.from({ length: 96 }, (_, i) => i))]]) }
  ]
  it.each(cases)('detects a Protocol16 and a Protocol18 $name', ({ msgType, body }) => {
    expect(trialVersion(body(16), msgType)).toEqual({ version: 16, confident: true })
    expect(trialVersion(body(18), msgType)).toEqual({ version: 18, confident: true })
    expect(trialVersion(body(18), msgType | 0x80)).toEqual({ version: 18, confident: true })
  })

  it('is not confident when neither or both versions fit, or the type has no body', () => {
    expect(trialVersion(new Uint8Array(0), 4)).toEqual({ version: 16, confident: false })
    expect(trialVersion(unhex('ffffffff'), 4)).toEqual({ version: 16, confident: false })
    // neither fits; Protocol18 got further (a P16 count of 0x0101 params cannot fit)
    expect(trialVersion(unhex('01 01 01 6b'), 4)).toEqual({ version: 18, confident: false })
    expect(trialVersion(unhex('01'), 1)).toEqual({ version: 16, confident: false })
    // empty parameter tables differ in size, so they decide
    expect(trialVersion(unhex('01 00'), 4)).toEqual({ version: 18, confident: true })
    expect(trialVersion(unhex('01 00 00'), 4)).toEqual({ version: 16, confident: true })
    // both fit: type 0 (Unknown, null) is the same byte in both versions
    expect(trialVersion(unhex('00'), 8)).toEqual({ version: 16, confident: false })
    expect(trialVersion(unhex('44 01 0100'), 8)).toEqual({ version: 18, confident: true }) // P18 short[] [1]; P16 'D' runs out
  })
})

describe('encoder sanity (the reference layouts)', () => {
  it('writes the documented bytes', () => {
    expect(hex(enc16(pv.hash([pv.str('a'), pv.int(2)])))).toBe('680001' + '7300016169' + '00000002')
    expect(hex(enc18(pv.int(-5)))).toBe('0c05')
    expect(hex(enc18(pv.vec3(1, 2, 3)))).toBe('d60c' + '3f800000' + '40000000' + '40400000')
    expect(hex(enc18(pv.dict('Byte', 'Dictionary', [pv.byte(1), pv.dict('String', 'Int16')])))).toBe('14' + '0314' + '0704' + '01' + '01' + '0704' + '00')
    expect(hex(enc18(pv.dict('Int32', 'Array', [pv.int(1), pv.arr('IntArray', pv.ints([2]))])))).toBe(
      '14' + '0940' + '49' + '01' + '02' + '40' + '01' + '490104'
    )
  })
})
