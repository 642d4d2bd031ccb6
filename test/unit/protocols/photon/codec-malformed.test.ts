// Hostile and broken GpBinary input: truncation at every offset, lying counts, unknown type codes, depth
// and zero-size count bombs, over-long varints, negative lengths, random corruption. The readers must
// throw only DecodeError with an offset inside the input and keep the tree and parameters read so far.
import { describe, it, expect } from 'vitest'
import { DecodeError, type FieldReader } from '../../../../src-shared/bytes/reader'
import { jsonText } from '../../../../src-shared/export/json'
import {
  partialBody,
  readDisconnectMessage,
  readEvent,
  readMessageObject,
  readOperationRequest,
  readOperationResponse,
  readTypedValue,
  type GpOptions,
  type GpVersion
} from '../../../../src-shared/protocols/photon/gpbinary'
import type { FieldNode } from '../../../../src-shared/model/types'
import {
  checkTiling,
  disconnectBody,
  enc16,
  enc18,
  eventBody,
  find,
  pv,
  requestBody,
  responseBody,
  run,
  runFail,
  unhex,
  valueBytes,
  varint,
  wire,
  type Params,
  type PV
} from './gp-encoder'

const COMMON: Params = [
  [1, pv.int(-7)],
  [2, pv.str('héllo')],
  [3, pv.hash([pv.byte(255), pv.int(7)], [pv.str('k'), pv.objs(pv.long(-5n), pv.null())])],
  [4, pv.dict('String', 'Int32', [pv.str('a'), pv.int(1)])],
  [5, pv.dict('Object', 'Object', [pv.int(1), pv.str('x')])],
  [6, pv.objs(pv.double(0.5), pv.float(2), pv.bool(true), pv.short(-3))],
  [7, pv.response(226, -2, pv.str('err'), [[255, pv.str('room')]])],
  [8, pv.vec3(1, 2, 3)],
  [9, pv.bytes([1, 2, 3])],
  [10, pv.strs(['a', 'bc'])],
  [11, pv.ints([1, -2])],
  [12, pv.event(3, [[1, pv.byte(9)]])]
]

const RICH: Record<GpVersion, Params> = {
  16: [
    ...COMMON,
    [20, pv.arr('Custom', pv.vec3(1, 2, 3), pv.vec3(4, 5, 6))],
    [21, pv.arr('Dictionary', pv.dict('Byte', 'String', [pv.byte(1), pv.str('x')]))],
    [22, pv.arr('Array', pv.arr('Int32', pv.int(1)), pv.arr('String', pv.str('s')))],
    [23, pv.dict('Byte', 'Dictionary', [pv.byte(1), pv.dict('String', 'Int16', [pv.str('x'), pv.short(5)])])]
  ],
  18: [
    ...COMMON,
    [20, pv.bools([true, false, true, true, false, false, false, true, true])],
    [21, pv.dict('Byte', 'Dictionary', [pv.byte(1), pv.dict('String', 'Int16', [pv.str('x'), pv.short(5)])])],
    [22, pv.dict('Int32', 'Array', [pv.int(1), pv.arr('IntArray', pv.ints([1, 2]))])],
    [23, pv.arr('StringArray', pv.strs(['q']), pv.strs([]))],
    [24, pv.customs(0x56, pv.vec3(1, 2, 3))],
    [25, pv.dicts('String', 'Int32', pv.dict('String', 'Int32', [pv.str('a'), pv.int(1)]))],
    [26, pv.hashes(pv.hash([pv.str('a'), pv.int(300)]))],
    [27, pv.longs([1n, -(2n ** 63n)])],
    [28, wire(pv.int(-70000), { code: 0x09 })],
    [29, pv.long(-65535n)],
    [30, pv.custom(200, [1, 2])]
  ]
}

type Reader = (r: FieldReader, v: GpVersion, o?: GpOptions) => unknown

