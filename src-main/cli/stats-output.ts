// `gamewire stats` output, text or JSON, made a piece at a time: the conversation list is read one
// summary at a time from the engine's table, so a capture of a million conversations is never a
// million objects or one string of a hundred megabytes.

import type { OperationsReport, OperationStat } from '../../src-shared/analysis/operations'
import type { CaptureStats } from '../host/capture-stats'
import { jsonWithArray } from './output-pieces'

/** The text report, line by line (each ends in a newline). */
export function* statsText(s: CaptureStats): Generator<string> {
  yield `file: ${s.file} (${s.bytes} bytes)\n`
  yield `frames: ${s.frames}\n`
  const protocols =
    Object.entries(s.protocols)
      .map(([p, n]) => `${p} ${n}`)
      .join(', ') || 'none'
  yield `messages: ${s.messages} (${protocols}), ${s.errors} with errors\n`
  yield `conversations: ${s.conversations.conversationCount}\n`
  for (const c of s.conversations.conversations())
    yield `  #${c.id} ${c.transport} ${c.client} -> ${c.server} ${c.stack.join('/')} ${c.frames} frames ${c.bytes} bytes\n`
  for (const w of s.warnings) yield `warning: ${w}\n`
  if (s.operations) for (const line of operationLines(s.operations, s)) yield `${line}\n`
}

/** The JSON report: the same bytes as `JSON.stringify(report, null, 2)`, the conversations one at a time. */
export function statsJson(s: CaptureStats): Generator<string> {
  return jsonWithArray(s, 'conversations', s.conversations.conversations())
}

/** `stats --ops` as text: one table overall, then one per conversation with requests or responses. */
function operationLines(r: OperationsReport, s: CaptureStats): string[] {
  const fmt = (v: number | null) => (v === null ? '-' : String(Math.round(v * 1000) / 1000))
  const table = (ops: OperationStat[], indent: string): string[] => {
    const rows = [
      ['protocol', 'operation', 'requests', 'responses', 'unanswered', 'p50 ms', 'p95 ms', 'max ms'],
      ...ops.map((o) => [o.protocol, o.name, String(o.count), String(o.responses), String(o.unanswered), fmt(o.p50), fmt(o.p95), fmt(o.max)])
    ]
    const widths = rows[0].map((_, k) => Math.max(...rows.map((row) => row[k].length)))
    return rows.map(
      (row) =>
        indent +
        row
          .map((cell, k) => (k < 2 ? cell.padEnd(widths[k]) : cell.padStart(widths[k])))
          .join('  ')
          .trimEnd()
    )
  }
  if (r.overall.length === 0) return ['operations: no requests or responses']
  const infos = s.conversations.conversationInfos(r.conversations.map((c) => c.conversation))
  const out = ['operations (all conversations):', ...table(r.overall, '  ')]
  r.conversations.forEach((c, k) => {
    const conv = infos[k]
    out.push(`operations in #${c.conversation}${conv ? ` ${conv.client} -> ${conv.server}` : ''}:`, ...table(c.operations, '  '))
  })
  return out
}
