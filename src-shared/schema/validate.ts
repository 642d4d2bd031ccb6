// Checks a schema pack (types.ts, docs/schema-pack.schema.json) and refuses it with the JSON path of the
// first problem and why: `$.photon.events[3].code: expected an integer 0-255`. Strict about unknown keys,
// so a misspelt key is caught instead of silently ignored. Never throws anything but SchemaError.

import { BITBUFFER_TYPES, MEMORYPACK_TYPES, NESTED_FORMATS, SCHEMA_FORMAT, SFS_TYPES, STRUCT_SCALARS, type SchemaPack } from './types'

export class SchemaError extends Error {
  constructor(
    readonly path: string,
    readonly why: string
  ) {
    super(`${path}: ${why}`)
    this.name = 'SchemaError'
  }
}

type Obj = Record<string, unknown>

/** A name that becomes a filter key segment: not a number (those are codes), no dots or spaces. */
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/
const MAX_LIST = 100_000

function fail(path: string, why: string): never {
  throw new SchemaError(path, why)
}

function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`
}

function object(v: unknown, path: string, allowed: readonly string[], required: readonly string[] = []): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, `expected an object, got ${kind(v)}`)
  const o = v as Obj
  for (const k of Object.keys(o)) if (!allowed.includes(k)) fail(`${path}.${k}`, `unknown key (allowed: ${allowed.join(', ')})`)
  for (const k of required) if (o[k] === undefined) fail(`${path}.${k}`, 'missing')
  return o
}

function array(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) fail(path, `expected an array, got ${kind(v)}`)
  if (v.length > MAX_LIST) fail(path, `more than ${MAX_LIST} entries`)
  return v
}

function integer(v: unknown, path: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    fail(path, `expected an integer ${min}-${max}${typeof v === 'number' ? `, got ${v}` : `, got ${kind(v)}`}`)
  return v
}

function text(v: unknown, path: string, max = 200): string {
  if (typeof v !== 'string' || v.trim() === '') fail(path, `expected a non-empty string, got ${kind(v)}`)
  if (v.length > max) fail(path, `longer than ${max} characters`)
  return v
}

function ident(v: unknown, path: string): string {
  const s = text(v, path, 64)
  if (!IDENT.test(s)) fail(path, `expected a name of letters, digits and _ not starting with a digit (it becomes a filter field), got ${JSON.stringify(s)}`)
  return s
}

function oneOf<T extends string>(v: unknown, path: string, values: readonly T[]): T {
  if (typeof v !== 'string' || !values.includes(v as T))
    fail(path, `expected one of ${values.join(', ')}, got ${typeof v === 'string' ? JSON.stringify(v) : kind(v)}`)
  return v as T
}

function uniqueNames(names: string[], path: (i: number) => string): void {
  const seen = new Set<string>()
  names.forEach((n, i) => {
    if (seen.has(n)) fail(path(i), `duplicate name ${JSON.stringify(n)}`)
    seen.add(n)
  })
}

function structFields(v: unknown, path: string, allowRest: boolean): void {
  const list = array(v, path)
  if (!list.length) fail(path, 'expected at least one field')
  list.forEach((f, i) => {
    const p = `${path}[${i}]`
    const o = object(f, p, ['name', 'type', 'length'], ['name', 'type'])
    ident(o.name, `${p}.name`)
    const t = oneOf(o.type, `${p}.type`, [...STRUCT_SCALARS, 'bytes'] as const)
    if (o.length !== undefined) {
      if (t !== 'bytes') fail(`${p}.length`, 'only a bytes field has a length')
      integer(o.length, `${p}.length`, 0, 65535)
    } else if (t === 'bytes' && (!allowRest || i !== list.length - 1)) fail(`${p}.length`, 'missing (only the last field may take the rest of the bytes)')
  })
  uniqueNames(
    list.map((f) => (f as Obj).name as string),
    (i) => `${path}[${i}].name`
  )
}

function endian(o: Obj, path: string): void {
  if (o.endian !== undefined) oneOf(o.endian, `${path}.endian`, ['big', 'little'] as const)
}

function photonParams(v: unknown, path: string): void {
  const o = object(v, path, Object.keys(v && typeof v === 'object' ? v : {}))
  const names: string[] = []
  for (const [code, spec] of Object.entries(o)) {
    const p = `${path}["${code}"]`
    if (!/^(0|[1-9][0-9]{0,2})$/.test(code) || Number(code) > 255) fail(p, 'expected a parameter code 0-255 as the key')
    if (typeof spec === 'string') names.push(ident(spec, p))
    else {
      const s = object(spec, p, ['name', 'nested'], ['name'])
      names.push(ident(s.name, `${p}.name`))
      if (s.nested !== undefined) {
        const n = object(s.nested, `${p}.nested`, ['format', 'endian', 'fields'], ['format'])
        const format = oneOf(n.format, `${p}.nested.format`, NESTED_FORMATS)
        endian(n, `${p}.nested`)
        if (format === 'struct') {
          if (n.fields === undefined) fail(`${p}.nested.fields`, 'missing (a struct needs its fields)')
          structFields(n.fields, `${p}.nested.fields`, true)
        } else if (n.fields !== undefined || n.endian !== undefined) fail(`${p}.nested`, `fields and endian are for format struct, not ${format}`)
      }
    }
  }
  const seen = new Map<string, string>()
  for (const [code, spec] of Object.entries(o)) {
    const name = typeof spec === 'string' ? spec : ((spec as Obj).name as string)
    if (seen.has(name)) fail(`${path}["${code}"]`, `name ${JSON.stringify(name)} is also parameter ${seen.get(name)}'s`)
    seen.set(name, code)
  }
}

