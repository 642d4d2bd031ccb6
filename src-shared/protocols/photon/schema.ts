// A schema pack applied to a Photon message (docs/schema-packs.md): the pack's name for its code (or for
// the value of the parameter that carries the real code), names for its parameters — in labels, the
// summary, and as the filter key `photon.param.<name>` beside `photon.param.<code>` — and byte[]
// parameters read as the serialised value they hold, through the same readers as everything else.

import { DecodeError, FieldReader } from '../../bytes/reader'
import { TreeBuilder } from '../../bytes/tree'
import type { FieldNode } from '../../model/types'
import { F_SCHEMA, type PhotonMessageInfo, type PhotonParamInfo, type PhotonTables } from '../../schema/set'
import { readStruct } from '../../schema/struct'
import type { NestedSpec } from '../../schema/types'
import { readMessagePack } from '../fignet/messagepack'
import { readTypedValue } from './gpbinary'
import { previewValue, type PhotonParams, type PhotonValue } from './values'

export interface ParamSeen {
  code: number
  node: FieldNode | null
}

export interface SchemaMatch {
  info: PhotonMessageInfo | undefined
  realCode?: number
  params: Map<number, PhotonParamInfo>
}

function intOf(v: PhotonValue | undefined): number | undefined {
  if (!v) return undefined
  if (v.type === 'Byte' || v.type === 'Int16' || v.type === 'Int32') return v.value
  if (v.type === 'Int64' && v.value >= -(2n ** 31n) && v.value < 2n ** 31n) return Number(v.value)
  return undefined
}

/** The pack's entry for a message of kind `event` or operation with `code` and `parameters`. */
export function matchMessage(tables: PhotonTables, event: boolean, code: number, parameters: PhotonParams): SchemaMatch {
  const m = (event ? tables.events : tables.operations).match(code, (p) => intOf(parameters.get(String(p))))
  return { info: m?.info, realCode: m?.realCode, params: m?.info.params ?? tables.globals }
}

/**
 * Names the parameters read (`seen`), decodes nested byte[] values, and records what the pack decided
 * (schema.name, schema.code) at both depths. `r` is the reader the body was read with; `codeAt` the
 * body's code byte.
 */
export function applyToBody(
  r: FieldReader,
  match: SchemaMatch,
  parameters: PhotonParams,
  seen: readonly ParamSeen[],
  codeAt: number,
  warn: (text: string) => void,
  customTypes: PhotonTables['customTypes']
): void {
  for (const { code, node } of seen) {
    const info = match.params.get(code)
    if (!info) continue
    if (node) {
      node.alias = info.key
      const colon = node.label.indexOf(':')
      node.label = `${info.name} (${code})${colon < 0 ? '' : node.label.slice(colon)}`
    }
    const v = parameters.get(String(code))
    if (info.nested && v?.type === 'ByteArray') nested(r, v, info, node, warn, customTypes)
  }
  const { info } = match
  if (!info) return
  r.record(F_SCHEMA.name, info.name, codeAt, 1, () => `Schema name: ${JSON.stringify(info.name)} (pack ${JSON.stringify(info.pack)})`)
  if (match.realCode !== undefined) {
    const carrier = seen.find((s) => s.code === info.codeParameter)?.node
    const start = carrier?.start ?? codeAt
    r.record(
      F_SCHEMA.code,
      match.realCode,
      start,
      carrier?.length ?? 1,
      () => `Schema code: ${match.realCode} (parameter ${info.codeParameter} carries the real code)`
    )
  }
}

const FORMAT_TEXT: Record<NestedSpec['format'], string> = {
  protocol16: 'Protocol16',
  protocol18: 'Protocol18',
  messagepack: 'MessagePack',
  struct: 'struct layout'
}

/** Reads a byte[] parameter's bytes as the value the pack says they hold; the nodes go under its node. */
function nested(
  r: FieldReader,
  v: { value: Uint8Array; nested?: unknown },
  info: PhotonParamInfo,
  node: FieldNode | null,
  warn: (text: string) => void,
  customTypes: PhotonTables['customTypes']
): void {
  const spec = info.nested!
  const bytes = v.value
  // The bytes are a view into the body's source (the walker's bytesField), so ranges stay in that source.
  if (bytes.buffer !== r.bytes.buffer) return
  const start = bytes.byteOffset - r.bytes.byteOffset
  if (start < 0 || start + bytes.length > r.bytes.length) return
  const tb = new TreeBuilder(!!node)
  const sub = new FieldReader(r.bytes, tb, r.source, start, start + bytes.length)
  const group = tb.open({
    key: `photon.param.${info.code}.nested`,
    label: `Nested value (${FORMAT_TEXT[spec.format]})`,
    type: 'none',
    source: r.source,
    start,
    length: 0
  })
  try {
    if (spec.format === 'protocol16' || spec.format === 'protocol18') {
      const value = readTypedValue(sub, spec.format === 'protocol16' ? 16 : 18, { key: `photon.param.${info.code}.nested`, customTypes, warn })
      v.nested = value
      if (group) group.label = `Nested value (${FORMAT_TEXT[spec.format]}): ${previewValue(value, 40)}`
    } else if (spec.format === 'messagepack') {
      v.nested = readMessagePack(sub, {}, { key: `photon.param.${info.code}.nested`, name: 'Nested MessagePack value' })
    } else {
      v.nested = readStruct(sub, { endian: spec.endian, fields: spec.fields ?? [] }, `photon.param.${info.code}`)
    }
    if (sub.remaining) warn(`parameter ${info.name} (${info.code}): ${sub.remaining} bytes after its nested ${FORMAT_TEXT[spec.format]} value`)
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e
    warn(`parameter ${info.name} (${info.code}): not a ${FORMAT_TEXT[spec.format]} value as the schema pack says: ${e.message}`)
  } finally {
    tb.closeAll(sub.pos)
  }
  if (node) (node.children ??= []).push(...tb.roots)
}

/** `itemId=5 pos=[1, 2]`: the named parameters, in wire order (the real-code carrier left out). */
export function namedSummary(match: SchemaMatch, parameters: PhotonParams, max = 5): string {
  const parts: string[] = []
  for (const [code, v] of parameters) {
    const info = match.params.get(Number(code))
    if (!info || Number(code) === match.info?.codeParameter) continue
    if (parts.length >= max) {
      parts.push('…')
      break
    }
    parts.push(`${info.name}=${previewValue(v, 24)}`)
  }
  return parts.join(' ')
}