const BODIES: { name: string; read: Reader; make: (v: GpVersion) => Uint8Array; code?: number }[] = [
  { name: 'Event', read: readEvent, make: (v) => eventBody(v, 200, RICH[v]), code: 200 },
  { name: 'OperationRequest', read: readOperationRequest, make: (v) => requestBody(v, 253, RICH[v]), code: 253 },
  { name: 'OperationResponse', read: readOperationResponse, make: (v) => responseBody(v, 226, -1, pv.strs(['debug']), RICH[v]), code: 226 },
  { name: 'DisconnectMessage', read: readDisconnectMessage, make: (v) => disconnectBody(v, 7, pv.null(), RICH[v]), code: 7 },
  { name: 'Message object', read: readMessageObject, make: (v) => valueBytes(v, pv.objs(...RICH[v].map(([, x]) => x))) },
  { name: 'typed value', read: readTypedValue, make: (v) => valueBytes(v, pv.hash(...RICH[v].map(([k, x]): [PV, PV] => [pv.byte(k), x]))) }
]

function allNodes(nodes: FieldNode[], acc: FieldNode[] = []): FieldNode[] {
  for (const n of nodes) {
    acc.push(n)
    if (n.children) allNodes(n.children, acc)
  }
  return acc
}

/** The error of a reader that must fail, checked to be a DecodeError with an offset inside the input. */
function failOf(bytes: Uint8Array, read: (r: FieldReader) => unknown, recording = true): { error: DecodeError; tree: FieldNode[] } {
  const { error, tree } = runFail(bytes, read, recording)
  expect(error).toBeInstanceOf(DecodeError)
  const e = error as DecodeError
  expect(e.message).not.toMatch(/^decoder failure/)
  expect(e.offset).toBeGreaterThanOrEqual(0)
  expect(e.offset).toBeLessThanOrEqual(bytes.length)
  return { error: e, tree }
}

const msg = (bytes: Uint8Array, v: GpVersion, read: Reader = readTypedValue, o?: GpOptions) => failOf(bytes, (r) => read(r, v, o)).error.message

describe.each([16, 18] as const)('Protocol%i: truncation', (v) => {
  it.each(BODIES)('$name: fails cleanly at every cut, keeping a well-formed partial tree', ({ read, make, code }) => {
    const full = make(v)
    const whole = run(full, (r) => read(r, v))
    expect(whole.pos).toBe(full.length)
    const fullParams = (whole.value as { parameters?: Map<string, PV> }).parameters
    for (let cut = 0; cut < full.length; cut++) {
      const bytes = full.subarray(0, cut)
      const { error, tree } = failOf(bytes, (r) => read(r, v))
      expect(error.offset, `cut ${cut}`).toBeLessThanOrEqual(cut)
      // every node lies inside the bytes present; the roots tile what was read
      for (const n of allNodes(tree)) expect(n.start! + n.length!, `${n.key} at cut ${cut}`).toBeLessThanOrEqual(cut)
      if (tree.length) checkTiling(tree, 0, tree[tree.length - 1].start! + tree[tree.length - 1].length!)
      // the row pass fails the same way
      expect(failOf(bytes, (r) => read(r, v), false).error.message).toBe(error.message)
      // message readers keep the code and the parameters read completely
      const partial = partialBody(error)
      if (code !== undefined && fullParams && cut >= (read === readDisconnectMessage ? 2 : 1)) {
        expect(partial?.code).toBe(code)
        const got = [...partial!.parameters]
        expect(got).toEqual([...fullParams].slice(0, got.length))
      }
    }
  })
})

