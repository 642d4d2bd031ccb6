// Parser and compiler of the display-filter language. An expression is parsed once into a tree of
// closures; evaluating a message is then a walk over those closures with no re-parsing.
//
// Grammar (precedence from loosest to tightest: or < xor < and < not):
//   expr    := xor   (('or'  | '||') xor)*
//   xor     := and   (('xor' | '^^') and)*
//   and     := unary (('and' | '&&') unary)*
//   unary   := ('not' | '!')* primary
//   primary := '(' expr ')' | test
//   test    := operand [ cmp value | 'contains' value | 'matches' string | '&' integer
//                      | 'in' set | 'not' 'in' set ]
//   operand := field slice* | function '(' operand ')' slice*
//   set     := '{' (value ['..' value] [','])* '}'

import { concatBytes } from '../bytes/concat'
import type { FieldScalar } from '../model/types'
import { isKnownKey, lookupField, type FieldDef } from '../bytes/fields'
// Declares the protocol and layer names and the frame/IP/transport/gamewire fields every message has, so
// they are known names wherever a filter is compiled.
import '../engine/message-index'
import { tokenize, FilterError, BYTES_RE, parseAddressWord, type Token } from './lexer'
import { type Literal, eqLit, cmpLit, containsLit, cmpScalar, containsScalar, utf8, latin1 } from './values'

/** What a filter runs against: all occurrences of a field, and whether a field or subtree occurs. */
export interface FilterTarget {
  /** Every occurrence of the field, in tree order (empty when it does not occur or carries no value). */
  values(key: string): readonly FieldScalar[]
  /** True when `key` occurs, or any field under `key + '.'` occurs (protocols and subtrees). */
  has(key: string): boolean
}

export interface CompileOptions {
  /**
   * Accept any field name, not only registered fields, protocols and dynamic key families. For targets
   * made up of arbitrary keys (the filter's own unit tests); every filter a user types is checked.
   */
  anyField?: boolean
}

export interface CompiledFilter {
  source: string
  /** Field keys the expression references, in order of first appearance. */
  fields: string[]
  /**
   * The fields only ever tested for presence (`photon.param.245`, `photon.param.245 && …`), never for a
   * value: the index answers those it keeps the presence of (isPresenceField) without their values.
   */
  presenceOnly: string[]
  matches(t: FilterTarget): boolean
}

type Pred = (t: FilterTarget) => boolean
type Getter = (t: FilterTarget) => readonly FieldScalar[]
type ValueKind = 'any' | 'number' | 'string' | 'bytes'

interface Operand {
  get: Getter
  exists: Pred
  key: string
  /** Registry entry of a bare field (no slice, no function). */
  def?: FieldDef
  /** A field as written (no slice, no function): testing it alone reads no value. */
  bare?: boolean
  kind: ValueKind
  start: number
  end: number
}

type Rhs = { lit: Literal } | { field: Getter; key: string; start: number; end: number; def?: FieldDef }
type SetElem = { lit: Literal } | { lo: Literal; hi: Literal }

const MAX_DEPTH = 256
const CMP_OPS = new Set(['==', '!=', '===', '~=', '<', '>', '<=', '>='])

function q(t: Token): string {
  const s = t.text.length > 24 ? t.text.slice(0, 21) + '...' : t.text
  return `'${s}'`
}

function fail(message: string, start: number, end: number): never {
  throw new FilterError(message, start, end)
}

/** What a registered field's values are, for type errors ('any' when the language compares them loosely). */
function kindOfDef(def: FieldDef | undefined): ValueKind {
  if (!def) return 'any'
  switch (def.type) {
    case 'bytes':
      return 'bytes'
    case 'string':
      return 'string'
    case 'bool':
    case 'none':
    case 'ipv4':
    case 'ipv6':
      return 'any'
    default:
      return 'number'
  }
}

// ---- named values (RaiseEvent -> 253) ----

const nameMaps = new WeakMap<FieldDef, Map<string, number>>()
const normName = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '')

