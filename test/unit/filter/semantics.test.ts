import { describe, expect, test } from 'vitest'
import { compileFilter, targetFromMessage } from '../../../src-shared/filter'
import { defineField } from '../../../src-shared/bytes/fields'
import { m } from './helpers'

defineField('ft.op', 'Operation', 'u8', { names: { 1: 'Join', 2: 'Leave', 253: 'RaiseEvent', 254: 'Join Lobby' } })
defineField('ft.name', 'Name', 'string')
defineField('ft.data', 'Data', 'bytes')
defineField('ft.src', 'Source', 'u16')
defineField('ft.dst', 'Destination', 'u16')

describe('existence and logic', () => {
  test('a bare field or protocol tests presence, including subtrees', () => {
    expect(m('a', { a: [1] })).toBe(true)
    expect(m('a', { b: [1] })).toBe(false)
    expect(m('sfs2x.p', { 'sfs2x.p.c': ['move'] })).toBe(true)
    expect(m('sfs2x', { 'sfs2x.p.c': ['move'] })).toBe(true)
    expect(m('sfs2x.p.c.x', { 'sfs2x.p.c': ['move'] })).toBe(false)
    // a prefix must end at a dot: 'sfs' is not a prefix of 'sfs2x.p'
    expect(m('sfs', { 'sfs2x.p': [1] })).toBe(false)
  })

  test('empty expression matches everything', () => {
    expect(compileFilter('').matches({ values: () => [], has: () => false })).toBe(true)
    expect(compileFilter('   ').fields).toEqual([])
  })

  test('and/or/xor/not truth tables, symbolic and word forms', () => {
    const cases: [boolean, boolean][] = [
      [false, false],
      [false, true],
      [true, false],
      [true, true]
    ]
    for (const [a, b] of cases) {
      const f: Record<string, number[]> = {}
      if (a) f.a = [1]
      if (b) f.b = [1]
      expect(m('a and b', f)).toBe(a && b)
      expect(m('a && b', f)).toBe(a && b)
      expect(m('a or b', f)).toBe(a || b)
      expect(m('a || b', f)).toBe(a || b)
      expect(m('a xor b', f)).toBe(a !== b)
      expect(m('a ^^ b', f)).toBe(a !== b)
      expect(m('not a', f)).toBe(!a)
      expect(m('!a', f)).toBe(!a)
      expect(m('!!a', f)).toBe(a)
      expect(m('not not not a', f)).toBe(!a)
    }
  })

  test('precedence: not > and > xor > or', () => {
    // a or b and c == a or (b and c): with a=1, b=0, c=0 -> true ((a or b) and c would be false)
    expect(m('a or b and c', { a: [1] })).toBe(true)
    expect(m('(a or b) and c', { a: [1] })).toBe(false)
    // not a and b == (not a) and b: a=0,b=1 -> true; not (a and b) would also be true, so use a=1,b=0
    expect(m('not a and b', { a: [1] })).toBe(false)
    expect(m('not (a and b)', { a: [1] })).toBe(true)
    // a xor b and c == a xor (b and c): a=1,b=1,c=0 -> 1 xor 0 = true; (a xor b) and c = false
    expect(m('a xor b and c', { a: [1], b: [1] })).toBe(true)
    expect(m('(a xor b) and c', { a: [1], b: [1] })).toBe(false)
    // a or b xor c == a or (b xor c): a=1,b=1,c=1 -> true; (a or b) xor c = false
    expect(m('a or b xor c', { a: [1], b: [1], c: [1] })).toBe(true)
    expect(m('(a or b) xor c', { a: [1], b: [1], c: [1] })).toBe(false)
    // xor chains: 1 xor 1 xor 1 = 1
    expect(m('a xor b xor c', { a: [1], b: [1], c: [1] })).toBe(true)
    // long chains evaluate without recursion
    const long = Array.from({ length: 5000 }, (_, i) => `f${i}`).join(' or ')
    expect(m(long, { f4999: [1] })).toBe(true)
    expect(m(long, { g: [1] })).toBe(false)
  })

  test('referenced fields are listed once, in order', () => {
    expect(compileFilter('b == 1 and (a or b) and len(c) > 1 and ft.src == ft.dst', { anyField: true }).fields).toEqual(['b', 'a', 'c', 'ft.src', 'ft.dst'])
  })

  test('fields only tested for presence are told apart from fields whose values are read', () => {
    const only = (expr: string) => compileFilter(expr, { anyField: true }).presenceOnly
    expect(only('b == 1 and (a or b) and len(c) > 1 and ft.src == ft.dst')).toEqual(['a'])
    expect(only('a && !(b) || not c')).toEqual(['a', 'b', 'c'])
    // Every operator, function, slice and right-hand field reads values.
    for (const expr of [
      'a == 1',
      'a != 1',
      'a > 1',
      'a contains "x"',
      'a matches "x"',
      'a & 1',
      'a in {1 2}',
      'a not in {1 2}',
      'len(a)',
      'count(a)',
      'lower(a)',
      'a[0:1]',
      'x == a.b',
      'x.y contains a.b'
    ]) {
      expect(
        only(expr).filter((k) => k === 'a' || k === 'a.b'),
        expr
      ).toEqual([])
    }
    expect(only('a.b && a.b == 2')).toEqual([])
    expect(only('')).toEqual([])
  })
})