describe('lying counts and lengths', () => {
  it('checks counts against the bytes present before looping (Protocol16 i16/i32 counts)', () => {
    expect(msg(unhex('01 7fff 0102'), 16, readEvent)).toBe('parameter table claims 32767 elements (at least 65534 bytes) but only 2 bytes follow at offset 1')
    expect(msg(unhex('68 7fff 00'), 16)).toBe('Hashtable claims 32767 elements (at least 65534 bytes) but only 1 bytes follow at offset 1')
    expect(msg(unhex('7a 7fff'), 16)).toBe('object[] claims 32767 elements (at least 32767 bytes) but only 0 bytes follow at offset 1')
    expect(msg(unhex('61 0100 0000'), 16)).toBe('string[] claims 256 elements (at least 512 bytes) but only 2 bytes follow at offset 1')
    expect(msg(unhex('6e 7fffffff 00000001'), 16)).toBe('int[] claims 2147483647 elements (at least 8589934588 bytes) but only 4 bytes follow at offset 1')
    expect(msg(unhex('79 7fff 6c 00'), 16)).toBe('Array claims 32767 elements (at least 262136 bytes) but only 1 bytes follow at offset 1')
    expect(msg(unhex('44 73 69 7fff'), 16)).toBe('Dictionary claims 32767 elements (at least 196602 bytes) but only 0 bytes follow at offset 3')
    expect(msg(unhex('78 7fffffff 00'), 16)).toBe('byte[]: needs 2147483647 bytes at offset 5, only 1 present')
    expect(msg(unhex('73 0010 61'), 16)).toBe('string: needs 16 bytes at offset 3, only 1 present')
  })

  it('rejects negative Protocol16 counts and lengths', () => {
    expect(msg(unhex('01 ffff'), 16, readEvent)).toBe('parameter count -1 is negative at offset 1')
    expect(msg(unhex('73 ffff'), 16)).toBe('string length -1 is negative at offset 1')
    expect(msg(unhex('78 ffffffff'), 16)).toBe('byte[] length -1 is negative at offset 1')
    expect(msg(unhex('6e 80000000'), 16)).toBe('int[] count -2147483648 is negative at offset 1')
    expect(msg(unhex('63 56 fff0'), 16)).toBe('custom type 86 length -16 is negative at offset 2')
    expect(msg(unhex('7a ffff'), 16)).toBe('object[] count -1 is negative at offset 1')
  })

  it('checks Protocol18 varint counts up to 2^32 and beyond before looping', () => {
    const big = [...varint(2 ** 32)]
    const at = (code: number, ...rest: number[]) => Uint8Array.from([code, ...rest])
    expect(msg(at(0x17, ...big), 18)).toBe('object[] claims 4294967296 elements (at least 4294967296 bytes) but only 0 bytes follow at offset 1')
    expect(msg(at(0x15, ...big, 0x1c), 18)).toBe('Hashtable claims 4294967296 elements (at least 8589934592 bytes) but only 1 bytes follow at offset 1')
    expect(msg(at(0x47, ...big), 18)).toBe('string[] claims 4294967296 elements (at least 4294967296 bytes) but only 0 bytes follow at offset 1')
    expect(msg(at(0x46, ...big), 18)).toBe('double[] claims 4294967296 elements (at least 34359738368 bytes) but only 0 bytes follow at offset 1')
    expect(msg(at(0x40, ...big), 18)).toBe('array of arrays claims 4294967296 elements (at least 4294967296 bytes) but only 0 bytes follow at offset 1')
    expect(msg(at(0x55, ...big), 18)).toBe('Hashtable[] claims 4294967296 elements (at least 4294967296 bytes) but only 0 bytes follow at offset 1')
    expect(msg(at(0x53, ...big, 0x56), 18)).toBe('custom type array claims 4294967296 elements (at least 4294967296 bytes) but only 0 bytes follow at offset 1')
    expect(msg(at(0x54, 0x07, 0x09, ...big), 18)).toBe(
      'Dictionary[] claims 4294967296 elements (at least 4294967296 bytes) but only 0 bytes follow at offset 3'
    )
    expect(msg(at(0x42, ...big), 18)).toBe('bool[] claims 4294967296 elements (536870912 bytes) but only 0 bytes follow at offset 1')
    expect(msg(at(0x43, ...big), 18)).toBe('byte[]: needs 4294967296 bytes at offset 6, only 0 present')
    expect(msg(at(0x07, ...big, 0x41), 18)).toBe('string: needs 4294967296 bytes at offset 6, only 1 present')
    expect(msg(at(0xd6, ...big), 18)).toBe('custom type payload: needs 4294967296 bytes at offset 6, only 0 present')
    expect(msg(unhex('01 ff 00'), 18, readEvent)).toBe('parameter table claims 255 elements (at least 510 bytes) but only 1 bytes follow at offset 1')
  })
})

