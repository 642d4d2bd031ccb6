// Compare the open capture (A) with another capture (B) (issue 16; `gamewire diff` in the CLI): pick B by
// its path on the host (Electron: Browse… gives the chosen file's path), then each conversation pair side
// by side — A | B, a message on one side alone leaves the other cell empty, changed pairs are highlighted
// with their field differences — and the per-operation summary. The ignore list (comma separated) compares
// again; clicking an A message selects it in the timeline. The host keeps both sides compactly
// (src-main/host/session/diff.ts): an ignore list that ignores more answers without decoding again, and
// pairs and their lines come a page at a time.

import { memo, useEffect, useRef, useState } from 'react'
import { create } from 'zustand'
import {
  DIFF_LINES_PAGE,
  DIFF_PAIRS_PAGE,
  type CaptureDiff,
  type DiffLine,
  type DiffPairView,
  type FieldChange,
  type MessageRef
} from '../../../src-shared/api'
import { baseName, DIRECTION_ARROW, num, plural } from '../format'
import { activation } from './activation'
import { errorMessage, useInspector } from '../state/store'

/** The panel's inputs and last result, kept while the panel is closed. */
interface DiffState {
  path: string
  ignore: string
  noDefaults: boolean
  result: CaptureDiff | null
  /** The result's pairs after its first page, as Show more fetched them. */
  more: DiffPairView[]
  /** The generation of the open capture the result is for. */
  generation: number | null
  busy: boolean
  error: string | null
}

const useDiff = create<DiffState>()(() => ({ path: '', ignore: '', noDefaults: false, result: null, more: [], generation: null, busy: false, error: null }))

let request = 0

/** The ignore field's patterns: comma separated, blanks dropped. */
export function ignoreList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

async function compare(): Promise<void> {
  const { api, status } = useInspector.getState()
  const { path, ignore, noDefaults } = useDiff.getState()
  if (!api || !path.trim()) return
  const req = ++request
  useDiff.setState({ busy: true, error: null })
  try {
    const result = await api.diffWith(path.trim(), { ignore: ignoreList(ignore), noDefaults })
    if (req === request) useDiff.setState({ result, more: [], generation: status?.generation ?? null, busy: false })
  } catch (e) {
    if (req === request) useDiff.setState({ busy: false, error: errorMessage(e) })
  }
}

/** The next page of the result's conversation pairs from the host (the report arrives with its first page). */
async function morePairs(): Promise<void> {
  const { api } = useInspector.getState()
  const { result, more } = useDiff.getState()
  if (!api || !result) return
  const req = ++request
  useDiff.setState({ busy: true, error: null })
  try {
    const pairs = await api.getDiffPairs(result.report, result.conversations.length + more.length, DIFF_PAIRS_PAGE)
    if (req === request) useDiff.setState({ more: [...more, ...pairs], busy: false })
  } catch (e) {
    if (req === request) useDiff.setState({ busy: false, error: errorMessage(e) })
  }
}

function selectA(m: MessageRef, byId: boolean): void {
  const s = useInspector.getState()
  if (byId) s.select(m.id)
  else void s.goToFrame(m.frames[0])
}

function Cell({ m, side, byId }: { m: MessageRef | null; side: 'a' | 'b'; byId: boolean }) {
  if (!m) return <td className={`diff-cell empty ${side}`} data-testid={`diff-${side}`} />
  const frames = `frame${m.frames.length === 1 ? '' : 's'} ${m.frames.join(', ')}`
  return (
    <td className={`diff-cell ${side}`} data-testid={`diff-${side}`} data-id={m.id} data-name={m.name} data-direction={m.direction}>
      {side === 'a' ? (
        <a
          className="diff-msg link"
          data-testid="diff-a-link"
          title={`Select message #${m.id} (${frames}) in the timeline`}
          {...activation(() => selectA(m, byId), 'link')}
        >
          <span className="dir">{DIRECTION_ARROW[m.direction] ?? m.direction}</span> {m.name}
        </a>
      ) : (
        <span className="diff-msg" title={`B message #${m.id}, ${frames}`}>
          <span className="dir">{DIRECTION_ARROW[m.direction] ?? m.direction}</span> {m.name}
        </span>
      )}
      <span className="muted small"> #{m.id}</span>
    </td>
  )
}

function rowKind(r: DiffLine): string {
  if ('gap' in r) return 'gap'
  if (!r.b) return 'only-a'
  if (!r.a) return 'only-b'
  if (!r.change) return 'same'
  return r.change.fields.length ? 'changed' : 'reordered'
}

const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v))

/**
 * A pair's lines: the first DIFF_LINES_PAGE came with it, and each "Show more" asks the host for as many
 * more (a long capture against another has pairs of thousands of lines; the host makes them on request).
 */