function lookupName(def: FieldDef, word: string): number | undefined {
  let m = nameMaps.get(def)
  if (!m) {
    m = new Map()
    const entries = Object.entries(def.names ?? {})
    for (const [k, name] of entries) {
      const lower = String(name).toLowerCase()
      if (!m.has(lower)) m.set(lower, Number(k))
    }
    for (const [k, name] of entries) {
      const norm = '\u0000' + normName(String(name))
      if (!m.has(norm)) m.set(norm, Number(k))
    }
    nameMaps.set(def, m)
  }
  return m.get(word.toLowerCase()) ?? m.get('\u0000' + normName(word))
}

// ---- literals ----

function intLiteral(big: bigint, start: number, end: number, text: string): Literal {
  const num = Number(big)
  const exact = big >= -(2n ** 53n) && big <= 2n ** 53n
  return { text, start, end, int: big, num, numExact: exact }
}

function hexBytes(text: string): Uint8Array {
  const hex = text.replace(/[:.-]/g, '')
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return out
}

function numberLiteral(t: Token): Literal {
  const text = t.text
  const neg = text.startsWith('-')
  const body = neg ? text.slice(1) : text
  let lit: Literal
  if (/^0[xXbB]/.test(body)) {
    const big = BigInt(body)
    lit = intLiteral(neg ? -big : big, t.start, t.end, text)
  } else if (/^[0-9]+$/.test(body)) {
    lit = intLiteral(BigInt(text), t.start, t.end, text)
  } else {
    lit = { text, start: t.start, end: t.end, num: Number(text), numExact: true }
  }
  if (BYTES_RE.test(text)) lit.bytes = hexBytes(text) // `12` or `12.34` against a byte array
  return lit
}

// ---- slices ----

interface Range {
  kind: 'len' | 'end' | 'one' | 'toEnd' | 'fromStart'
  a: number
  b: number
}

function parseSlice(t: Token): Range[] {
  const out: Range[] = []
  let offset = t.start
  for (const rawPart of t.text.split(',')) {
    const part = rawPart.trim()
    const pStart = offset + (rawPart.length - rawPart.trimStart().length)
    const pEnd = pStart + part.length
    offset += rawPart.length + 1
    let m: RegExpExecArray | null
    if ((m = /^(-?[0-9]+)$/.exec(part))) out.push({ kind: 'one', a: Number(m[1]), b: 0 })
    else if ((m = /^(-?[0-9]+):([0-9]+)$/.exec(part))) out.push({ kind: 'len', a: Number(m[1]), b: Number(m[2]) })
    else if ((m = /^(-?[0-9]+):$/.exec(part))) out.push({ kind: 'toEnd', a: Number(m[1]), b: 0 })
    else if ((m = /^:([0-9]+)$/.exec(part))) out.push({ kind: 'fromStart', a: 0, b: Number(m[1]) })
    else if ((m = /^(-?[0-9]+)-(-?[0-9]+)$/.exec(part))) out.push({ kind: 'end', a: Number(m[1]), b: Number(m[2]) })
    else fail(`invalid slice '${part}' at ${pStart} (use [i], [i:len], [i-j], [:len] or [i:])`, pStart, Math.max(pEnd, pStart + 1))
  }
  return out
}

function applySlice(b: Uint8Array, ranges: Range[]): Uint8Array | null {
  const parts: Uint8Array[] = []
  const len = b.length
  for (const r of ranges) {
    const a = r.a < 0 ? len + r.a : r.a
    let s: number
    let e: number
    switch (r.kind) {
      case 'one':
        s = a
        e = a + 1
        break
      case 'len':
        s = a
        e = a + r.b
        break
      case 'toEnd':
        s = a
        e = len
        break
      case 'fromStart':
        s = 0
        e = r.b
        break
      case 'end':
        s = a
        e = (r.b < 0 ? len + r.b : r.b) + 1
        break
    }
    if (s < 0 || e > len || s > e) return null
    parts.push(b.subarray(s, e))
  }
  return concatBytes(parts)
}

// ---- quantifiers over occurrences ----

function anyOcc(get: Getter, p: (v: FieldScalar) => boolean): Pred {
  return (t) => {
    const vs = get(t)
    for (let i = 0; i < vs.length; i++) if (p(vs[i])) return true
    return false
  }
}
function noOcc(get: Getter, p: (v: FieldScalar) => boolean): Pred {
  return (t) => {
    const vs = get(t)
    if (vs.length === 0) return false
    for (let i = 0; i < vs.length; i++) if (p(vs[i])) return false
    return true
  }
}
function allOcc(get: Getter, p: (v: FieldScalar) => boolean): Pred {
  return (t) => {
    const vs = get(t)
    if (vs.length === 0) return false
    for (let i = 0; i < vs.length; i++) if (!p(vs[i])) return false
    return true
  }
}
function anyNotOcc(get: Getter, p: (v: FieldScalar) => boolean): Pred {
  return (t) => {
    const vs = get(t)
    for (let i = 0; i < vs.length; i++) if (!p(vs[i])) return true
    return false
  }
}

