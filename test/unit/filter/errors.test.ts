import { describe, expect, test } from 'vitest'
import { compileFilter, FilterError } from '../../../src-shared/filter'
import { defineField } from '../../../src-shared/bytes/fields'
import { err } from './helpers'

defineField('fe.op', 'Operation', 'u8', { names: { 253: 'RaiseEvent' } })

/** [expression, message, start, end] — positions are 0-based character offsets; "at N" names the start. */
const cases: [string, string, number, number][] = [
  ['photon ==', "expected a value after '==' at 7", 7, 9],
  ['a == )', "expected a value after '==', found ')' at 5", 5, 6],
  ['a = 1', "unknown operator '=' at 2 (use '==')", 2, 3],
  ['a | b', "unknown operator '|' at 2 (use '||' or 'or')", 2, 3],
  ['a equals 1', "unknown operator 'equals' at 2", 2, 8],
  ['(a == 1', "unbalanced parenthesis: '(' at 0 is not closed", 0, 1],
  ['a == 1)', "unbalanced parenthesis: unexpected ')' at 6", 6, 7],
  [')', "unbalanced parenthesis: unexpected ')' at 0", 0, 1],
  ['(a b)', "unexpected 'b' at 3 (expected a comparison operator, 'and', 'or' or ')' to close '(' at 0)", 3, 4],
  ['()', 'empty parentheses at 0', 0, 2],
  ['a and', "expected an expression after 'and' at 2", 2, 5],
  ['a or not', "expected an expression after 'not' at 5", 5, 8],
  ['a and )', "expected a field, 'not' or '(' after 'and', found ')' at 6", 6, 7],
  ['== 1', "expected a field, 'not' or '(', found '==' at 0", 0, 2],
  ['5', "expected a field, 'not' or '(', found '5' at 0", 0, 1],
  ['a b', "unexpected 'b' at 2 (expected a comparison operator, 'and', 'or' or the end of the filter)", 2, 3],
  ['a == 1 2', "unexpected '2' at 7 (expected a comparison operator, 'and', 'or' or the end of the filter)", 7, 8],
  ['fe.op == RaiseEvnt', "unknown value 'RaiseEvnt' for fe.op at 9", 9, 18],
  ['x.y == foo', 'unknown name \'foo\' at 7 (quote it to compare with a string: "foo")', 7, 10],
  ['a == "abc', 'unterminated string starting at 5', 5, 9],
  ['a == "a\\qb"', "invalid escape '\\q' in string at 7", 7, 9],
  ['a @ 1', "unexpected character '@' at 2", 2, 3],
  ['a == 1.2.3', "invalid token '1.2.3' at 5", 5, 10],
  ['a == 10.0.0.0/33', "invalid token '10.0.0.0/33' at 5", 5, 16],
  ['a in {}', 'empty set at 5', 5, 7],
  ['a in {1 2', "unbalanced brace: '{' at 5 is not closed", 5, 6],
  ['a in 1', "expected '{' after 'in', found '1' at 5", 5, 6],
  ['a in {1,,2}', "unexpected ',' at 8", 8, 9],
  ['a in {5..1}', 'empty range 5..1 at 6', 6, 10],
  ['a in {1..}', "expected a value after '..', found '}' at 9", 9, 10],
  ['a .. 5', "unexpected '..' at 2 (ranges are only allowed inside { })", 2, 4],
  ['a matches 5', "'matches' needs a quoted regular expression, found '5' at 10", 10, 11],
  ['a matches "(?x)a"', "unsupported regular expression flag 'x' at 10 (supported: i, m, s)", 10, 17],
  ['a contains 1000', "'contains' needs a string or byte string, found '1000' at 11", 11, 15],
  ['a & "x"', "'&' needs an integer mask, found '\"x\"' at 4", 4, 7],
  ['a & 1.5', "'&' needs an integer mask, found '1.5' at 4", 4, 7],
  ['a[x] == 1', "expected a range like [0:2] after '[', found 'x' at 2", 2, 3],
  ['a[1:2', "unbalanced bracket: '[' at 1 is not closed", 1, 2],
  ['a[1::2] == 1', "invalid slice '1::2' at 2 (use [i], [i:len], [i-j], [:len] or [i:])", 2, 6],
  ['a in {1 x.y}', "a set holds values, not fields: 'x.y' at 8", 8, 11],
  ['len(1)', 'expected a field inside len() at 4', 4, 5],
  ['len(a', "unbalanced parenthesis: '(' at 3 is not closed", 3, 4]
]

describe('error messages and ranges', () => {
  test.each(cases)('%s', (expr, message, start, end) => {
    const e = err(expr)
    expect(e).toBeInstanceOf(FilterError)
    expect(e).toBeInstanceOf(Error)
    expect(e.message).toBe(message)
    expect([e.start, e.end]).toEqual([start, end])
    expect(expr.slice(e.start, e.end).length).toBe(end - start)
  })

  test('invalid regular expressions report the engine message and the string range', () => {
    const e = err('a matches "(abc"')
    expect(e.message).toMatch(/^invalid regular expression at 10: /)
    expect([e.start, e.end]).toEqual([10, 16])
  })

  test('deep nesting is an error, not a stack overflow', () => {
    const e = err('('.repeat(100000) + 'a' + ')'.repeat(100000))
    expect(e.message).toMatch(/nested too deeply/)
    expect(compileFilter('('.repeat(200) + 'a' + ')'.repeat(200), { anyField: true }).matches({ values: () => [], has: () => true })).toBe(true)
    expect(compileFilter('!'.repeat(100001) + 'a', { anyField: true }).matches({ values: () => [], has: () => true })).toBe(false)
  })
})