describe('comparison operators over occurrences', () => {
  const two = { p: [80, 443] }
  const one = { p: [80] }
  const none = {}

  test('== is "any equal"', () => {
    expect(m('p == 80', two)).toBe(true)
    expect(m('p == 443', two)).toBe(true)
    expect(m('p == 8080', two)).toBe(false)
    expect(m('p eq 443', two)).toBe(true)
    expect(m('p any_eq 443', two)).toBe(true)
    expect(m('p == 80', none)).toBe(false)
  })

  test('!= is "all not equal" and false when the field is absent', () => {
    expect(m('p != 80', two)).toBe(false)
    expect(m('p != 8080', two)).toBe(true)
    expect(m('p ne 8080', two)).toBe(true)
    expect(m('p all_ne 80', two)).toBe(false)
    expect(m('p != 80', none)).toBe(false)
    // the negation of == does match absent fields
    expect(m('!(p == 80)', none)).toBe(true)
  })

  test('~= and !== are "any not equal"', () => {
    expect(m('p ~= 80', two)).toBe(true)
    expect(m('p !== 80', two)).toBe(true)
    expect(m('p ~= 80', one)).toBe(false)
    expect(m('p any_ne 80', one)).toBe(false)
    expect(m('p ~= 80', none)).toBe(false)
  })

  test('=== is "all equal" and needs at least one occurrence', () => {
    expect(m('p === 80', two)).toBe(false)
    expect(m('p === 80', one)).toBe(true)
    expect(m('p === 80', { p: [80, 80] })).toBe(true)
    expect(m('p all_eq 80', one)).toBe(true)
    expect(m('p === 80', none)).toBe(false)
  })

  test('ordering is "any"', () => {
    expect(m('p < 100', two)).toBe(true)
    expect(m('p > 100', two)).toBe(true)
    expect(m('p > 443', two)).toBe(false)
    expect(m('p >= 443', two)).toBe(true)
    expect(m('p <= 79', two)).toBe(false)
    expect(m('p lt 81', two)).toBe(true)
    expect(m('p gt 442', two)).toBe(true)
    expect(m('p le 80', two)).toBe(true)
    expect(m('p ge 444', two)).toBe(false)
    expect(m('p < 100', none)).toBe(false)
  })

  test('field compared with field', () => {
    expect(m('ft.src == ft.dst', { 'ft.src': [5055], 'ft.dst': [5055] })).toBe(true)
    expect(m('ft.src == ft.dst', { 'ft.src': [1, 2], 'ft.dst': [3, 2] })).toBe(true)
    expect(m('ft.src != ft.dst', { 'ft.src': [1, 2], 'ft.dst': [3, 2] })).toBe(false)
    expect(m('ft.src != ft.dst', { 'ft.src': [1], 'ft.dst': [3] })).toBe(true)
    expect(m('ft.src < ft.dst', { 'ft.src': [4], 'ft.dst': [3] })).toBe(false)
    expect(m('ft.src > ft.dst', { 'ft.src': [4], 'ft.dst': [3] })).toBe(true)
    expect(m('ft.src == ft.dst', { 'ft.src': [1] })).toBe(false)
    // dotted words on the right are fields even when not registered (dynamic tree keys)
    expect(m('x.a == x.b', { 'x.a': [1, 2], 'x.b': [2] })).toBe(true)
    expect(m('x.a === x.b', { 'x.a': [2, 2], 'x.b': [2] })).toBe(true)
    expect(m('x.a ~= x.b', { 'x.a': [2, 2], 'x.b': [2] })).toBe(false)
    expect(m('x.a contains x.b', { 'x.a': ['hello'], 'x.b': ['ell'] })).toBe(true)
    expect(m('ft.src != ft.dst', { 'ft.src': [1] })).toBe(false)
  })
})