function photonMessages(v: unknown, path: string): void {
  const list = array(v, path)
  const keys = new Set<string>()
  list.forEach((m, i) => {
    const p = `${path}[${i}]`
    const o = object(m, p, ['code', 'name', 'codeParameter', 'wireCode', 'parameters'], ['code', 'name'])
    text(o.name, `${p}.name`)
    if (o.codeParameter !== undefined) {
      integer(o.codeParameter, `${p}.codeParameter`, 0, 255)
      integer(o.code, `${p}.code`, -2147483648, 2147483647)
      if (o.wireCode !== undefined) integer(o.wireCode, `${p}.wireCode`, 0, 255)
    } else {
      integer(o.code, `${p}.code`, 0, 255)
      if (o.wireCode !== undefined) fail(`${p}.wireCode`, 'only with codeParameter')
    }
    const key = `${o.codeParameter ?? ''}/${o.wireCode ?? ''}/${o.code}`
    if (keys.has(key))
      fail(`${p}.code`, `duplicate: another entry already has code ${o.code}${o.codeParameter !== undefined ? ` in parameter ${o.codeParameter}` : ''}`)
    keys.add(key)
    if (o.parameters !== undefined) photonParams(o.parameters, `${p}.parameters`)
  })
}

function photon(v: unknown, path: string): void {
  const o = object(v, path, ['parameters', 'operations', 'events', 'customTypes'])
  if (o.parameters !== undefined) photonParams(o.parameters, `${path}.parameters`)
  if (o.operations !== undefined) photonMessages(o.operations, `${path}.operations`)
  if (o.events !== undefined) photonMessages(o.events, `${path}.events`)
  if (o.customTypes !== undefined) {
    const codes = new Set<number>()
    array(o.customTypes, `${path}.customTypes`).forEach((t, i) => {
      const p = `${path}.customTypes[${i}]`
      const c = object(t, p, ['code', 'name', 'endian', 'fields'], ['code', 'name', 'fields'])
      const code = integer(c.code, `${p}.code`, 0, 255)
      if (codes.has(code)) fail(`${p}.code`, `duplicate custom type code ${code}`)
      codes.add(code)
      text(c.name, `${p}.name`)
      endian(c, p)
      structFields(c.fields, `${p}.fields`, true)
    })
  }
}

