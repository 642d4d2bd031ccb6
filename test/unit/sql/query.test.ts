// `gamewire query`: the same questions asked of captures (decoded on the fly) and of Parquet directories
// (flat and partitioned) give the same answers, and those answers are the ones computed here from the
// NDJSON export; the output formats; --schema; errors as one line and an exit code.
import { beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gw, ROOT } from '../helpers/cli'
import { TABLES } from '../../../src-main/sql/tables'
import { basename, CAPTURES, DEMO_KEYS, leaves, ndjsonExport, PHOTON, SFS2X, type Export } from './helpers'

const tmp = mkdtempSync(join(tmpdir(), 'gw-query-'))
const FLAT = join(tmp, 'flat')
const BY_CAPTURE = join(tmp, 'by-capture')
const exports = new Map<string, Export>()

beforeAll(() => {
  for (const [dir, extra] of [
    [FLAT, []],
    [BY_CAPTURE, ['--partition-by', 'capture']]
  ] as const) {
    const r = gw('decode', ...CAPTURES, '--keylog', DEMO_KEYS, '--format', 'parquet', '-o', dir, ...extra)
    expect(r.code, r.stderr).toBe(0)
  }
  for (const c of CAPTURES) exports.set(basename(c), ndjsonExport(c))
}, 60_000)

/**
 * The same SQL over the captures and the flat Parquet directory (and the partitioned one when `all`): one
 * answer, parsed.
 */
function ask(sql: string, format = 'json', all = false): unknown {
  const outs = [[...CAPTURES, '--keylog', DEMO_KEYS], [FLAT], ...(all ? [[BY_CAPTURE]] : [])].map((sources) => {
    const r = gw('query', ...sources, '--sql', sql, '--format', format)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    return r.stdout
  })
  expect(outs[1], 'flat Parquet vs captures').toBe(outs[0])
  if (all) expect(outs[2], 'partitioned Parquet vs captures').toBe(outs[0])
  return format === 'json' ? JSON.parse(outs[0]) : outs[0]
}

const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) => (JSON.stringify(Object.values(a)) < JSON.stringify(Object.values(b)) ? -1 : 1)

describe('gamewire query: answers', () => {
  it('messages per capture and protocol', () => {
    const got = ask('SELECT capture, protocol, count(*) AS n FROM messages GROUP BY ALL ORDER BY capture, protocol', 'json', true)
    const expected: Record<string, unknown>[] = []
    for (const [capture, exp] of exports) {
      const counts = new Map<string, number>()
      for (const m of exp.messages) counts.set(m.protocol, (counts.get(m.protocol) ?? 0) + 1)
      for (const [protocol, n] of counts) expected.push({ capture, protocol, n })
    }
    expect(got).toEqual(expected.sort(byKey))
  })

  it('which Photon operations never got a response', () => {
    // A Photon response names its request's frame (value.responseTo, docs/photon.md).
    const got = ask(`SELECT r.capture, r.conversation, r.value->>'$.codeName' AS operation, count(*) AS unanswered
      FROM messages r
      WHERE r.protocol = 'photon' AND (r.value->>'$.msgTypeName') = 'OperationRequest'
        AND NOT EXISTS (SELECT 1 FROM messages s WHERE s.capture = r.capture AND s.conversation = r.conversation
          AND (s.value->>'$.msgTypeName') = 'OperationResponse' AND list_contains(r.frames, (s.value->>'$.responseTo')::INTEGER))
      GROUP BY ALL ORDER BY ALL`)
    const expected = new Map<string, Record<string, unknown>>()
    for (const [capture, exp] of exports) {
      const v = (m: { value: unknown }) => m.value as Record<string, unknown>
      const answered = new Set(
        exp.messages.filter((m) => m.protocol === 'photon' && v(m).msgTypeName === 'OperationResponse').map((m) => `${m.conversation}/${v(m).responseTo}`)
      )
      for (const m of exp.messages) {
        if (m.protocol !== 'photon' || v(m).msgTypeName !== 'OperationRequest') continue
        if (m.frames.some((f) => answered.has(`${m.conversation}/${f}`))) continue
        const operation = (v(m).codeName as string | undefined) ?? null
        const k = `${capture}/${m.conversation}/${operation}`
        const row = expected.get(k) ?? { capture, conversation: m.conversation, operation, unanswered: 0 }
        row.unanswered = (row.unanswered as number) + 1
        expected.set(k, row)
      }
    }
    // NULLs sort last in DuckDB's ORDER BY
    const sorted = [...expected.values()].sort((a, b) =>
      a.capture !== b.capture
        ? byKey(a, b)
        : a.conversation !== b.conversation
          ? (a.conversation as number) - (b.conversation as number)
          : a.operation === null
            ? 1
            : b.operation === null
              ? -1
              : byKey(a, b)
    )
    expect(got).toEqual(sorted)
    expect(sorted.some((r) => r.capture === 'demo.pcapng' && r.operation === 'RaiseEvent')).toBe(true)
  })

  it('a field a column away: Photon operation codes from the fields table', () => {
    const got = ask(`SELECT capture, int AS code, count(*) AS n FROM fields WHERE key = 'photon.op.code' GROUP BY ALL ORDER BY capture, code`, 'json', true)
    const expected: Record<string, unknown>[] = []
    for (const [capture, exp] of exports) {
      const counts = new Map<number, number>()
      for (const m of exp.messages)
        for (const l of leaves(m.tree)) if (l.key === 'photon.op.code') counts.set(l.value as number, (counts.get(l.value as number) ?? 0) + 1)
      for (const [code, n] of [...counts].sort((a, b) => a[0] - b[0])) expected.push({ capture, code, n })
    }
    expected.sort((a, b) => (a.capture !== b.capture ? ((a.capture as string) < (b.capture as string) ? -1 : 1) : (a.code as number) - (b.code as number)))
    expect(got).toEqual(expected)
    expect(expected.length).toBeGreaterThan(3)
  })

  it('conversations joined with their messages', () => {
    const got = ask(`SELECT c.capture, c.id, c.client, c.server, c.protocol, count(m.id) AS messages
      FROM conversations c LEFT JOIN messages m ON m.capture = c.capture AND m.conversation = c.id GROUP BY ALL ORDER BY c.capture, c.id`)
    const expected = [...exports].flatMap(([capture, exp]) =>
      exp.conversations.map((c) => ({
        capture,
        id: c.id,
        client: c.client,
        server: c.server,
        protocol: c.protocol,
        messages: exp.messages.filter((m) => m.conversation === c.id).length
      }))
    )
    expect(got).toEqual(expected.sort(byKey))
    expect(expected.length).toBeGreaterThan(5)
  })
})