describe('value types', () => {
  test('integers: decimal, hex, binary, negative, floats', () => {
    expect(m('a == 0x1f', { a: [31] })).toBe(true)
    expect(m('a == 0X1F', { a: [31] })).toBe(true)
    expect(m('a == 0b101', { a: [5] })).toBe(true)
    expect(m('a == -3', { a: [-3] })).toBe(true)
    expect(m('a == -0x10', { a: [-16] })).toBe(true)
    expect(m('a > -1', { a: [0] })).toBe(true)
    expect(m('a == 1.5', { a: [1.5] })).toBe(true)
    expect(m('a < 1.5', { a: [1] })).toBe(true)
    expect(m('a == 1', { a: [1.0000001] })).toBe(false)
    expect(m('a == 2e3', { a: [2000] })).toBe(true)
  })

  test('bigint values compare exactly with 64-bit literals', () => {
    const big = { a: [9007199254740993n] } // 2^53 + 1, not representable as a double
    expect(m('a == 9007199254740993', big)).toBe(true)
    expect(m('a == 9007199254740992', big)).toBe(false)
    expect(m('a > 9007199254740992', big)).toBe(true)
    expect(m('a == 0x20000000000001', big)).toBe(true)
    const max = { a: [18446744073709551615n] }
    expect(m('a == 0xffffffffffffffff', max)).toBe(true)
    expect(m('a == 18446744073709551614', max)).toBe(false)
    expect(m('a == -9223372036854775808', { a: [-9223372036854775808n] })).toBe(true)
    // bigint vs small literal, and vs a float
    expect(m('a == 5', { a: [5n] })).toBe(true)
    expect(m('a < 5.5', { a: [5n] })).toBe(true)
    expect(m('a > 5.5', { a: [5n] })).toBe(false)
    expect(m('a == 5.5', { a: [5n] })).toBe(false)
    expect(m('a > 4.5', { a: [5n] })).toBe(true)
    // a number value against a huge literal
    expect(m('a < 18446744073709551615', { a: [2e19] })).toBe(false) // 2^64-1 is about 1.8e19
    expect(m('a < 18446744073709551615', { a: [1e19] })).toBe(true)
    // 2^64 as a double is not equal to 2^64-1 (a double comparison would round the literal to 2^64)
    expect(m('a == 18446744073709551615', { a: [2 ** 64] })).toBe(false)
    expect(m('a > 18446744073709551615', { a: [2 ** 64] })).toBe(true)
  })

  test('strings: exact ==, ordering, contains; numbers stay strict', () => {
    const s = { n: ['move', 'Hello World'] }
    expect(m('n == "move"', s)).toBe(true)
    expect(m('n == "Move"', s)).toBe(false)
    expect(m('n contains "lo W"', s)).toBe(true)
    expect(m('n contains "xyz"', s)).toBe(false)
    expect(m('n > "a"', { n: ['b'] })).toBe(true)
    expect(m('n < "a"', { n: ['b'] })).toBe(false)
    expect(m('n == 5', { n: ['5'] })).toBe(false)
    expect(m('n != 5', { n: ['5'] })).toBe(true) // present and not equal (strict types)
    expect(m('a == "5"', { a: [5] })).toBe(false)
    expect(m('a contains "5"', { a: [5] })).toBe(false)
    expect(m('n contains 6d:6f', s)).toBe(true) // bytes of "mo"
  })

  // As docs/filter-language.md defines it (the empty string is a substring of every string). Wireshark
  // differs: tshark 4.0.17 -Y 'http.host contains ""' matches no packet; the doc lists the difference.
  test('contains "": true for every string and byte-array occurrence, empty ones included; never for a number or an absent field', () => {
    expect(m('n contains ""', { n: ['move'] })).toBe(true)
    expect(m('n contains ""', { n: [''] })).toBe(true)
    expect(m('d contains ""', { d: [new Uint8Array([1, 2])] })).toBe(true)
    expect(m('d contains ""', { d: [new Uint8Array(0)] })).toBe(true)
    expect(m('a contains ""', { a: [5] })).toBe(false)
    expect(m('a contains ""', { a: [true] })).toBe(false)
    expect(m('a contains ""', { b: ['x'] })).toBe(false)
    expect(m('!(a contains "")', { b: ['x'] })).toBe(true)
    // field against field: an empty string occurrence on the right is contained too
    expect(m('x.a contains x.b', { 'x.a': ['hello'], 'x.b': [''] })).toBe(true)
    expect(m('x.a contains x.b', { 'x.a': [7], 'x.b': [''] })).toBe(false)
  })

  test('unquoted strings are accepted for registered string fields', () => {
    expect(m('ft.name == move', { 'ft.name': ['move'] })).toBe(true)
    expect(m('ft.name contains ov', { 'ft.name': ['move'] })).toBe(true)
  })

  test('booleans, and 0/1 against booleans', () => {
    expect(m('b == true', { b: [true] })).toBe(true)
    expect(m('b == false', { b: [true] })).toBe(false)
    expect(m('b == 1', { b: [true] })).toBe(true)
    expect(m('b == 0', { b: [false] })).toBe(true)
    expect(m('b != 1', { b: [false] })).toBe(true)
    expect(m('a == true', { a: [1] })).toBe(false)
  })

  test('null values exist but equal nothing', () => {
    expect(m('z', { z: [null] })).toBe(true)
    expect(m('z == 0', { z: [null] })).toBe(false)
    expect(m('z != 0', { z: [null] })).toBe(true)
  })

  test('byte arrays: ==, ordering, contains, against bytes and strings', () => {
    const d = { d: [new Uint8Array([0xaa, 0xbb, 0xcc, 0x41, 0x42])] }
    expect(m('d == aa:bb:cc:41:42', d)).toBe(true)
    expect(m('d == AA-BB-CC-41-42', d)).toBe(true)
    expect(m('d == aa.bb.cc.41.42', d)).toBe(true)
    expect(m('d == aa:bb:cc', d)).toBe(false)
    expect(m('d contains bb:cc', d)).toBe(true)
    expect(m('d contains cc:bb', d)).toBe(false)
    expect(m('d contains "AB"', d)).toBe(true)
    expect(m('d contains "\\xcc\\x41"', d)).toBe(true) // raw bytes escapes
    expect(m('d contains "ab"', d)).toBe(false)
    expect(m('d > aa:bb', d)).toBe(true) // longer with equal prefix sorts after
    expect(m('d < aa:bc', d)).toBe(true)
    expect(m('d == "\\xaa"', { d: [new Uint8Array([0xaa])] })).toBe(true)
    expect(m('d == 12', { d: [new Uint8Array([0x12])] })).toBe(true) // two hex digits are a byte
    expect(m('d contains 12.34', { d: [new Uint8Array([0, 0x12, 0x34])] })).toBe(true)
    expect(m('d == ff', { d: [new Uint8Array([0xff])] })).toBe(true) // bare two-hex-digit word
    const u = { 'ft.data': [new TextEncoder().encode('héllo')] }
    expect(m('ft.data contains "él"', u)).toBe(true)
  })

  test('matches: JS regex, case-sensitive unless (?i)', () => {
    const s = { n: ['Hello World'] }
    expect(m('n matches "^Hel+o"', s)).toBe(true)
    expect(m('n matches "^hello"', s)).toBe(false)
    expect(m('n matches "(?i)^hello"', s)).toBe(true)
    expect(m('n ~ "World$"', s)).toBe(true)
    expect(m('n matches r"\\bWor"', s)).toBe(true)
    expect(m('n matches "(?s)Hello.World"', s)).toBe(true)
    expect(m('n matches "(?-i)hello"', s)).toBe(false)
    expect(m('a matches "1"', { a: [1] })).toBe(false)
    expect(m('d matches "\\\\x00\\\\xffA"', { d: [new Uint8Array([0, 0xff, 0x41])] })).toBe(true)
    // stateless across calls (no g flag)
    const f = compileFilter('n matches "o"', { anyField: true })
    const t = targetFromMessage({ tree: [], protocol: '', stack: [] }, s)
    expect([f.matches(t), f.matches(t), f.matches(t)]).toEqual([true, true, true])
  })

  test('bitwise and tests for any set bit', () => {
    expect(m('f & 0x02', { f: [0x12] })).toBe(true)
    expect(m('f & 0x04', { f: [0x12] })).toBe(false)
    expect(m('f bitwise_and 16', { f: [0x12] })).toBe(true)
    expect(m('f & 0x8000000000000000', { f: [0x8000000000000001n] })).toBe(true)
    expect(m('f & 0x100000000', { f: [2 ** 32] })).toBe(true)
    expect(m('f & 1', { f: [true] })).toBe(true)
  })
})