function quantify(op: string, get: Getter, eq: (v: FieldScalar) => boolean, cmp: (v: FieldScalar) => number): Pred {
  switch (op) {
    case '==':
      return anyOcc(get, eq)
    case '!=':
      return noOcc(get, eq)
    case '===':
      return allOcc(get, eq)
    case '~=':
      return anyNotOcc(get, eq)
    case '<':
      return anyOcc(get, (v) => cmp(v) < 0)
    case '>':
      return anyOcc(get, (v) => cmp(v) > 0)
    case '<=':
      return anyOcc(get, (v) => cmp(v) <= 0)
    default:
      return anyOcc(get, (v) => cmp(v) >= 0)
  }
}

/** Field compared with field: `==` any pair equal, `!=` no pair equal, `===` every pair equal, `~=` some pair differs, order ops any pair. */
function fieldVsField(op: string, get: Getter, rget: Getter): Pred {
  const test = (a: FieldScalar, b: FieldScalar): boolean => {
    const c = cmpScalar(a, b)
    switch (op) {
      case '<':
        return c < 0
      case '>':
        return c > 0
      case '<=':
        return c <= 0
      case '>=':
        return c >= 0
      default:
        return c === 0
    }
  }
  return (t) => {
    const vs = get(t)
    const rs = rget(t)
    if (vs.length === 0 || rs.length === 0) return false
    let any = false
    let all = true
    for (const a of vs) {
      for (const b of rs) {
        if (test(a, b)) any = true
        else all = false
      }
    }
    switch (op) {
      case '!=':
        return !any
      case '===':
        return all
      case '~=':
        return !all
      default:
        return any
    }
  }
}

function bitTest(v: FieldScalar, mask: bigint, small: number): boolean {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return false
    if (small >= 0 && v >= 0 && v <= 0xffffffff) return (v & small) !== 0
    return (BigInt(v) & mask) !== 0n
  }
  if (typeof v === 'bigint') return (v & mask) !== 0n
  if (typeof v === 'boolean') return v && (mask & 1n) !== 0n
  return false
}

const EMPTY: readonly FieldScalar[] = []

/** Characters of a string (a surrogate pair counts once). */
function codePoints(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0xdc00 || c > 0xdfff) n++
  }
  return n
}

const KIND_WORD: Record<ValueKind, string> = { any: 'value', number: 'number', string: 'string', bytes: 'byte array' }

/** How a literal reads in a type error. */
function literalKind(lit: Literal): string {
  if (lit.str !== undefined) return `the string ${lit.text}`
  if (lit.bool !== undefined) return `the boolean ${lit.text}`
  if (lit.ip !== undefined) return `the address ${lit.text}`
  if (lit.num !== undefined) return `the number ${lit.text}`
  return `the byte string ${lit.text}`
}

/** What an operand is called in a type error: `frame.number (u32)`, `len(x)`. */
function operandName(op: Operand): string {
  return op.def ? `${op.def.key} (${op.def.type})` : `${op.key} (${KIND_WORD[op.kind]})`
}

class Parser {
  private pos = 0
  private depth = 0
  readonly fields: string[] = []
  /** The fields some part of the expression reads values of (all but bare presence tests). */
  readonly valueFields = new Set<string>()
  /** Every field name written, with its position, for the name check after parsing. */
  readonly refs: { key: string; start: number; end: number }[] = []

  constructor(private readonly toks: Token[]) {}

  private peek(o = 0): Token | undefined {
    return this.toks[this.pos + o]
  }
  private next(): Token {
    return this.toks[this.pos++]
  }
  private isKw(t: Token | undefined, kw: string): boolean {
    return t !== undefined && t.kind === 'keyword' && t.op === kw
  }
  private isText(t: Token | undefined, kind: Token['kind'], text: string): boolean {
    return t !== undefined && t.kind === kind && t.text === text
  }
  private useField(key: string): void {
    if (!this.fields.includes(key)) this.fields.push(key)
  }
  private enter(t: Token): void {
    if (++this.depth > MAX_DEPTH) fail(`expression nested too deeply at ${t.start}`, t.start, t.end)
  }