describe('gamewire query: output and schema', () => {
  const SQL = "SELECT id, name, summary, frames, time, value FROM messages WHERE protocol = 'sfs2x' ORDER BY id LIMIT 3"

  it('csv: a header, then one line a row, quoted where needed; the same for captures and Parquet', () => {
    const csv = ask(SQL.replace('FROM', ', capture FROM').replace('ORDER BY id', 'ORDER BY capture, id'), 'csv') as string
    const lines = csv.split('\r\n')
    expect(lines[0]).toBe('id,name,summary,frames,time,value,capture')
    expect(lines.length).toBe(3 + 2) // the header, 3 rows, and the empty string after the last CRLF
    expect(lines.at(-1)).toBe('')
    expect(lines[1]).toMatch(/^\d+,\S[^,]*,[^,]*,("\[\d+(,\d+)+\]"|\[\d+\]),\d{4}-\d\d-\d\d [\d:.]+,"\{.*\}",demo\.pcapng$/)
  })

  it('csv and json of one capture agree with its export', () => {
    const exp = exports
      .get(basename(SFS2X))!
      .messages.filter((m) => m.protocol === 'sfs2x')
      .slice(0, 3)
    const r = gw('query', SFS2X, '--sql', SQL, '--format', 'json')
    expect(r.code, r.stderr).toBe(0)
    const rows = JSON.parse(r.stdout)
    expect(rows.map((x: Record<string, unknown>) => [x.id, x.name, x.summary, x.frames, x.value])).toEqual(
      exp.map((m) => [m.id, m.name, m.summary, m.frames, m.value])
    )
    // a TIMESTAMP is written as UTC text with microseconds (trailing zeros left out)
    const [whole, frac = ''] = rows[0].time.split('.')
    expect(Date.parse(`${whole.replace(' ', 'T')}Z`) * 1000 + Number(frac.padEnd(6, '0'))).toBe(Math.round(exp[0].time * 1e6))
    const csv = gw('query', SFS2X, '--sql', SQL, '--format', 'csv').stdout.split('\r\n')
    // the value column's JSON holds quotes and commas: quoted, quotes doubled
    const frames = JSON.stringify(exp[0].frames)
    expect(csv[1]).toBe(
      `${exp[0].id},${exp[0].name},${exp[0].summary},${frames.includes(',') ? `"${frames}"` : frames},${rows[0].time},"${exp[0].valueText.replaceAll('"', '""')}"`
    )
  })

  it('table: aligned columns, long cells cut, NULL shown, the row count last', () => {
    const r = gw('query', SFS2X, '--sql', 'SELECT id, name, value, error FROM messages ORDER BY id LIMIT 2')
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^id {2}name +value +error$/)
    expect(lines[1]).toMatch(/^-+ {2}-+ {2}-+ {2}-+$/)
    expect(lines[2]).toMatch(/^ 1 {2}\S.*… {2}NULL$/)
    expect(lines.at(-1)).toBe('(2 rows)')
    // every cell starts under its column's name
    for (const l of lines.slice(2, 4)) {
      expect(l.indexOf('{')).toBe(lines[0].indexOf('value'))
      expect(l.slice(lines[0].indexOf('error'))).toBe('NULL')
      expect(l.indexOf('…')).toBe(lines[0].indexOf('error') - 3)
    }
  })

  it('--tables lists every column; every source shows the tables with exactly those columns, in order', () => {
    const r = gw('query', '--tables')
    expect(r.code).toBe(0)
    // `query --schema` with nothing else is the same listing (a FILE after it would be a schema pack)
    expect(gw('query', '--schema')).toEqual(r)
    for (const t of TABLES) {
      expect(r.stdout).toContain(`${t.name}: `)
      for (const c of t.columns) expect(r.stdout).toMatch(new RegExp(`^  ${c.name} +${c.type.replace(/[[\]]/g, '\\$&')} +\\S`, 'm'))
    }
    const describe = ask(
      TABLES.map((t) => `SELECT '${t.name}' AS "table", column_name AS name, column_type AS type FROM (DESCRIBE ${t.name})`).join(' UNION ALL '),
      'json',
      true
    )
    expect(describe).toEqual(TABLES.flatMap((t) => t.columns.map((c) => ({ table: t.name, name: c.name, type: c.type }))))
  })

  it('a capture query that never reads fields gives the same messages (fields left empty is invisible)', () => {
    const sql = 'SELECT count(*) AS n, sum(length) AS bytes FROM messages'
    const a = gw('query', PHOTON, '--sql', sql, '--format', 'json')
    const b = gw('query', PHOTON, '--sql', `${sql} WHERE (SELECT count(*) FROM fields) > 0`, '--format', 'json')
    expect(a.code, a.stderr).toBe(0)
    expect(JSON.parse(a.stdout)).toEqual(JSON.parse(b.stdout))
    expect(JSON.parse(a.stdout)[0].n).toBe(exports.get(basename(PHOTON))!.messages.length)
  })
})