describe('named values', () => {
  test('a bare word resolves through the registry, case-insensitively', () => {
    expect(m('ft.op == RaiseEvent', { 'ft.op': [253] })).toBe(true)
    expect(m('ft.op == raiseevent', { 'ft.op': [253] })).toBe(true)
    expect(m('ft.op == RAISEEVENT', { 'ft.op': [252] })).toBe(false)
    expect(m('ft.op != Join', { 'ft.op': [2] })).toBe(true)
    expect(m('ft.op in {Join Leave}', { 'ft.op': [2] })).toBe(true)
    expect(m('ft.op in {Join, RaiseEvent}', { 'ft.op': [2] })).toBe(false)
    // names with spaces match with the spaces left out
    expect(m('ft.op == JoinLobby', { 'ft.op': [254] })).toBe(true)
    expect(m('ft.op > Leave', { 'ft.op': [3] })).toBe(true)
  })

  test('numbers still work on named fields', () => {
    expect(m('ft.op == 253', { 'ft.op': [253] })).toBe(true)
  })
})

describe('in sets', () => {
  test('values, optional commas, ranges, strings', () => {
    expect(m('p in {80 443 8080}', { p: [443] })).toBe(true)
    expect(m('p in {80, 443, 8080}', { p: [81] })).toBe(false)
    expect(m('p in {1..5}', { p: [1] })).toBe(true)
    expect(m('p in {1..5}', { p: [5] })).toBe(true)
    expect(m('p in {1..5}', { p: [6] })).toBe(false)
    expect(m('p in {1..5 10}', { p: [10] })).toBe(true)
    expect(m('p in {1.5..2.5}', { p: [2] })).toBe(true)
    expect(m('n in {"a" "b"}', { n: ['b'] })).toBe(true)
    expect(m('n in {"a".."c"}', { n: ['b'] })).toBe(true)
    expect(m('p in {1 2}', { p: [3, 2] })).toBe(true) // any occurrence
    expect(m('p in {1 2}', {})).toBe(false)
  })

  test('not in: present and no occurrence in the set', () => {
    expect(m('p not in {1 2}', { p: [3] })).toBe(true)
    expect(m('p not in {1 2}', { p: [3, 2] })).toBe(false)
    expect(m('p not in {1 2}', {})).toBe(false)
    expect(m('not p in {1 2}', {})).toBe(true)
  })
})

