import { describe, expect, test } from 'vitest'
import { tokenize } from '../../../src-shared/filter'
import { defineField } from '../../../src-shared/bytes/fields'

defineField('tok.known', 'Known', 'u16')

const brief = (expr: string) => tokenize(expr).map((t) => [t.kind, t.start, t.end, expr.slice(t.start, t.end)])

describe('tokenize', () => {
  test('ranges and kinds of a mixed expression', () => {
    const e = 'photon.op.code == 0x10 && !(udp.port in {1..5, 7})'
    expect(brief(e)).toEqual([
      ['field', 0, 14, 'photon.op.code'],
      ['operator', 15, 17, '=='],
      ['number', 18, 22, '0x10'],
      ['keyword', 23, 25, '&&'],
      ['keyword', 26, 27, '!'],
      ['paren', 27, 28, '('],
      ['field', 28, 36, 'udp.port'],
      ['keyword', 37, 39, 'in'],
      ['brace', 40, 41, '{'],
      ['number', 41, 42, '1'],
      ['operator', 42, 44, '..'],
      ['number', 44, 45, '5'],
      ['comma', 45, 46, ','],
      ['number', 47, 48, '7'],
      ['brace', 48, 49, '}'],
      ['paren', 49, 50, ')']
    ])
  })

  test('operators, longest match first', () => {
    const e = 'a===1 b!==2 c~=3 d!=4 e<=5 f>=6 g<7 h>8 i&9 j~"x"'
    const ops = tokenize(e)
      .filter((t) => t.kind === 'operator')
      .map((t) => [t.text, t.op])
    expect(ops).toEqual([
      ['===', '==='],
      ['!==', '~='],
      ['~=', '~='],
      ['!=', '!='],
      ['<=', '<='],
      ['>=', '>='],
      ['<', '<'],
      ['>', '>'],
      ['&', '&'],
      ['~', 'matches']
    ])
  })

  test('word operators and keywords normalise', () => {
    const toks = tokenize('a eq 1 and b ne 2 or c gt 3 xor not d contains "x" && e matches "y" || f in {1}')
    const words = toks.filter((t) => t.kind === 'operator' || t.kind === 'keyword').map((t) => t.op)
    expect(words).toEqual(['==', 'and', '!=', 'or', '>', 'xor', 'not', 'contains', 'and', 'matches', 'or', 'in'])
  })

  test('literals: negative, float, bytes, addresses, CIDR, strings', () => {
    const e = '-5 1.5 aa:bb:cc aa-bb aa.bb.cc 10.0.0.1 10.0.0.0/8 ::1 fe80::1 2001:db8::/32 "q\\"x" r"\\d+"'
    expect(tokenize(e).map((t) => [t.kind, e.slice(t.start, t.end)])).toEqual([
      ['number', '-5'],
      ['number', '1.5'],
      ['bytes', 'aa:bb:cc'],
      ['bytes', 'aa-bb'],
      ['bytes', 'aa.bb.cc'],
      ['address', '10.0.0.1'],
      ['address', '10.0.0.0/8'],
      ['address', '::1'],
      ['address', 'fe80::1'],
      ['address', '2001:db8::/32'],
      ['string', '"q\\"x"'],
      ['string', 'r"\\d+"']
    ])
  })

  test('string escapes decode to text and bytes', () => {
    const [t] = tokenize('"a\\tb\\x41\\101\\u00e9\\\\"')
    expect(t.kind).toBe('string')
    expect(t.str).toBe('a\tbAA\u00e9\\')
    // é is UTF-8 c3 a9; \x41 and \101 are raw bytes
    expect([...t.strBytes!]).toEqual([0x61, 0x09, 0x62, 0x41, 0x41, 0xc3, 0xa9, 0x5c])
    const [raw] = tokenize('r"\\d\\"x"')
    expect(raw.str).toBe('\\d\\"x')
    const [hi] = tokenize('"\\xff"')
    expect([...hi.strBytes!]).toEqual([0xff])
  })

  test('bare words in value position are names unless they are registered fields', () => {
    const e = 'x.y == RaiseEvent or x.y in {Join Leave} or x.y == tok.known or Foo'
    const kinds = tokenize(e).map((t) => [t.kind, t.text])
    expect(kinds).toEqual([
      ['field', 'x.y'],
      ['operator', '=='],
      ['name', 'RaiseEvent'],
      ['keyword', 'or'],
      ['field', 'x.y'],
      ['keyword', 'in'],
      ['brace', '{'],
      ['name', 'Join'],
      ['name', 'Leave'],
      ['brace', '}'],
      ['keyword', 'or'],
      ['field', 'x.y'],
      ['operator', '=='],
      ['field', 'tok.known'],
      ['keyword', 'or'],
      ['field', 'Foo']
    ])
  })

  test('functions are recognised only before "("', () => {
    expect(tokenize('len(a) > 1 and len').map((t) => t.kind)).toEqual(['function', 'paren', 'field', 'paren', 'operator', 'number', 'keyword', 'field'])
  })

  test('slices', () => {
    expect(brief('f[ -4: ]')).toEqual([
      ['field', 0, 1, 'f'],
      ['bracket', 1, 2, '['],
      ['slice', 3, 6, '-4:'],
      ['bracket', 7, 8, ']']
    ])
  })

  test('errors are tokens, never exceptions', () => {
    const e = 'a = 1 @ "open'
    expect(brief(e)).toEqual([
      ['field', 0, 1, 'a'],
      ['error', 2, 3, '='],
      ['number', 4, 5, '1'],
      ['error', 6, 7, '@'],
      ['error', 8, 13, '"open']
    ])
    const toks = tokenize(e)
    expect(toks[1].error).toBe("unknown operator '=' at 2 (use '==')")
    expect(toks[3].error).toBe("unexpected character '@' at 6")
    expect(toks[4].error).toBe('unterminated string starting at 8')
  })

  test('empty and blank', () => {
    expect(tokenize('')).toEqual([])
    expect(tokenize('  \t\n')).toEqual([])
  })
})
