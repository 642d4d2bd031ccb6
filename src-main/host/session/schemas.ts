// Schema packs (src-shared/schema, docs/schema-packs.md): the session's loaded packs, which conversations
// each applies to, and decoding the capture again when one is added or removed, as a key change does
// (names, summaries and the index change; the filters learn or forget the packs' fields).

import type { SchemaChange, SchemaInfo } from '../../../src-shared/api'
import type { SchemaPack } from '../../../src-shared/schema/types'
import { parseSchemaPack } from '../../../src-shared/schema/validate'
import type { SessionContext } from './context'

/** Most packs a session holds (the live-capture protocol allows as many). */
export const MAX_SCHEMAS = 100

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`

/** What a pack names, in words, for the panel's list. */
export function packContents(p: SchemaPack): string {
  const parts: string[] = []
  const ph = p.photon
  if (ph?.operations?.length) parts.push(count(ph.operations.length, 'operation'))
  if (ph?.events?.length) parts.push(count(ph.events.length, 'event'))
  const params = Object.keys(ph?.parameters ?? {}).length
  if (params) parts.push(count(params, 'global parameter'))
  if (ph?.customTypes?.length) parts.push(count(ph.customTypes.length, 'custom type'))
  if (p.sfs2x?.extensions?.length) parts.push(count(p.sfs2x.extensions.length, 'extension command'))
  if (p.fignet?.messages?.length) parts.push(count(p.fignet.messages.length, 'FigNet message'))
  return parts.join(', ') || 'no names'
}

function packProtocols(p: SchemaPack): string[] {
  return (['photon', 'sfs2x', 'fignet'] as const).filter((k) => p[k] !== undefined)
}

/** The pack's appliesTo in words. */
export function packAppliesTo(p: SchemaPack): string {
  const a = p.appliesTo
  if (!a) return 'all conversations'
  const parts: string[] = []
  if (a.ports?.length) parts.push(`${a.ports.length === 1 ? 'port' : 'ports'} ${a.ports.join(', ')}`)
  if (a.hosts?.length) parts.push(`${a.hosts.length === 1 ? 'host' : 'hosts'} ${a.hosts.join(', ')}`)
  return parts.join(' or ')
}

export class SchemasPart {
  constructor(
    private readonly ctx: SessionContext,
    /** Decodes the open capture again with the current packs (a file's or a live capture's frames). */
    private readonly redecode: () => Promise<void>
  ) {}

  /**
   * Conversations of the open capture a pack applies to: of a protocol it describes, and (the SchemaSet's
   * own rule) with either side on one of its ports or hosts.
   */
  private covers(p: SchemaPack): number[] {
    const out: number[] = []
    const protocols = packProtocols(p)
    const ports = new Set(p.appliesTo?.ports ?? [])
    const hosts = new Set(p.appliesTo?.hosts ?? [])
    const hit = (end: string) => {
      const at = end.lastIndexOf(':')
      return ports.has(Number(end.slice(at + 1))) || hosts.has(end.slice(0, at).replace(/^\[|\]$/g, ''))
    }
    for (const c of this.ctx.conversations.conversations()) {
      if (!protocols.some((k) => c.protocol === k || c.stack.includes(k))) continue
      if (!p.appliesTo || hit(c.client) || hit(c.server)) out.push(c.id)
    }
    return out
  }

  private info(p: SchemaPack): SchemaInfo {
    const info: SchemaInfo = {
      id: p.name,
      name: p.name,
      protocols: packProtocols(p),
      appliesTo: packAppliesTo(p),
      contents: packContents(p),
      covers: this.covers(p)
    }
    if (p.description) info.description = p.description
    return info
  }

  listSchemas(): SchemaInfo[] {
    return this.ctx.schemaPacks.map((p) => this.info(p))
  }

  /** The packs themselves, for the host to persist (not in the renderer's API). */
  exportSchemas(): SchemaPack[] {
    return this.ctx.schemaPacks
  }

  /**
   * Adds a pack given as JSON text; one of the same name is replaced. A pack that does not validate throws
   * SchemaError (`$.photon.events[0].code: expected …`) and changes nothing.
   */
  async addSchema(text: string): Promise<SchemaChange> {
    const pack = parseSchemaPack(text)
    const rest = this.ctx.schemaPacks.filter((p) => p.name !== pack.name)
    if (rest.length >= MAX_SCHEMAS) throw new Error(`at most ${MAX_SCHEMAS} schema packs can be loaded`)
    const old = this.ctx.schemaPacks.find((p) => p.name === pack.name)
    return this.change([...rest, pack], [pack, ...(old ? [old] : [])])
  }

  async removeSchema(id: string): Promise<SchemaChange> {
    const gone = this.ctx.schemaPacks.filter((p) => p.name === id)
    if (!gone.length) throw new Error(`no schema pack named ${JSON.stringify(id)} is loaded`)
    return this.change(
      this.ctx.schemaPacks.filter((p) => p.name !== id),
      gone
    )
  }

  private async change(packs: SchemaPack[], touched: SchemaPack[]): Promise<SchemaChange> {
    const covered = [...new Set(touched.flatMap((p) => this.covers(p)))].sort((a, b) => a - b)
    this.ctx.setSchemas(packs)
    // Every conversation is decoded again, covered or not: a pack's fields change what filters accept.
    if (this.ctx.store && this.ctx.phase !== 'empty') await this.redecode()
    return { redecoded: covered, schemas: this.listSchemas() }
  }
}