describe('unknown type codes', () => {
  it.each([
    [16, '01', 'unknown Protocol16 type code 0x01 (1) at offset 0'],
    [16, '7b', 'unknown Protocol16 type code 0x7b (123) at offset 0'],
    [16, '02', 'unknown Protocol16 type code 0x02 (2) at offset 0'], // a Protocol18 bool
    [16, '79 0001 01', 'unknown Protocol16 type code 0x01 (1) at offset 3'],
    [16, '44 01 00 0000', 'unknown Protocol16 type code 0x01 (1) at offset 1'],
    [18, '01', 'unknown Protocol18 type code 0x01 (1) at offset 0'],
    [18, '16', 'unknown Protocol18 type code 0x16 (22) at offset 0'],
    [18, '23', 'unknown Protocol18 type code 0x23 (35) at offset 0'],
    [18, '41', 'unknown Protocol18 type code 0x41 (65) at offset 0'],
    [18, '48', 'unknown Protocol18 type code 0x48 (72) at offset 0'],
    [18, '69 00000001', 'unknown Protocol18 type code 0x69 (105) at offset 0'], // a Protocol16 int
    [18, 'e5 00', 'unknown Protocol18 type code 0xe5 (229) at offset 0'],
    [18, 'ff', 'unknown Protocol18 type code 0xff (255) at offset 0'],
    [18, '14 07 40 40 41', 'unknown Protocol18 type code 0x41 (65) at offset 4'],
    [18, '14 07 14 00 16', 'unknown Protocol18 type code 0x16 (22) at offset 4']
  ] as const)('Protocol%i %s', (v, hexText, expected) => {
    expect(msg(unhex(hexText), v)).toBe(expected)
  })

  it('accepts any known code as a fixed dictionary key type (0x99 is a slim custom code)', () => {
    expect(run(unhex('14 99 00 00'), (r) => readTypedValue(r, 18)).value).toEqual({ type: 'Dictionary', keyType: 'Custom', valueType: 'Object', value: [] })
  })

  it('keeps the parameters before an unknown type code, in the tree and in the partial body', () => {
    const bytes = unhex('05 0003 01 69 00000001 02 73 0002 6869 03 7b 00')
    const { error, tree } = failOf(bytes, (r) => readEvent(r, 16))
    expect(error.message).toBe('unknown Protocol16 type code 0x7b (123) at offset 16')
    expect(partialBody(error)).toEqual({
      code: 5,
      parameters: pv.params([
        [1, pv.int(1)],
        [2, pv.str('hi')]
      ])
    })
    expect(find(tree, 'photon.param.1').value).toBe(1)
    expect(find(tree, 'photon.param.2').label).toBe('Parameter 2: String "hi"')
    expect(find(tree, 'photon.param.3')).toMatchObject({ label: 'Parameter 3: (incomplete)', start: 15, length: 2 })
  })
})

