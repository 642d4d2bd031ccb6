// Field-range check without vitest, so worker-thread jobs (helpers/time-limit.ts) can run it too.
import type { DecodedMessage, FieldNode } from '../../../src-shared/model/types'

/** Every field range must lie inside its data source: the violations, as text (empty when none). */
export function rangeProblems(m: DecodedMessage): string[] {
  const out: string[] = []
  const walk = (nodes: FieldNode[]) => {
    for (const n of nodes) {
      if (n.source !== undefined) {
        const src = m.sources[n.source]
        if (!src) out.push(`message ${m.id} ${n.key}: source ${n.source} of ${m.sources.length}`)
        else if (!(n.start! >= 0 && n.length! >= 0) || n.start! + n.length! > src.bytes.length) {
          out.push(`message ${m.id} ${n.key}: range ${n.start}+${n.length} outside source ${n.source} (${src.bytes.length} bytes)`)
        }
      }
      walk(n.children ?? [])
    }
  }
  walk(m.tree)
  return out
}