describe('IP addresses', () => {
  test('IPv4 equality and CIDR', () => {
    const ip = { 'ip.addr': ['192.168.1.20', '10.1.2.3'] }
    expect(m('ip.addr == 10.1.2.3', ip)).toBe(true)
    expect(m('ip.addr == 10.1.2.4', ip)).toBe(false)
    expect(m('ip.addr == 10.0.0.0/8', ip)).toBe(true)
    expect(m('ip.addr == 192.168.0.0/16', ip)).toBe(true)
    expect(m('ip.addr == 192.168.1.16/30', ip)).toBe(false) // .16-.19
    expect(m('ip.addr == 192.168.1.20/30', ip)).toBe(true)
    expect(m('ip.addr != 172.16.0.0/12', ip)).toBe(true)
    expect(m('ip.addr != 10.0.0.0/8', ip)).toBe(false)
    expect(m('ip.addr in {172.16.0.0/12 10.0.0.0/8}', ip)).toBe(true)
    expect(m('ip.addr == 0.0.0.0/0', ip)).toBe(true)
    expect(m('ip.addr > 192.168.1.19', { 'ip.addr': ['192.168.1.20'] })).toBe(true)
    expect(m('ip.addr == 10.1.2.3', { 'ip.addr': ['::1'] })).toBe(false)
  })

  test('IPv6 compares as addresses, not text', () => {
    expect(m('ip.addr == ::1', { 'ip.addr': ['::1'] })).toBe(true)
    expect(m('ip.addr == ::1', { 'ip.addr': ['0:0:0:0:0:0:0:1'] })).toBe(true)
    expect(m('ip.addr == FE80::1', { 'ip.addr': ['fe80::1'] })).toBe(true)
    expect(m('ip.addr == 2001:db8::/32', { 'ip.addr': ['2001:db8:1::5'] })).toBe(true)
    expect(m('ip.addr == 2001:db8::/32', { 'ip.addr': ['2001:db9::5'] })).toBe(false)
    expect(m('ip.addr == ::ffff:10.0.0.1', { 'ip.addr': ['::ffff:a00:1'] })).toBe(true)
    expect(m('ip.addr == 1:2:3:4:5:6:7:8', { 'ip.addr': ['1:2:3:4:5:6:7:8'] })).toBe(true)
  })
})

