// The loaded schema packs, compiled for the decoders: per conversation, the packs that apply to it
// (appliesTo: either side's port or host, since roles may be decided after the first packet) merged in load
// order, the first pack that names a code winning. Plain data in (validated packs), so a worker rebuilds
// the same set from the same packs.

import { defineDynamicFields, defineFields, setSchemaOverlay, type FieldDef } from '../bytes/fields'
import type { FigNetMessageSpec, NestedSpec, PhotonCustomTypeSpec, PhotonMessageSpec, PhotonParams, SchemaPack, SfsExtensionSpec } from './types'

// What a pack decided about a message, for every protocol: index fields, so a filter on them answers
// from the index (`schema.name == "Move"`).
export const F_SCHEMA = defineFields('schema', {
  name: ['Schema name', 'string', { index: true, description: "The loaded schema pack's name for the message" }],
  code: ['Schema code', 'i32', { index: true, description: "The real code, read from the pack's codeParameter" }],
  pack: ['Schema pack', 'string', { description: 'The pack that named the message' }]
})

export interface PhotonParamInfo {
  code: number
  name: string
  /** `photon.param.<name>`: the key the parameter's node also answers to in filters. */
  key: string
  nested?: NestedSpec
}

export interface PhotonMessageInfo {
  name: string
  pack: string
  /** The real code and the parameter it came from (codeParameter entries). */
  codeParameter?: number
  params: Map<number, PhotonParamInfo>
}

/** Codes of one kind (operations or events) from the applicable packs. */
class PhotonCodes {
  readonly byWire = new Map<number, PhotonMessageInfo>()
  /** codeParameter entries, grouped by parameter and wire code (-1 = any). */
  readonly byParam: { parameter: number; wireCode: number; codes: Map<number, PhotonMessageInfo> }[] = []

  add(spec: PhotonMessageSpec, pack: string, globals: Map<number, PhotonParamInfo>): void {
    const info: PhotonMessageInfo = { name: spec.name, pack, params: params(spec.parameters, globals) }
    if (spec.codeParameter === undefined) {
      if (!this.byWire.has(spec.code)) this.byWire.set(spec.code, info)
      return
    }
    info.codeParameter = spec.codeParameter
    const wire = spec.wireCode ?? -1
    let g = this.byParam.find((x) => x.parameter === spec.codeParameter && x.wireCode === wire)
    if (!g) this.byParam.push((g = { parameter: spec.codeParameter, wireCode: wire, codes: new Map() }))
    if (!g.codes.has(spec.code)) g.codes.set(spec.code, info)
  }

  /** The entry for a message: a codeParameter entry whose parameter holds a known code first, else by wire code. */
  match(wire: number, param: (code: number) => number | undefined): { info: PhotonMessageInfo; realCode?: number } | undefined {
    for (const g of this.byParam) {
      if (g.wireCode >= 0 && g.wireCode !== wire) continue
      const v = param(g.parameter)
      if (v === undefined) continue
      const info = g.codes.get(v)
      if (info) return { info, realCode: v }
    }
    const info = this.byWire.get(wire)
    return info && { info }
  }
}

function params(spec: PhotonParams | undefined, globals: Map<number, PhotonParamInfo>): Map<number, PhotonParamInfo> {
  const out = new Map(globals)
  for (const [code, s] of Object.entries(spec ?? {})) {
    const c = Number(code)
    const name = typeof s === 'string' ? s : s.name
    out.set(c, { code: c, name, key: `photon.param.${name}`, nested: typeof s === 'string' ? undefined : s.nested })
  }
  return out
}

export class PhotonTables {
  readonly globals = new Map<number, PhotonParamInfo>()
  readonly operations = new PhotonCodes()
  readonly events = new PhotonCodes()
  readonly customTypes = new Map<number, PhotonCustomTypeSpec>()

  constructor(packs: readonly SchemaPack[]) {
    for (const p of packs) {
      for (const [c, info] of params(p.photon?.parameters, new Map())) if (!this.globals.has(c)) this.globals.set(c, info)
    }
    for (const p of packs) {
      const ph = p.photon
      if (!ph) continue
      for (const m of ph.operations ?? []) this.operations.add(m, p.name, this.globals)
      for (const m of ph.events ?? []) this.events.add(m, p.name, this.globals)
      for (const t of ph.customTypes ?? []) if (!this.customTypes.has(t.code)) this.customTypes.set(t.code, t)
    }
  }
}

export class Sfs2xTables {
  readonly extensions = new Map<string, SfsExtensionSpec & { pack: string }>()
  constructor(packs: readonly SchemaPack[]) {
    for (const p of packs)
      for (const e of p.sfs2x?.extensions ?? []) if (!this.extensions.has(e.command)) this.extensions.set(e.command, { ...e, pack: p.name })
  }
}