describe('bombs', () => {
  const nested = (v: GpVersion, levels: number, wrap: (x: PV) => PV): Uint8Array => {
    let x: PV = pv.int(1)
    for (let i = 0; i < levels; i++) x = wrap(x)
    return valueBytes(v, x)
  }

  it.each([16, 18] as const)('Protocol%i: caps nesting depth (default 32)', (v) => {
    const objs = nested(v, 40, (x) => pv.objs(x))
    const step = v === 16 ? 3 : 2 // type byte + count
    expect(msg(objs, v)).toBe(`nesting deeper than 32 at offset ${step * 32 + 1}`)
    expect(run(objs, (r) => readTypedValue(r, v, { maxDepth: 64 })).pos).toBe(objs.length)
    expect(msg(objs, v, readTypedValue, { maxDepth: 10 })).toBe(`nesting deeper than 10 at offset ${step * 10 + 1}`)
    expect(
      msg(
        nested(v, 40, (x) => pv.hash([pv.byte(1), x])),
        v
      )
    ).toMatch(/^nesting deeper than 32 at offset \d+$/)
    expect(
      msg(
        nested(v, 40, (x) => pv.dict('Byte', 'Object', [pv.byte(1), x])),
        v
      )
    ).toMatch(/^nesting deeper than 32 at offset \d+$/)
    expect(
      msg(
        nested(v, 40, (x) => pv.event(1, [[1, x]])),
        v
      )
    ).toMatch(/^nesting deeper than 32 at offset \d+$/)
    expect(
      msg(
        nested(v, 40, (x) => pv.arr(v === 16 ? 'ObjectArray' : 'Object', pv.objs(x))),
        v
      )
    ).toMatch(/^nesting deeper than 32 at offset \d+$/)
  })

  it('stops a 100,000-level bomb without exhausting the stack', () => {
    const p18 = new Uint8Array(200_000).fill(0x01).map((b, i) => (i % 2 ? b : 0x17)) // 17 01 17 01 ...
    expect(msg(p18, 18)).toBe('nesting deeper than 32 at offset 65')
    const p16 = Uint8Array.from({ length: 300_000 }, (_, i) => [0x79, 0x00, 0x01][i % 3]) // 'y' count 1 of 'y' ...
    expect(msg(p16, 16)).toMatch(/^nesting deeper than 32 at offset \d+$/)
    const headers = Uint8Array.from([0x14, ...new Array(100_000).fill([0x00, 0x14]).flat()]) // nested dictionary headers
    expect(msg(headers, 18)).toBe('nesting deeper than 32 at offset 65')
    expect(
      msg(
        Uint8Array.from({ length: 1000 }, (_, i) => (i % 2 ? 0x01 : 0x40)),
        18
      )
    ).toBe('nesting deeper than 32 at offset 65')
  })

  it('caps zero-size values per call (Protocol16 arrays of null)', () => {
    // object[] of 40 arrays of 32767 nulls each: 4 bytes per million values
    const bytes = Uint8Array.from([0x7a, 0x00, 40, ...new Array(40).fill([0x79, 0x7f, 0xff, 0x2a]).flat()])
    expect(msg(bytes, 16)).toBe(`Array of 32767 zero-size elements exceeds the limit of 1000000 values per message at offset ${3 + 30 * 4 + 1}`)
    expect(msg(bytes, 16, readTypedValue, { maxValues: 40_000 })).toBe(
      'Array of 32767 zero-size elements exceeds the limit of 40000 values per message at offset 8'
    )
    const small = Uint8Array.from([0x79, 0x00, 0x03, 0x2a])
    expect(run(small, (r) => readTypedValue(r, 16)).value).toEqual(pv.arr('Null', pv.null(), pv.null(), pv.null()))
  })

  it('caps zero-size values per call (Protocol18 dictionaries of shortcuts, packed bools)', () => {
    const dict = Uint8Array.from([0x14, 0x1c, 0x1e, ...varint(2 ** 31)])
    expect(msg(dict, 18)).toBe('Dictionary of 2147483648 zero-size elements exceeds the limit of 1000000 values per message at offset 3')
    const bools = Uint8Array.from([0x42, ...varint(2000), ...new Array(250).fill(0xff)])
    expect(run(bools, (r) => readTypedValue(r, 18)).value).toEqual(pv.bools(new Array(2000).fill(true)))
    expect(msg(bools, 18, readTypedValue, { maxValues: 1000 })).toBe(
      'bool[] of 2000 zero-size elements exceeds the limit of 1000 values per message at offset 1'
    )
    // the cap is per call: two readers each get their own budget
    const half = Uint8Array.from([0x17, 0x02, 0x42, ...varint(600), ...new Array(75).fill(0), 0x42, ...varint(600), ...new Array(75).fill(0)])
    expect(msg(half, 18, readTypedValue, { maxValues: 1000 })).toBe(
      'bool[] of 600 zero-size elements exceeds the limit of 1000 values per message at offset 81'
    )
    expect(run(half.subarray(2, 80), (r) => readTypedValue(r, 18, { maxValues: 1000 })).pos).toBe(78)
  })
})