describe('slices and functions', () => {
  const d = { d: [new Uint8Array([1, 2, 3, 4, 5])] }
  test('slice forms', () => {
    expect(m('d[0:2] == 01:02', d)).toBe(true)
    expect(m('d[1-3] == 02:03:04', d)).toBe(true)
    expect(m('d[2] == 03', d)).toBe(true)
    expect(m('d[:1] == 01', d)).toBe(true)
    expect(m('d[3:] == 04:05', d)).toBe(true)
    expect(m('d[-2:] == 04:05', d)).toBe(true)
    expect(m('d[-1] == 05', d)).toBe(true)
    expect(m('d[0:1,4] == 01:05', d)).toBe(true)
    expect(m('d[4:2] == 05', d)).toBe(false) // out of range: no value
    expect(m('d[4:2]', d)).toBe(false)
    expect(m('d[0:5]', d)).toBe(true)
    expect(m('n[0:2] == "mo"', { n: ['move'] })).toBe(true)
  })

  test('len, count, lower, upper', () => {
    expect(m('len(d) == 5', d)).toBe(true)
    expect(m('len(n) > 3', { n: ['ab', 'abcd'] })).toBe(true)
    expect(m('count(p) == 2', { p: [1, 2] })).toBe(true)
    expect(m('count(p) == 0', {})).toBe(true)
    expect(m('lower(n) == "move"', { n: ['MoVe'] })).toBe(true)
    expect(m('upper(n) contains "OV"', { n: ['MoVe'] })).toBe(true)
    expect(m('lower(n) == move', { n: ['MoVe'] })).toBe(true)
    expect(m('len(d[1:])== 4', d)).toBe(true)
    expect(m('len(n) == 3', { n: ['h\u{1F600}!'] })).toBe(true) // characters, not UTF-16 units
  })
})

