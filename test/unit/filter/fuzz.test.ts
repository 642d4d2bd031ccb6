import { expect, test } from 'vitest'
import { compileFilter, FilterError, tokenize, targetFromMessage } from '../../../src-shared/filter'
import { rng } from '../helpers/rng'

const PIECES = [
  'a',
  'b.c',
  'photon.op.code',
  'udp.port',
  'ip.addr',
  ' ',
  ' ',
  ' ',
  '==',
  '!=',
  '===',
  '!==',
  '~=',
  '<',
  '>',
  '<=',
  '>=',
  '=',
  '!',
  '&&',
  '||',
  '^^',
  '&',
  '|',
  '^',
  '~',
  'and',
  'or',
  'not',
  'xor',
  'in',
  'contains',
  'matches',
  'eq',
  'ne',
  '(',
  ')',
  '{',
  '}',
  '[',
  ']',
  ',',
  '..',
  '.',
  ':',
  '-',
  '/',
  '"',
  '\\',
  'r"',
  '0',
  '1',
  '42',
  '-7',
  '0x1f',
  '1.5',
  'aa:bb',
  '10.0.0.1',
  '10.0.0.0/8',
  '::1',
  'fe80::',
  'true',
  'false',
  'RaiseEvent',
  'len',
  'count',
  'lower',
  '0:2',
  '%',
  '@',
  'é',
  '\u{1F600}'
]

const target = targetFromMessage(
  { protocol: 'photon', stack: ['udp', 'photon'], tree: [{ key: 'photon.op.code', label: '', type: 'u8', value: 253 }] },
  { a: [1, 2n, 'x', true, null, new Uint8Array([0xaa, 0xbb])], 'b.c': ['hello'], 'ip.addr': ['10.0.0.1', '::1'], 'udp.port': [5055] }
)

test('random garbage either compiles or throws FilterError, and compiled filters run', () => {
  const rand = rng(0x5eed)
  let compiled = 0
  let rejected = 0
  const started = Date.now()
  for (let i = 0; i < 20000; i++) {
    let expr = ''
    const n = 1 + Math.floor(rand() * 12)
    for (let k = 0; k < n; k++) {
      if (rand() < 0.1) expr += String.fromCharCode(Math.floor(rand() * 128))
      else expr += PIECES[Math.floor(rand() * PIECES.length)]
    }
    const toks = tokenize(expr)
    for (const t of toks) {
      expect(t.start).toBeGreaterThanOrEqual(0)
      expect(t.end).toBeLessThanOrEqual(expr.length)
      expect(t.start).toBeLessThanOrEqual(t.end)
    }
    try {
      const f = compileFilter(expr)
      compiled++
      expect(typeof f.matches(target)).toBe('boolean')
    } catch (e) {
      if (!(e instanceof FilterError)) throw new Error(`non-FilterError for ${JSON.stringify(expr)}: ${String(e)}`)
      expect(e.start).toBeGreaterThanOrEqual(0)
      expect(e.end).toBeLessThanOrEqual(expr.length)
      expect(e.start).toBeLessThanOrEqual(e.end)
      expect(e.message.length).toBeGreaterThan(0)
      rejected++
    }
  }
  // the generator must exercise both paths
  expect(compiled).toBeGreaterThan(100)
  expect(rejected).toBeGreaterThan(100)
  expect(Date.now() - started).toBeLessThan(30000)
})

test('random bytes as text never throw anything but FilterError', () => {
  const rand = rng(42)
  for (let i = 0; i < 5000; i++) {
    let expr = ''
    const n = Math.floor(rand() * 40)
    for (let k = 0; k < n; k++) expr += String.fromCharCode(Math.floor(rand() * 0x3000))
    try {
      compileFilter(expr).matches(target)
    } catch (e) {
      if (!(e instanceof FilterError)) throw new Error(`non-FilterError for ${JSON.stringify(expr)}: ${String(e)}`)
    }
  }
})