describe('varints', () => {
  it('rejects varints longer than 5 (32-bit) or 10 (64-bit) bytes', () => {
    expect(failOf(unhex('07 808080808001'), (r) => readTypedValue(r, 18)).error).toMatchObject({ message: 'Length: longer than 5 bytes', offset: 1 })
    expect(failOf(unhex('09 808080808001'), (r) => readTypedValue(r, 18)).error).toMatchObject({ message: 'varint: longer than 5 bytes', offset: 1 })
    expect(failOf(unhex('17 808080808001'), (r) => readTypedValue(r, 18)).error).toMatchObject({ message: 'Count: longer than 5 bytes', offset: 1 })
    expect(msg(unhex('0a 8080808080808080808001'), 18)).toBe('varint longer than 10 bytes at offset 1')
    expect(msg(unhex('4a 01 8080808080808080808001'), 18)).toBe('varint longer than 10 bytes at offset 2')
    expect(failOf(unhex('0a 8080'), (r) => readTypedValue(r, 18)).error).toMatchObject({
      message: 'varint: needs 1 bytes at offset 3, only 0 present',
      offset: 3
    })
  })

  it('keeps the low 32/64 bits of a full-length varint, as the SDK does', () => {
    expect(run(unhex('09 ffffffff0f'), (r) => readTypedValue(r, 18)).value).toEqual(pv.int(-2147483648))
    expect(run(unhex('09 ffffffff7f'), (r) => readTypedValue(r, 18)).value).toEqual(pv.int(-2147483648))
    expect(run(unhex('09 feffffff0f'), (r) => readTypedValue(r, 18)).value).toEqual(pv.int(2147483647))
    expect(run(unhex('0a ffffffffffffffffff01'), (r) => readTypedValue(r, 18)).value).toEqual(pv.long(-(2n ** 63n)))
    expect(run(unhex('0a ffffffffffffffffff7f'), (r) => readTypedValue(r, 18)).value).toEqual(pv.long(-(2n ** 63n)))
    expect(run(unhex('0a feffffffffffffffff01'), (r) => readTypedValue(r, 18)).value).toEqual(pv.long(2n ** 63n - 1n))
    // non-minimal encodings are accepted
    expect(run(unhex('09 8200'), (r) => readTypedValue(r, 18)).value).toEqual(pv.int(1))
    expect(run(unhex('0a 82808080808000'), (r) => readTypedValue(r, 18)).value).toEqual(pv.long(1n))
  })
})

describe('odd but decodable input', () => {
  it('replaces malformed UTF-8 instead of failing', () => {
    expect(run(unhex('73 0003 61ff62'), (r) => readTypedValue(r, 16)).value).toEqual(pv.str('a\ufffdb'))
    expect(run(unhex('07 02 c328'), (r) => readTypedValue(r, 18)).value).toEqual(pv.str('\ufffd('))
  })

  it('reads any byte other than 0 as true, and keeps a PUN code of the wrong size as bytes', () => {
    expect(run(unhex('6f 02'), (r) => readTypedValue(r, 16)).value).toEqual(pv.bool(true))
    expect(run(unhex('02 ff'), (r) => readTypedValue(r, 18)).value).toEqual(pv.bool(true))
    expect(run(unhex('d0 05 0000000700'), (r) => readTypedValue(r, 18)).value).toEqual(pv.custom(0x50, [0, 0, 0, 7, 0]))
  })
})

describe('random corruption', () => {
  it.each([16, 18] as const)('Protocol%i: never throws anything but DecodeError; the row pass agrees with the tree pass', (v) => {
    let seed = 0x5eed + v
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed)
    const readers: Reader[] = [readEvent, readOperationResponse, readOperationRequest, readTypedValue]
    const base = [
      eventBody(v, 200, RICH[v]),
      responseBody(v, 1, 0, pv.null(), RICH[v]),
      requestBody(v, 2, RICH[v]),
      Uint8Array.from(v === 16 ? enc16(pv.objs(...RICH[v].map((p) => p[1]))) : enc18(pv.objs(...RICH[v].map((p) => p[1]))))
    ]
    for (let n = 0; n < 1200; n++) {
      const k = n % 4
      const b = base[k].slice(0, 1 + (rnd() % base[k].length))
      for (let m = 0; m < 1 + (rnd() % 4); m++) b[rnd() % b.length] = rnd() & 0xff
      const outcome = (recording: boolean) => {
        try {
          return { ok: jsonText(run(b, (r) => readers[k](r, v), recording).value) }
        } catch (e) {
          expect(e).toBeInstanceOf(DecodeError)
          const d = e as DecodeError
          expect(d.message).not.toMatch(/^decoder failure/)
          expect(d.offset).toBeLessThanOrEqual(b.length)
          return { err: d.message }
        }
      }
      expect(outcome(false)).toEqual(outcome(true))
    }
  })
})