  parse(): Pred {
    const pred = this.parseOr()
    const t = this.peek()
    if (t) {
      if (this.isText(t, 'paren', ')')) fail(`unbalanced parenthesis: unexpected ')' at ${t.start}`, t.start, t.end)
      this.unexpected(t, 'the end of the filter')
    }
    return pred
  }

  private unexpected(t: Token, closing: string): never {
    const prev = this.toks[this.pos - 1]
    const valueLike = t.kind === 'number' || t.kind === 'string' || t.kind === 'bytes' || t.kind === 'address' || t.kind === 'name' || t.kind === 'field'
    const after = this.peek(1)
    if (
      (t.kind === 'field' || t.kind === 'name') &&
      !t.text.includes('.') &&
      prev &&
      (prev.kind === 'field' || this.isText(prev, 'bracket', ']')) &&
      after &&
      (after.kind === 'number' ||
        after.kind === 'string' ||
        after.kind === 'bytes' ||
        after.kind === 'address' ||
        after.kind === 'name' ||
        after.kind === 'field')
    ) {
      fail(`unknown operator ${q(t)} at ${t.start}`, t.start, t.end)
    }
    const expected = valueLike ? `expected a comparison operator, 'and', 'or' or ${closing}` : `expected 'and', 'or', 'xor' or ${closing}`
    fail(`unexpected ${q(t)} at ${t.start} (${expected})`, t.start, t.end)
  }

  private parseOr(prevOp?: Token): Pred {
    const list = [this.parseXor(prevOp)]
    while (this.isKw(this.peek(), 'or')) {
      const op = this.next()
      list.push(this.parseXor(op))
    }
    if (list.length === 1) return list[0]
    if (list.length === 2) {
      const [a, b] = list
      return (t) => a(t) || b(t)
    }
    return (t) => {
      for (let i = 0; i < list.length; i++) if (list[i](t)) return true
      return false
    }
  }

  private parseXor(prevOp?: Token): Pred {
    const list = [this.parseAnd(prevOp)]
    while (this.isKw(this.peek(), 'xor')) {
      const op = this.next()
      list.push(this.parseAnd(op))
    }
    if (list.length === 1) return list[0]
    return (t) => {
      let r = false
      for (let i = 0; i < list.length; i++) r = r !== list[i](t)
      return r
    }
  }

  private parseAnd(prevOp?: Token): Pred {
    const list = [this.parseUnary(prevOp)]
    while (this.isKw(this.peek(), 'and')) {
      const op = this.next()
      list.push(this.parseUnary(op))
    }
    if (list.length === 1) return list[0]
    if (list.length === 2) {
      const [a, b] = list
      return (t) => a(t) && b(t)
    }
    return (t) => {
      for (let i = 0; i < list.length; i++) if (!list[i](t)) return false
      return true
    }
  }

  private parseUnary(prevOp?: Token): Pred {
    let neg = false
    let last = prevOp
    while (this.isKw(this.peek(), 'not')) {
      last = this.next()
      neg = !neg
    }
    const p = this.parsePrimary(last)
    return neg ? (t) => !p(t) : p
  }

  private parsePrimary(prevOp?: Token): Pred {
    const t = this.peek()
    if (!t) {
      if (prevOp) fail(`expected an expression after ${q(prevOp)} at ${prevOp.start}`, prevOp.start, prevOp.end)
      fail('empty expression', 0, 0)
    }
    if (this.isText(t, 'paren', '(')) {
      this.next()
      this.enter(t)
      const first = this.peek()
      if (!first) fail(`unbalanced parenthesis: '(' at ${t.start} is not closed`, t.start, t.end)
      if (this.isText(first, 'paren', ')')) fail(`empty parentheses at ${t.start}`, t.start, first.end)
      const inner = this.parseOr(t)
      const c = this.peek()
      if (!c) fail(`unbalanced parenthesis: '(' at ${t.start} is not closed`, t.start, t.end)
      if (!this.isText(c, 'paren', ')')) this.unexpected(c, `')' to close '(' at ${t.start}`)
      this.next()
      this.depth--
      return inner
    }
    if (t.kind === 'field' || t.kind === 'function') return this.parseTest()
    const after = prevOp ? ` after ${q(prevOp)}` : ''
    if (this.isText(t, 'paren', ')') && !prevOp) fail(`unbalanced parenthesis: unexpected ')' at ${t.start}`, t.start, t.end)
    if (t.kind === 'name') fail(`unknown name ${q(t)} at ${t.start}`, t.start, t.end)
    fail(`expected a field, 'not' or '('${after}, found ${q(t)} at ${t.start}`, t.start, t.end)
  }

