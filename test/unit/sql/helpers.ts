// What the SQL tests compare with: the NDJSON export of the same capture (`decode --format ndjson`, run
// through the built CLI), and DuckDB reading Parquet on its own (not through gamewire's views).
import { join } from 'node:path'
import { expect } from 'vitest'
import { DuckDBInstance } from '@duckdb/node-api'
import { gw, ROOT } from '../helpers/cli'

export const PHOTON = join(ROOT, 'test/fixtures/ui/photon-session.pcapng')
export const SFS2X = join(ROOT, 'test/fixtures/sfs2x/sdk-ws.pcapng')
export const FIGNET = join(ROOT, 'test/fixtures/enet/enet-fignet-loopback.pcapng')
/** Photon (decrypted with its key file), SFS2X and FigNet in one capture. */
export const DEMO = join(ROOT, 'resources/demo.pcapng')
export const DEMO_KEYS = join(ROOT, 'resources/demo-keys.txt')
export const CAPTURES = [PHOTON, SFS2X, FIGNET, DEMO]

export interface TreeNode {
  key: string
  label: string
  type: string
  value?: unknown
  source?: number
  start?: number
  length?: number
  children: TreeNode[]
}

export interface ExportMessage {
  id: number
  conversation: number
  direction: string
  frames: number[]
  time: number
  protocol: string
  stack: string[]
  name: string
  summary: string
  value: unknown
  tree: TreeNode[]
  sources: { name: string; length: number }[]
  warnings: string[]
  error: string | null
  /** The exact text the export wrote for `value`. */
  valueText: string
}

export interface Export {
  messages: ExportMessage[]
  conversations: Record<string, unknown>[]
}

/**
 * The `value` member's text in an NDJSON message line. Strings in a line are escaped, so the first bare
 * `,"value":` is the message's own key, and the message's `,"tree":[` is the last one (tree nodes have
 * no `tree` key; the value, written before it, may).
 */
function valueText(line: string): string {
  const start = line.indexOf(',"value":') + ',"value":'.length
  return line.slice(start, line.lastIndexOf(',"tree":['))
}

/** `decode CAPTURE --format ndjson` (full trees), with the demo's keys as the SQL runs get them. */
export function ndjsonExport(capture: string): Export {
  const r = gw('decode', capture, '--format', 'ndjson', '--keylog', DEMO_KEYS, '--jobs', '1')
  expect(r.code, r.stderr).toBe(0)
  const lines = r.stdout.trimEnd().split('\n')
  const summary = JSON.parse(lines.pop()!).summary
  return { messages: lines.map((l) => ({ ...JSON.parse(l), valueText: valueText(l) })), conversations: summary.conversations }
}

/** Tree leaves in tree order, as `fields` rows are. */
export function leaves(nodes: TreeNode[], out: TreeNode[] = []): TreeNode[] {
  for (const n of nodes) {
    if (n.children.length) leaves(n.children, out)
    else out.push(n)
  }
  return out
}

/** Runs SQL in a fresh in-memory DuckDB; rows as JS values (BIGINT as bigint, BLOB as bytes). */
export async function duck(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:')
  const connection = await instance.connect()
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[]
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}
