// What a timeline view asks of each message: does it pass the display filter, and what do its extra
// columns show. Also says whether the field trees are needed at all: a filter on frame/IP/port/gamewire
// fields (a conversation click, a time brush) runs on the fast pass without building trees.

import { compileFilter, type CompiledFilter, type FilterTarget } from '../../src-shared/filter'
import { isLayerKey, META_FAMILIES, META_KEYS, MessageTargets, type MessageFrames } from '../../src-shared/engine/meta-fields'
import { toHex } from '../../src-shared/bytes/tree'
import type { Conversation } from '../../src-shared/engine/conversation'
import type { DecodedMessage, FieldScalar } from '../../src-shared/model/types'
import type { WireDir } from '../../src-shared/model/types'
import { isIndexedFirstLevel, isIndexKey, isPresenceField, presenceKey } from '../../src-shared/bytes/fields'
import { IndexTarget, LAYERS, type MessageIndex } from '../../src-shared/engine/message-index'
import { CONVERSATION_LAYER_KEYS } from '../../src-shared/net/layers'

const CELL_MAX = 160

// Keys messageMetaFields fills from the frame and conversation (no tree needed), frame.len and
// frame.cap_len from the session's stored frames. Other frame.* keys (frame.interface_id…) are the frames'
// layers, parsed again from the stored frames (LayeredTarget).
const META_PREFIXES = ['gamewire.']

/** True when a key's values come from the message's meta fields or its protocol stack alone. */
export function isMetaKey(key: string): boolean {
  if (!key.includes('.')) return LAYERS.has(key) || META_FAMILIES.has(key)
  return META_KEYS.has(key) || META_PREFIXES.some((p) => key.startsWith(p))
}

/**
 * True when a filter on these keys needs the field trees: some key is neither a meta key nor an index key
 * (an index field, or a subtree of them only such as `photon.ev`), nor one of `presenceOnly` (the keys the
 * filter only tests for presence) whose presence the index keeps (`photon.param.245`), nor a header field
 * of the frames (`ip.ttl`: needsLayers, read from the frames themselves beside the message, LayeredTarget).
 * A message decoded without a tree carries its index fields' values and presences (`indexed`), which
 * targetFromMessage reads, so `photon.ev.code == 200`, `photon.ev` and `photon.param.245` are matched on the
 * fast pass, as the app's index answers them.
 */
export function filterNeedsTree(keys: readonly string[], presenceOnly: readonly string[] = []): boolean {
  return keys.some((k) => !isMetaKey(k) && !indexKeeps(k, presenceOnly) && !isLayerKey(k))
}

/**
 * How deep a decode goes whose output has trees or not (`outputTrees`) and that `filter` selects from: trees
 * when the output has them or the filter reads a field the tree-less pass does not keep; labels, and every
 * node, only for the output's (the filter reads the keys it names, and their values).
 */
export function decodeDepth(outputTrees: boolean, filter: CompiledFilter | undefined): { recording: boolean; labels: boolean; interest?: readonly string[] } {
  const fields = filter?.fields ?? []
  const recording = outputTrees || filterNeedsTree(fields, filter?.presenceOnly)
  if (outputTrees || !recording) return { recording, labels: outputTrees }
  return { recording, labels: false, interest: fields }
}

/** True when the index keeps what a filter reads of `key`: its values, or its presence where that is all it tests. */
function indexKeeps(key: string, presenceOnly: readonly string[]): boolean {
  return isIndexKey(key) || (presenceOnly.includes(key) && isPresenceField(key))
}

export function formatCell(values: readonly FieldScalar[]): string {
  let out = ''
  for (const v of values) {
    const s = v instanceof Uint8Array ? toHex(v.subarray(0, CELL_MAX / 2)) : v === null ? 'null' : typeof v === 'string' ? v : String(v)
    out = out ? `${out}, ${s}` : s
    if (out.length >= CELL_MAX) return out.slice(0, CELL_MAX - 1) + '…'
  }
  return out
}

// Layers whose fields carry another prefix: FigNet's Entangle models are `entangle.*`.
const LAYER_OF_PREFIX: Record<string, string> = { entangle: 'fignet' }