export class FigNetTables {
  readonly messages = new Map<number, FigNetMessageSpec & { pack: string }>()
  constructor(packs: readonly SchemaPack[]) {
    for (const p of packs) for (const m of p.fignet?.messages ?? []) if (!this.messages.has(m.id)) this.messages.set(m.id, { ...m, pack: p.name })
  }
}

/** The packs that apply to one conversation, compiled per protocol on first use. */
export class AppliedSchema {
  private ph?: PhotonTables
  private sfs?: Sfs2xTables
  private fig?: FigNetTables
  constructor(readonly packs: readonly SchemaPack[]) {}
  get photon(): PhotonTables | undefined {
    return this.packs.some((p) => p.photon) ? (this.ph ??= new PhotonTables(this.packs)) : undefined
  }
  get sfs2x(): Sfs2xTables | undefined {
    return this.packs.some((p) => p.sfs2x) ? (this.sfs ??= new Sfs2xTables(this.packs)) : undefined
  }
  get fignet(): FigNetTables | undefined {
    return this.packs.some((p) => p.fignet) ? (this.fig ??= new FigNetTables(this.packs)) : undefined
  }
}

/** `1.2.3.4:5055`, `[::1]:5055` or `::1:5055` -> host and port. */
function endpoint(text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(':')
  const host = colon < 0 ? text : text.slice(0, colon)
  return { host: host.replace(/^\[|\]$/g, ''), port: colon < 0 ? NaN : Number(text.slice(colon + 1)) }
}

function applies(p: SchemaPack, ends: { host: string; port: number }[]): boolean {
  const a = p.appliesTo
  if (!a) return true
  return ends.some((e) => !!a.ports?.includes(e.port) || !!a.hosts?.includes(e.host))
}

export class SchemaSet {
  private readonly cache = new Map<string, AppliedSchema | undefined>()
  constructor(readonly packs: readonly SchemaPack[]) {}

  get size(): number {
    return this.packs.length
  }

  /** The packs for a conversation between endpoints `a` and `b` (`ip:port`); undefined when none applies. */
  forConversation(a: string, b: string): AppliedSchema | undefined {
    const ends = [endpoint(a), endpoint(b)]
    const chosen = this.packs.filter((p) => applies(p, ends))
    if (!chosen.length) return undefined
    const id = chosen.map((p) => this.packs.indexOf(p)).join(',')
    if (!this.cache.has(id)) this.cache.set(id, new AppliedSchema(chosen))
    return this.cache.get(id)
  }
}

/**
 * The filter fields the packs add, for filters and the filter bar's completion (bytes/fields.ts overlay):
 * every named Photon parameter, FigNet field and the packs' names for operation, event and message codes.
 */
export function schemaFieldDefs(packs: readonly SchemaPack[]): FieldDef[] {
  const out = new Map<string, FieldDef>()
  const names = (key: string, code: number, name: string) => {
    const d = out.get(key) ?? { key, name: key, type: 'none' as const, names: {} as Record<number, string> }
    ;(d.names as Record<number, string>)[code] ??= name
    out.set(key, d)
  }
  const param = (name: string, code: number, pack: string) => {
    const key = `photon.param.${name}`
    if (!out.has(key)) out.set(key, { key, name, type: 'none', description: `Photon parameter ${code}, named by the schema pack ${JSON.stringify(pack)}` })
  }
  for (const p of packs) {
    const ph = p.photon
    for (const [code, s] of Object.entries(ph?.parameters ?? {})) param(typeof s === 'string' ? s : s.name, Number(code), p.name)
    for (const [list, key] of [
      [ph?.operations, 'photon.op.code'],
      [ph?.events, 'photon.ev.code']
    ] as const) {
      for (const m of list ?? []) {
        if (m.codeParameter === undefined) names(key, m.code, m.name)
        else names('schema.code', m.code, m.name)
        for (const [code, s] of Object.entries(m.parameters ?? {})) param(typeof s === 'string' ? s : s.name, Number(code), p.name)
      }
    }
    for (const m of p.fignet?.messages ?? []) {
      names('fignet.msg_id', m.id, m.name)
      for (const f of m.fields ?? []) {
        const key = `fignet.field.${f.name}`
        if (!out.has(key))
          out.set(key, { key, name: f.name, type: 'none', description: `${m.name}.${f.name} (${f.type}), from the schema pack ${JSON.stringify(p.name)}` })
      }
    }
  }
  return [...out.values()]
}

/** Makes the packs' fields known to this process's filters and field list (replacing the previous packs'). */
export function registerSchemaFields(packs: readonly SchemaPack[]): void {
  setSchemaOverlay(schemaFieldDefs(packs))
}

// Fields of FigNet messages a pack lays out: `fignet.field.<name>`.
defineDynamicFields('fignet.field', 'FigNet field named by a schema pack')