describe('targetFromMessage', () => {
  const msg = {
    protocol: 'photon',
    stack: ['udp', 'photon'],
    tree: [
      {
        key: 'photon.cmd',
        label: 'Command',
        type: 'none',
        children: [
          { key: 'photon.cmd.type', label: 'Type', type: 'u8', value: 6 },
          { key: 'photon.op.code', label: 'Op', type: 'u8', value: 253 },
          {
            key: 'photon.param',
            label: 'Param',
            type: 'none',
            children: [
              { key: 'photon.param.key', label: 'k', type: 'u8', value: 245 },
              { key: 'photon.param.key', label: 'k', type: 'u8', value: 244 }
            ]
          }
        ]
      },
      { key: 'photon.cmd.type', label: 'Type', type: 'u8', value: 7 }
    ]
  }
  const t = targetFromMessage(msg, { 'udp.port': [5055, 50000], 'frame.number': [3] })

  test('values in tree order, presence for value-less nodes and prefixes', () => {
    expect(t.values('photon.cmd.type')).toEqual([6, 7])
    expect(t.values('photon.param.key')).toEqual([245, 244])
    expect(t.values('photon.cmd')).toEqual([])
    expect(t.has('photon.cmd')).toBe(true)
    expect(t.has('photon.param')).toBe(true)
    expect(t.has('photon.op')).toBe(true)
    expect(t.has('photon.op.code')).toBe(true)
    expect(t.has('photon.op.codes')).toBe(false)
    expect(t.has('sfs2x')).toBe(false)
  })

  test('protocol and stack layers are present with value true; extra is merged', () => {
    expect(t.has('udp')).toBe(true)
    expect(t.values('photon')).toEqual([true])
    expect(t.values('udp')).toEqual([true])
    expect(t.values('udp.port')).toEqual([5055, 50000])
    expect(t.values('frame.number')).toEqual([3])
  })

  test('filters over a real message', () => {
    const f = (e: string) => compileFilter(e, { anyField: true }).matches(t)
    expect(f('photon && photon.cmd.type == 6 && photon.op.code == 253')).toBe(true)
    expect(f('photon.cmd.type === 6')).toBe(false)
    expect(f('udp.port == 5055 and frame.number < 10')).toBe(true)
    expect(f('photon.param.key in {244 245} and not sfs2x')).toBe(true)
    expect(f('photon.param')).toBe(true)
    expect(f('tcp')).toBe(false)
  })
})

describe('bare words against string fields', () => {
  test('a dot-less word is a string even if a field of that name is registered', () => {
    defineField('ftproto', 'A protocol', 'none')
    expect(m('ft.name == ftproto', { 'ft.name': ['ftproto'] })).toBe(true)
    expect(m('ft.name == ftproto', { 'ft.name': ['x'], ftproto: [true] })).toBe(false)
  })
})

describe('examples from docs/filter-language.md', () => {
  test.each([
    'sfs2x.cmd == "move" or sfs2x.cmd contains "chat"',
    'fignet.msg_id in {60000..60010} and not gamewire.error',
    'ip.addr == 10.0.0.0/8 && frame.number > 100',
    'fignet.payload[0:2] == 01:00',
    'sfs2x.p.c[0:2] == "mo"',
    'count(photon.key) > 5',
    '!(ip.addr == 10.0.0.1)',
    'udp.srcport == udp.dstport'
  ])('%s compiles', (e) => {
    // Names are checked against the real decoders in names-types.test.ts.
    expect(() => compileFilter(e, { anyField: true })).not.toThrow()
  })
})