  private parseOperand(): Operand {
    const t = this.next()
    if (t.kind === 'function') {
      const open = this.next() // the lexer only marks a function when '(' follows
      this.enter(open)
      const innerTok = this.peek()
      if (!innerTok || (innerTok.kind !== 'field' && innerTok.kind !== 'function')) {
        const at = innerTok ?? open
        fail(`expected a field inside ${t.text}() at ${at.start}`, at.start, at.end)
      }
      const inner = this.parseOperand()
      const close = this.peek()
      if (!close) fail(`unbalanced parenthesis: '(' at ${open.start} is not closed`, open.start, open.end)
      if (!this.isText(close, 'paren', ')'))
        fail(`expected ')' to close ${t.text}( at ${open.start}, found ${q(close)} at ${close.start}`, close.start, close.end)
      this.next()
      this.depth--
      return this.parseSlices(this.applyFunction(t.op!, inner, t.start, close.end))
    }
    const key = t.text
    this.useField(key)
    this.refs.push({ key, start: t.start, end: t.end })
    const def = lookupField(key)
    return this.parseSlices({
      get: (tt) => tt.values(key),
      exists: (tt) => tt.has(key),
      key,
      def,
      bare: true,
      kind: kindOfDef(def),
      start: t.start,
      end: t.end
    })
  }

  private applyFunction(name: string, inner: Operand, start: number, end: number): Operand {
    const get = inner.get
    let fn: Getter
    let kind: ValueKind
    switch (name) {
      case 'count':
        fn = (t) => [get(t).length]
        kind = 'number'
        break
      case 'len':
        kind = 'number'
        fn = (t) => {
          const vs = get(t)
          if (vs.length === 0) return EMPTY
          const out: number[] = []
          for (const v of vs) {
            if (v instanceof Uint8Array) out.push(v.length)
            else if (typeof v === 'string') out.push(codePoints(v))
          }
          return out
        }
        break
      default: {
        const upper = name === 'upper'
        kind = 'string'
        fn = (t) => {
          const vs = get(t)
          if (vs.length === 0) return EMPTY
          const out: string[] = []
          for (const v of vs) if (typeof v === 'string') out.push(upper ? v.toUpperCase() : v.toLowerCase())
          return out
        }
      }
    }
    return { get: fn, exists: (t) => fn(t).length > 0, key: inner.key, kind, start, end }
  }

  private parseSlices(op: Operand): Operand {
    while (this.isText(this.peek(), 'bracket', '[')) {
      const open = this.next()
      const spec = this.peek()
      if (!spec) fail(`expected a range like [0:2] after '[' at ${open.start}`, open.start, open.end)
      if (spec.kind !== 'slice') fail(`expected a range like [0:2] after '[', found ${q(spec)} at ${spec.start}`, spec.start, spec.end)
      this.next()
      const close = this.peek()
      if (!close) fail(`unbalanced bracket: '[' at ${open.start} is not closed`, open.start, open.end)
      if (!this.isText(close, 'bracket', ']')) fail(`expected ']' to close '[' at ${open.start}, found ${q(close)} at ${close.start}`, close.start, close.end)
      this.next()
      const ranges = parseSlice(spec)
      const get = op.get
      const sliced: Getter = (t) => {
        const vs = get(t)
        if (vs.length === 0) return EMPTY
        const out: Uint8Array[] = []
        for (const v of vs) {
          const b = v instanceof Uint8Array ? v : typeof v === 'string' ? utf8(v) : null
          if (!b) continue
          const s = applySlice(b, ranges)
          if (s) out.push(s)
        }
        return out
      }
      op = { get: sliced, exists: (t) => sliced(t).length > 0, key: op.key, kind: 'bytes', start: op.start, end: close!.end }
    }
    return op
  }