function usePairLines(c: DiffPairView, report: number) {
  const [rows, setRows] = useState(c.rows)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const more = async () => {
    const { api } = useInspector.getState()
    if (!api) return
    setBusy(true)
    setError(null)
    try {
      const next = await api.getDiffLines(report, c.index, rows.length, DIFF_LINES_PAGE)
      setRows([...rows, ...next])
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }
  return { rows, busy, error, more }
}

/**
 * Fields a changed line shows before "Show all": two captures of different sessions differ in nearly every
 * message, some in hundreds of fields, and a page of pairs with every one was over a million elements.
 */
const FIELDS_SHOWN = 20

/** A changed message's field differences: the first FIELDS_SHOWN, and the rest on request. */
function ChangedFields({ fields }: { fields: FieldChange[] }) {
  const [all, setAll] = useState(false)
  const shown = all ? fields : fields.slice(0, FIELDS_SHOWN)
  return (
    <>
      <table className="diff-fields" data-testid="diff-fields">
        <tbody>
          {shown.map((f, k) => (
            <tr key={k} data-testid="diff-field" data-path={f.path}>
              <td className="mono path">{f.path}</td>
              <td className="mono av" data-testid="diff-field-a">
                {f.only === 'b' ? '(absent)' : show(f.a)}
              </td>
              <td className="mono bv" data-testid="diff-field-b">
                {f.only === 'a' ? '(absent)' : show(f.b)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length < fields.length && (
        <button type="button" className="button small" data-testid="diff-fields-more" onClick={() => setAll(true)}>
          Show all {num(fields.length)} fields ({num(fields.length - shown.length)} more)
        </button>
      )}
    </>
  )
}

// Memoized: typing in the form re-renders the panel, not the pairs of an unchanged result.
const Pair = memo(function Pair({ c, byId, report }: { c: DiffPairView; byId: boolean; report: number }) {
  const { rows, busy, error, more } = usePairLines(c, report)
  const side = (s: DiffPairView['a']) => (s ? `#${s.id} ${s.client} → ${s.server}` : '(none)')
  const differs = c.changed + c.onlyA + c.onlyB > 0
  return (
    <details
      className="diff-pair"
      data-testid="diff-pair"
      data-protocol={c.protocol}
      data-paired-by={c.pairedBy ?? ''}
      data-a={c.a?.id ?? ''}
      data-b={c.b?.id ?? ''}
      open={differs}
    >
      <summary>
        <span className="strong">{c.protocol}</span> <span className="mono small">A {side(c.a)}</span> ⇄ <span className="mono small">B {side(c.b)}</span>
        {c.pairedBy && <span className="muted small"> (paired by {c.pairedBy})</span>}
        <div className="muted small" data-testid="diff-pair-counts">
          {num(c.aligned)} aligned, {num(c.changed)} changed, {num(c.onlyA)} only in A, {num(c.onlyB)} only in B
        </div>
      </summary>
      <table className="diff-table">
        <thead>
          <tr>
            <th>A {c.a ? `#${c.a.id}` : ''}</th>
            <th>B {c.b ? `#${c.b.id}` : ''}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => {
            const kind = rowKind(r)
            if ('gap' in r) {
              return (
                <tr key={i} className="diff-row gap" data-testid="diff-row" data-kind="gap">
                  <td colSpan={2} className="muted small">
                    ⋯ {plural(r.gap, 'line')} alike
                  </td>
                </tr>
              )
            }
            const change = r.change
            return [
              <tr key={i} className={`diff-row ${kind}`} data-testid="diff-row" data-kind={kind} data-reordered={change?.reordered ? 'true' : 'false'}>
                <Cell m={r.a} side="a" byId={byId} />
                <Cell m={r.b} side="b" byId={byId} />
              </tr>,
              change && (change.fields.length > 0 || change.reordered) ? (
                <tr key={`${i}-f`} className={`diff-fields-row ${kind}`}>
                  <td colSpan={2}>
                    {change.reordered && <div className="muted small">paired out of order</div>}
                    {change.fields.length > 0 && <ChangedFields fields={change.fields} />}
                  </td>
                </tr>
              ) : null
            ]
          })}
        </tbody>
      </table>
      {error && <p className="error small">{error}</p>}
      {c.lines > rows.length && (
        <button type="button" className="button small" data-testid="diff-more" disabled={busy} onClick={() => void more()}>
          Show {num(Math.min(DIFF_LINES_PAGE, c.lines - rows.length))} more of {num(c.lines - rows.length)} lines
        </button>
      )}
    </details>
  )
})

export function DiffPanel() {
  const api = useInspector((s) => s.api)
  const generation = useInspector((s) => s.status?.generation ?? null)
  const phase = useInspector((s) => s.status?.phase)
  const d = useDiff()
  const file = useRef<HTMLInputElement>(null)

  // Another capture (or the same one decoded again) is open: compare it with B again.
  useEffect(() => {
    const s = useDiff.getState()
    if (phase === 'ready' && s.result && s.generation !== generation && !s.busy) void compare()
  }, [generation, phase])

  const r = d.result
  const pairsLeft = r ? r.pairs - r.conversations.length - d.more.length : 0
  return (
    <section className="side-panel diff-panel" data-testid="diff" aria-label="Compare captures" data-state={d.busy ? 'running' : r ? 'done' : 'empty'}>
      <header className="side-head">
        <h2>Compare captures</h2>
      </header>
      <form
        className="diff-form"
        onSubmit={(e) => {
          e.preventDefault()
          void compare()
        }}
      >
        <label className="small muted" htmlFor="diff-path">
          B: a capture file on the {api?.shell === 'electron' ? 'computer' : 'machine running gamewire serve'}; A is the open capture
        </label>
        <div className="diff-input-row">
          <input
            id="diff-path"
            className="mono wide-input"
            value={d.path}
            onChange={(e) => useDiff.setState({ path: e.target.value })}
            placeholder="/path/to/other.pcapng"
            spellCheck={false}
            data-testid="diff-path"
          />
          {api?.pathForFile && (
            <>
              <input
                ref={file}
                type="file"
                accept=".pcap,.pcapng,.cap"
                hidden
                onChange={(e) => {
                  const f = e.target.files?.[0]
                  const p = f && api.pathForFile?.(f)
                  if (p) useDiff.setState({ path: p })
                  e.target.value = ''
                }}
              />
              <button type="button" className="button" onClick={() => file.current?.click()}>
                Browse…
              </button>
            </>
          )}
        </div>
        <label className="small muted" htmlFor="diff-ignore">
          Also ignore (comma separated field paths, e.g. <span className="mono">gold, /parameters.248</span>)
        </label>
        <div className="diff-input-row">
          <input
            id="diff-ignore"
            className="mono wide-input"
            value={d.ignore}
            onChange={(e) => useDiff.setState({ ignore: e.target.value })}
            placeholder="_id, parameters.221"
            spellCheck={false}
            data-testid="diff-ignore"
          />
        </div>
        <div className="diff-input-row">
          <span className="spacer" />
          <label className="small toggle" title="Compare ids, tokens, sequence numbers and timings too">
            <input type="checkbox" checked={d.noDefaults} onChange={(e) => useDiff.setState({ noDefaults: e.target.checked })} data-testid="diff-no-defaults" />{' '}
            No default ignores
          </label>
          <button type="submit" className="button primary" disabled={!d.path.trim() || d.busy || phase !== 'ready'} data-testid="diff-run">
            Compare
          </button>
        </div>
      </form>
      {d.busy && <div className="spinner" />}
      {d.error && (
        <p className="error pad" data-testid="diff-error">
          {d.error}
        </p>
      )}
      {r && (
        <>
          <p
            className="small pad"
            data-testid="diff-totals"
            data-aligned={r.totals.aligned}
            data-changed={r.totals.changed}
            data-only-a={r.totals.onlyA}
            data-only-b={r.totals.onlyB}
          >
            A <span className="mono">{r.a.file ?? 'open capture'}</span> ({plural(r.a.messages, 'message')}) ⇄ B{' '}
            <span className="mono">{r.b.file ?? baseName(d.path)}</span> ({plural(r.b.messages, 'message')}): {num(r.totals.aligned)} aligned,{' '}
            <span className={r.totals.changed ? 'diff-changed-text' : ''}>{num(r.totals.changed)} with differences</span>, {num(r.totals.onlyA)} only in A,{' '}
            {num(r.totals.onlyB)} only in B
          </p>
          {[...r.conversations, ...d.more].map((c) => (
            <Pair key={`${r.report}-${c.index}`} c={c} byId={r.timelineIds} report={r.report} />
          ))}
          {pairsLeft > 0 && (
            <p className="pad">
              <button type="button" className="button small" data-testid="diff-more-pairs" disabled={d.busy} onClick={() => void morePairs()}>
                Show {num(Math.min(DIFF_PAIRS_PAGE, pairsLeft))} more of {plural(pairsLeft, 'conversation pair')}
              </button>
            </p>
          )}
          <h3>Per operation</h3>
          <table className="ops-table" data-testid="diff-summary">
            <thead>
              <tr>
                <th>Operation</th>
                <th className="num">A</th>
                <th className="num">B</th>
                <th className="num">Aligned</th>
                <th className="num">Changed</th>
                <th className="num">Only A</th>
                <th className="num">Only B</th>
              </tr>
            </thead>
            <tbody>
              {r.summary.map((s, i) => (
                <tr key={i} data-testid="diff-op" data-name={s.name} data-protocol={s.protocol} className={s.changed || s.onlyA || s.onlyB ? 'differs' : ''}>
                  <td className="op-name" title={`${s.protocol} ${s.direction}: ${s.name}`}>
                    <span className="dir">{DIRECTION_ARROW[s.direction] ?? s.direction}</span> {s.name}
                  </td>
                  <td className="num">{num(s.a)}</td>
                  <td className="num">{num(s.b)}</td>
                  <td className="num">{num(s.aligned)}</td>
                  <td className="num">{num(s.changed)}</td>
                  <td className="num">{num(s.onlyA)}</td>
                  <td className="num">{num(s.onlyB)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted small pad" data-testid="diff-ignored">
            Ignored:{' '}
            {Object.entries(r.ignored)
              .map(([p, list]) => `${p === '*' ? 'all' : p}: ${list.join(', ')}`)
              .join('; ') || 'nothing'}
          </p>
        </>
      )}
    </section>
  )
}