/** The layer whose messages carry fields of this key family (`entangle` -> `fignet`; `photon` -> itself). */
export function layerOfFamily(family: string): string {
  return LAYER_OF_PREFIX[family] ?? family
}

/**
 * What a view needs beyond the message index: the layers whose messages must be decoded again (with
 * trees) because the filter or a column reads a field the index does not keep ('all' when such a field
 * could be in any message), the presence keys that mark the rows to decode again because they hold values
 * of a read key that the index keeps on other rows only (`photon.param.254`: isIndexedFirstLevel), and
 * whether it reads the summary, which the index keeps cut at 120 characters.
 */
export interface ViewPlan {
  replayLayers: ReadonlySet<string> | 'all'
  treeMarks: readonly string[]
  readsSummary: boolean
  /** Header fields read from each row's stored frames, parsed again (LayeredTarget), not by decoding again. */
  frameLayers: readonly string[]
}

export class ViewMatcher {
  readonly filter: CompiledFilter | undefined
  /**
   * Matching or showing needs field trees: some key is neither a meta key nor one the index keeps. A
   * message decoded without a tree (a live one) answers the others (filterNeedsTree).
   */
  readonly needsTree: boolean
  readonly plan: ViewPlan
  /** A decoded message as the target of the filter and the columns: it collects every key they read. */
  private readonly targets: MessageTargets
  /** The keys the filter and the columns read: all that trees decoded for this view need keep. */
  readonly keys: readonly string[]

  /** Throws FilterError for a bad filter. `frames`: the session's stored frames (frame.len, ip.ttl…). */
  constructor(
    filterText: string,
    readonly columns: readonly string[],
    frames?: MessageFrames
  ) {
    this.filter = filterText.trim() ? compileFilter(filterText) : undefined
    const keys = [...new Set([...(this.filter?.fields ?? []), ...columns])]
    this.keys = keys
    this.targets = new MessageTargets(keys, frames ?? {})
    // A column shows values: only the filter's own presence tests read no more than presence.
    const presenceOnly = (this.filter?.presenceOnly ?? []).filter((k) => !columns.includes(k))
    this.needsTree = filterNeedsTree(keys, presenceOnly)
    const replay = new Set<string>()
    const treeMarks: string[] = []
    const frameLayers: string[] = []
    let all = false
    for (const k of keys) {
      if (IndexTarget.answers(k) || indexKeeps(k, presenceOnly)) continue
      if (isLayerKey(k) && !CONVERSATION_LAYER_KEYS.has(k)) {
        frameLayers.push(k)
        continue
      }
      if (isIndexedFirstLevel(k)) {
        treeMarks.push(presenceKey(k))
        continue
      }
      const prefix = k.split('.')[0]
      // A key under a layer's name occurs only in messages with that layer (Entangle fields under FigNet).
      const layer = layerOfFamily(prefix)
      if (LAYERS.has(layer)) replay.add(layer)
      else all = true
    }
    this.plan = { replayLayers: all ? 'all' : replay, treeMarks, readsSummary: keys.includes('gamewire.summary'), frameLayers }
  }

  /** True when index row `row` can be answered from the index alone. */
  indexAnswers(index: MessageIndex, row: number): boolean {
    const { replayLayers, treeMarks, readsSummary } = this.plan
    if (replayLayers === 'all') return false
    if (readsSummary && index.summaryCutAt(row)) return false
    for (let i = 0; i < treeMarks.length; i++) if (index.fields.get(treeMarks[i])?.has(row)) return false
    if (replayLayers.size === 0) return true
    for (const l of index.layersAt(row)) if (replayLayers.has(l)) return false
    return true
  }

  /** True when neither a filter nor columns need a pass over the messages. */
  get trivial(): boolean {
    return !this.filter && this.columns.length === 0
  }

  target(m: DecodedMessage, conv: Conversation, dir: WireDir): FilterTarget {
    return this.targets.of(m, conv, dir)
  }

  matches(t: FilterTarget): boolean {
    return !this.filter || this.filter.matches(t)
  }

  cells(t: FilterTarget): string[] {
    return this.columns.map((k) => formatCell(t.values(k)))
  }
}