  private parseTest(): Pred {
    const operand = this.parseOperand()
    const test = this.testOf(operand)
    // Every test but the operand's own `exists` reads its values, and so does `exists` of a slice or function.
    if (test !== operand.exists || !operand.bare) this.valueFields.add(operand.key)
    return test
  }

  private testOf(operand: Operand): Pred {
    const t = this.peek()
    if (!t) return operand.exists
    if (t.kind === 'operator') {
      const op = t.op!
      if (CMP_OPS.has(op)) {
        this.next()
        return this.comparison(op, operand, this.parseValue(t, operand, true))
      }
      if (op === 'contains') {
        this.next()
        const rhs = this.parseValue(t, operand, true)
        if ('field' in rhs) {
          const rget = rhs.field
          return (tt) => {
            const rs = rget(tt)
            if (rs.length === 0) return false
            const vs = operand.get(tt)
            for (const a of vs) for (const b of rs) if (containsScalar(a, b)) return true
            return false
          }
        }
        const lit = rhs.lit
        if (lit.str === undefined && lit.bytes === undefined) {
          fail(`'contains' needs a string or byte string, found '${lit.text}' at ${lit.start}`, lit.start, lit.end)
        }
        return anyOcc(operand.get, (v) => containsLit(v, lit))
      }
      if (op === 'matches') {
        this.next()
        const re = this.parseRegex(t)
        return anyOcc(operand.get, (v) => (typeof v === 'string' ? re.test(v) : v instanceof Uint8Array ? re.test(latin1(v)) : false))
      }
      if (op === '&') {
        this.next()
        const m = this.peek()
        if (!m) fail(`expected an integer mask after '&' at ${t.start}`, t.start, t.end)
        this.next()
        const lit = m.kind === 'number' ? numberLiteral(m) : undefined
        if (!lit || lit.int === undefined) fail(`'&' needs an integer mask, found ${q(m)} at ${m.start}`, m.start, m.end)
        const mask = lit.int
        const small = mask >= 0n && mask <= 0xffffffffn ? Number(mask) : -1
        return anyOcc(operand.get, (v) => bitTest(v, mask, small))
      }
      if (op === '..') fail(`unexpected '..' at ${t.start} (ranges are only allowed inside { })`, t.start, t.end)
    }
    if (this.isKw(t, 'in')) {
      this.next()
      return this.parseSet(t, operand, false)
    }
    if (this.isKw(t, 'not') && this.isKw(this.peek(1), 'in')) {
      this.next()
      return this.parseSet(this.next(), operand, true)
    }
    return operand.exists
  }

  private comparison(op: string, operand: Operand, rhs: Rhs): Pred {
    if ('field' in rhs) {
      const other = kindOfDef(rhs.def)
      if (operand.kind !== 'any' && other !== 'any' && operand.kind !== other && !(operand.kind !== 'number' && other !== 'number')) {
        fail(`${operandName(operand)} cannot be compared with ${rhs.key} (${rhs.def!.type}) at ${rhs.start}`, rhs.start, rhs.end)
      }
      return fieldVsField(op, operand.get, rhs.field)
    }
    const lit = this.typed(operand, rhs.lit)
    return quantify(
      op,
      operand.get,
      (v) => eqLit(v, lit),
      (v) => cmpLit(v, lit)
    )
  }

  /**
   * Checks a literal against the operand's type as Wireshark does: a string is no number (unless it is
   * one of the field's value names, `"RaiseEvent"`), a number or boolean is no string, a byte array takes
   * byte strings and strings, a boolean field takes true/false/1/0. Untyped keys (dynamic keys, protocols)
   * take anything.
   */
  private typed(operand: Operand, lit: Literal): Literal {
    const bad = (): never => fail(`${operandName(operand)} cannot be compared with ${literalKind(lit)} at ${lit.start}`, lit.start, lit.end)
    if (operand.def?.type === 'bool') {
      if (lit.str !== undefined || lit.ip !== undefined) bad()
      return lit
    }
    switch (operand.kind) {
      case 'number':
        if (lit.str !== undefined) {
          const named = operand.def?.names ? lookupName(operand.def, lit.str) : undefined
          return named === undefined ? bad() : intLiteral(BigInt(named), lit.start, lit.end, lit.text)
        }
        if (lit.num === undefined && lit.bool === undefined) bad()
        return lit
      case 'string':
        if (lit.str === undefined && (lit.num !== undefined || lit.bool !== undefined)) bad()
        return lit
      case 'bytes':
        if (lit.str === undefined && lit.bytes === undefined) bad()
        return lit
      default:
        return lit
    }
  }