describe('gamewire query and decode --format parquet: mistakes', () => {
  const oneLine = (r: ReturnType<typeof gw>, pattern: RegExp) => {
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(pattern)
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(r.stderr).not.toMatch(/\bat .*:\d+:\d+/)
  }

  it('SQL errors, missing and mixed sources are one line and exit 2', () => {
    oneLine(gw('query', FLAT, '--sql', 'SELEC 1'), /^gamewire: Parser Error: syntax error at or near "SELEC"/)
    oneLine(gw('query', SFS2X, '--sql', 'SELECT nope FROM messages'), /^gamewire: Binder Error: .*nope/)
    oneLine(gw('query', join(tmp, 'missing'), '--sql', 'SELECT 1'), /^gamewire: source not found: /)
    oneLine(gw('query', FLAT, SFS2X, '--sql', 'SELECT 1'), /^gamewire: give either capture files or Parquet directories, not both/)
    oneLine(gw('query', tmp, '--sql', 'SELECT 1'), /is not a gamewire Parquet directory/)
    oneLine(gw('query', join(ROOT, 'README.md'), '--sql', 'SELECT 1'), /README\.md: not a pcap or pcapng file/)
    oneLine(gw('query', FLAT), /needs --sql/)
    oneLine(gw('query', FLAT, '--sql', 'SELECT 1', '--format', 'xml'), /--format must be table, csv, json/)
  })

  it('decode --format parquet refuses a non-empty directory and leaves it as it was; -o and --partition-by are checked', () => {
    const full = join(tmp, 'full')
    mkdirSync(full)
    writeFileSync(join(full, 'keep.txt'), 'x')
    oneLine(gw('decode', SFS2X, '--format', 'parquet', '-o', full), /is not empty/)
    expect(readdirSync(full)).toEqual(['keep.txt'])
    oneLine(gw('decode', SFS2X, '--format', 'parquet'), /-o DIR/)
    oneLine(gw('decode', SFS2X, '--format', 'parquet', '-o', join(tmp, 'x'), '--partition-by', 'week'), /--partition-by must be capture, protocol, date/)
    oneLine(gw('decode', SFS2X, '--format', 'parquet', '-o', join(tmp, 'y'), '--tree', 'none'), /--tree does not apply/)
    oneLine(gw('decode', SFS2X, SFS2X, '--format', 'parquet', '-o', join(tmp, 'z')), /two captures are named sdk-ws\.pcapng/)
    // nothing is left behind by the refused runs
    expect(readdirSync(tmp).filter((n) => /^[xyz]\b|gamewire-tmp/.test(n))).toEqual([])
    // several captures are for parquet only
    const r = gw('decode', SFS2X, PHOTON)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^gamewire: unexpected argument '.*photon-session\.pcapng'/)
  })
})