function sfs2x(v: unknown, path: string): void {
  const o = object(v, path, ['extensions'])
  if (o.extensions === undefined) return
  const commands = new Set<string>()
  array(o.extensions, `${path}.extensions`).forEach((e, i) => {
    const p = `${path}.extensions[${i}]`
    const x = object(e, p, ['command', 'name', 'request', 'response'], ['command'])
    const cmd = text(x.command, `${p}.command`)
    if (commands.has(cmd)) fail(`${p}.command`, `duplicate command ${JSON.stringify(cmd)}`)
    commands.add(cmd)
    if (x.name !== undefined) text(x.name, `${p}.name`)
    for (const side of ['request', 'response'] as const) {
      if (x[side] === undefined) continue
      const params = object(x[side], `${p}.${side}`, Object.keys(x[side] && typeof x[side] === 'object' ? (x[side] as Obj) : {}))
      for (const [k, t] of Object.entries(params)) {
        if (k === '' || k.length > 64) fail(`${p}.${side}["${k}"]`, 'expected a param key of 1-64 characters')
        oneOf(t, `${p}.${side}["${k}"]`, SFS_TYPES)
      }
    }
  })
}

function fignet(v: unknown, path: string): void {
  const o = object(v, path, ['messages'])
  if (o.messages === undefined) return
  const ids = new Set<number>()
  array(o.messages, `${path}.messages`).forEach((m, i) => {
    const p = `${path}.messages[${i}]`
    const x = object(m, p, ['id', 'name', 'codec', 'fields'], ['id', 'name', 'codec'])
    const id = integer(x.id, `${p}.id`, 0, 65535)
    if (ids.has(id)) fail(`${p}.id`, `duplicate message id ${id}`)
    ids.add(id)
    text(x.name, `${p}.name`)
    const codec = oneOf(x.codec, `${p}.codec`, ['MemoryPack', 'BitBuffer'] as const)
    if (x.fields === undefined) return
    const types: readonly string[] = codec === 'MemoryPack' ? MEMORYPACK_TYPES : BITBUFFER_TYPES
    const fields = array(x.fields, `${p}.fields`)
    fields.forEach((f, j) => {
      const q = `${p}.fields[${j}]`
      const fo = object(f, q, ['name', 'type'], ['name', 'type'])
      ident(fo.name, `${q}.name`)
      oneOf(fo.type, `${q}.type`, types)
    })
    uniqueNames(
      fields.map((f) => (f as Obj).name as string),
      (j) => `${p}.fields[${j}].name`
    )
  })
}

/** Checks `v` (parsed JSON) and returns it as a pack, or throws SchemaError with the path and why. */
export function validateSchemaPack(v: unknown): SchemaPack {
  const o = object(v, '$', ['$schema', 'format', 'name', 'description', 'sources', 'appliesTo', 'photon', 'sfs2x', 'fignet'], ['format', 'name'])
  if (o.format !== SCHEMA_FORMAT)
    fail('$.format', `expected "${SCHEMA_FORMAT}", got ${typeof o.format === 'string' ? JSON.stringify(o.format) : kind(o.format)}`)
  text(o.name, '$.name')
  if (o.description !== undefined && typeof o.description !== 'string') fail('$.description', `expected a string, got ${kind(o.description)}`)
  if (o.sources !== undefined) array(o.sources, '$.sources').forEach((s, i) => text(s, `$.sources[${i}]`, 2000))
  if (o.appliesTo !== undefined) {
    const a = object(o.appliesTo, '$.appliesTo', ['ports', 'hosts'])
    if (a.ports === undefined && a.hosts === undefined) fail('$.appliesTo', 'expected ports or hosts (leave appliesTo out to apply to every conversation)')
    if (a.ports !== undefined) array(a.ports, '$.appliesTo.ports').forEach((p, i) => integer(p, `$.appliesTo.ports[${i}]`, 1, 65535))
    if (a.hosts !== undefined) array(a.hosts, '$.appliesTo.hosts').forEach((h, i) => text(h, `$.appliesTo.hosts[${i}]`, 100))
  }
  if (o.photon !== undefined) photon(o.photon, '$.photon')
  if (o.sfs2x !== undefined) sfs2x(o.sfs2x, '$.sfs2x')
  if (o.fignet !== undefined) fignet(o.fignet, '$.fignet')
  if (o.photon === undefined && o.sfs2x === undefined && o.fignet === undefined) fail('$', 'expected at least one of photon, sfs2x, fignet')
  return o as unknown as SchemaPack
}

/** Parses a pack file's text: a JSON syntax error is refused at `$` with the parser's reason. */
export function parseSchemaPack(text: string): SchemaPack {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch (e) {
    throw new SchemaError('$', `not JSON (${(e as Error).message})`)
  }
  return validateSchemaPack(v)
}