  private parseRegex(opTok: Token): RegExp {
    const t = this.peek()
    if (!t) fail(`expected a quoted regular expression after ${q(opTok)} at ${opTok.start}`, opTok.start, opTok.end)
    if (t.kind !== 'string') fail(`${q(opTok)} needs a quoted regular expression, found ${q(t)} at ${t.start}`, t.start, t.end)
    this.next()
    let src = t.str!
    const flags = new Set<string>()
    const m = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)/.exec(src)
    if (m) {
      for (const f of m[1]) {
        if (!'ims'.includes(f)) fail(`unsupported regular expression flag '${f}' at ${t.start} (supported: i, m, s)`, t.start, t.end)
        flags.add(f)
      }
      for (const f of m[2] ?? '') {
        if (!'ims'.includes(f)) fail(`unsupported regular expression flag '${f}' at ${t.start} (supported: i, m, s)`, t.start, t.end)
        flags.delete(f)
      }
      src = src.slice(m[0].length)
    }
    try {
      return new RegExp(src, [...flags].join(''))
    } catch (e) {
      const why = e instanceof Error ? e.message.replace(/^Invalid regular expression: /, '') : String(e)
      fail(`invalid regular expression at ${t.start}: ${why}`, t.start, t.end)
    }
  }

  /** The value after a comparison operator, or a set element. */
  private parseValue(prev: Token, operand: Operand, allowField: boolean): Rhs {
    const t = this.peek()
    if (!t) fail(`expected a value after ${q(prev)} at ${prev.start}`, prev.start, prev.end)
    const found = () => fail(`expected a value after ${q(prev)}, found ${q(t)} at ${t.start}`, t.start, t.end)
    switch (t.kind) {
      case 'number':
        this.next()
        return { lit: numberLiteral(t) }
      case 'string':
        this.next()
        return { lit: { text: t.text, start: t.start, end: t.end, str: t.str, strBytes: t.strBytes } }
      case 'bytes':
        this.next()
        return { lit: { text: t.text, start: t.start, end: t.end, bytes: hexBytes(t.text) } }
      case 'address': {
        this.next()
        const a = parseAddressWord(t.text)!
        const lit: Literal = { text: t.text, start: t.start, end: t.end, ip: a.bytes, prefix: a.prefix }
        if (BYTES_RE.test(t.text)) lit.bytes = hexBytes(t.text)
        return { lit }
      }
      case 'keyword':
        if (t.op === 'true' || t.op === 'false') {
          this.next()
          return { lit: { text: t.text, start: t.start, end: t.end, bool: t.op === 'true' } }
        }
        return found()
      case 'name':
      case 'field':
        this.next()
        return this.resolveWord(t, operand, allowField)
      default:
        return found()
    }
  }

  private resolveWord(t: Token, operand: Operand, allowField: boolean): Rhs {
    const def = operand.def
    if (def?.names) {
      const v = lookupName(def, t.text)
      if (v !== undefined) {
        const lit: Literal = Number.isInteger(v)
          ? intLiteral(BigInt(v), t.start, t.end, t.text)
          : { text: t.text, start: t.start, end: t.end, num: v, numExact: true }
        return { lit }
      }
    }
    // a dot-less word against a string field is a string even when a protocol of that name is registered
    // (`gamewire.protocol == photon`)
    if (operand.kind === 'string' && !t.text.includes('.')) {
      return { lit: { text: t.text, start: t.start, end: t.end, str: t.text, strBytes: utf8(t.text) } }
    }
    // a dotted word is a field reference even when no decoder registered it (dynamic tree keys)
    const isField = t.text.includes('.') || lookupField(t.text) !== undefined
    if (allowField && isField) {
      const key = t.text
      this.useField(key)
      this.valueFields.add(key)
      this.refs.push({ key, start: t.start, end: t.end })
      return { field: (tt) => tt.values(key), key, start: t.start, end: t.end, def: lookupField(key) }
    }
    if (/^[0-9a-fA-F]{2}$/.test(t.text) && (operand.kind === 'bytes' || (operand.kind === 'any' && !def?.names))) {
      return { lit: { text: t.text, start: t.start, end: t.end, bytes: hexBytes(t.text) } }
    }
    if (operand.kind === 'string') {
      return { lit: { text: t.text, start: t.start, end: t.end, str: t.text, strBytes: utf8(t.text) } }
    }
    if (!allowField && isField) fail(`a set holds values, not fields: ${q(t)} at ${t.start}`, t.start, t.end)
    if (def?.names) fail(`unknown value ${q(t)} for ${def.key} at ${t.start}`, t.start, t.end)
    fail(`unknown name ${q(t)} at ${t.start} (quote it to compare with a string: "${t.text}")`, t.start, t.end)
  }

  private parseSet(inTok: Token, operand: Operand, negate: boolean): Pred {
    const open = this.peek()
    if (!open) fail(`expected '{' after ${q(inTok)} at ${inTok.start}`, inTok.start, inTok.end)
    if (!this.isText(open, 'brace', '{')) fail(`expected '{' after ${q(inTok)}, found ${q(open)} at ${open.start}`, open.start, open.end)
    this.next()
    const elems: SetElem[] = []
    let prev: Token = open
    let lastComma = false
    for (;;) {
      const t = this.peek()
      if (!t) fail(`unbalanced brace: '{' at ${open.start} is not closed`, open.start, open.end)
      if (this.isText(t, 'brace', '}')) {
        this.next()
        if (elems.length === 0) fail(`empty set at ${open.start}`, open.start, t.end)
        break
      }
      if (t.kind === 'comma') {
        if (elems.length === 0 || lastComma) fail(`unexpected ',' at ${t.start}`, t.start, t.end)
        this.next()
        prev = t
        lastComma = true
        continue
      }
      lastComma = false
      const lo = this.parseValue(prev, operand, false) as { lit: Literal }
      lo.lit = this.typed(operand, lo.lit)
      const dots = this.peek()
      if (dots && dots.kind === 'operator' && dots.op === '..') {
        this.next()
        const hi = this.parseValue(dots, operand, false) as { lit: Literal }
        hi.lit = this.typed(operand, hi.lit)
        if (lo.lit.int !== undefined && hi.lit.int !== undefined && lo.lit.int > hi.lit.int) {
          fail(`empty range ${lo.lit.text}..${hi.lit.text} at ${lo.lit.start}`, lo.lit.start, hi.lit.end)
        }
        elems.push({ lo: lo.lit, hi: hi.lit })
        prev = this.toks[this.pos - 1]
      } else {
        elems.push(lo)
        prev = this.toks[this.pos - 1]
      }
    }
    const member = (v: FieldScalar): boolean => {
      for (let i = 0; i < elems.length; i++) {
        const e = elems[i]
        if ('lit' in e) {
          if (eqLit(v, e.lit)) return true
        } else if (cmpLit(v, e.lo) >= 0 && cmpLit(v, e.hi) <= 0) return true
      }
      return false
    }
    return negate ? noOcc(operand.get, member) : anyOcc(operand.get, member)
  }
}

/**
 * Compiles a display filter. Throws FilterError (with the character range of the problem) when the
 * expression is invalid. An empty or blank expression matches everything.
 */
export function compileFilter(expr: string, opts: CompileOptions = {}): CompiledFilter {
  const toks = tokenize(expr)
  for (const t of toks) if (t.kind === 'error') throw new FilterError(t.error ?? `invalid token at ${t.start}`, t.start, t.end)
  if (toks.length === 0) return { source: expr, fields: [], presenceOnly: [], matches: () => true }
  const parser = new Parser(toks)
  const pred = parser.parse()
  // Names are checked once the syntax is known good, as Wireshark's semantic pass does.
  if (!opts.anyField) {
    for (const r of parser.refs) {
      if (!isKnownKey(r.key)) fail(`'${r.key}' at ${r.start} is neither a field nor a protocol`, r.start, r.end)
    }
  }
  const presenceOnly = parser.fields.filter((k) => !parser.valueFields.has(k))
  return { source: expr, fields: parser.fields, presenceOnly, matches: pred }
}
