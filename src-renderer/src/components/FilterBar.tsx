// The filter bar: monaco one-line editor (lazy; a plain input until it has loaded), the host's parse
// errors shown inline as you type, Enter applies, a history of applied filters.

import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { useInspector } from '../state/store'

const FilterEditor = lazy(() => import('../editor/FilterEditor'))

export function FilterBar() {
  const spec = useInspector((s) => s.spec)
  const view = useInspector((s) => s.view)
  const theme = useInspector((s) => s.theme)
  const history = useInspector((s) => s.filterHistory)
  const focusSignal = useInspector((s) => s.focusFilter)
  const [draft, setDraft] = useState(spec.filter)
  const [external, setExternal] = useState({ text: spec.filter, n: 0 })
  const [error, setError] = useState<{ message: string; start: number; end: number } | null>(null)
  const [showHistory, setShowHistory] = useState(false)
  const checkSeq = useRef(0)

  // the applied filter changed (conversation click, brush, history, clear): show it in the editor
  useEffect(() => {
    setDraft(spec.filter)
    setExternal((e) => ({ text: spec.filter, n: e.n + 1 }))
  }, [spec.filter])

  useEffect(() => {
    const seq = ++checkSeq.current
    const t = setTimeout(async () => {
      const r = await useInspector.getState().checkFilter(draft)
      if (seq !== checkSeq.current || !r) return
      setError(r.ok ? null : { message: r.message, start: r.start, end: r.end })
    }, 120)
    return () => clearTimeout(t)
  }, [draft])

  const apply = async (text: string) => {
    setShowHistory(false)
    if (text !== draft) setExternal((e) => ({ text, n: e.n + 1 }))
    // The store checks it before applying (Enter can come before the debounced check answers).
    const r = await useInspector.getState().applyFilter(text)
    if (r && !r.ok) {
      checkSeq.current++
      setError({ message: r.message, start: r.start, end: r.end })
    }
  }
  const dirty = draft.trim() !== spec.filter
  const state = error ? 'invalid' : draft.trim() ? 'valid' : 'empty'

  return (
    <div className={`filter-bar ${state} ${dirty ? 'dirty' : ''}`}>
      <span className="filter-icon" aria-hidden>
        ⌕
      </span>
      <div className="filter-input" data-testid="filter-input" data-state={state} data-value={draft} data-applied={spec.filter}>
        <Suspense
          fallback={
            <input
              className="filter-fallback"
              value={draft}
              placeholder="Filter…"
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={(e) => e.key === 'Enter' && void apply(draft)}
            />
          }
        >
          <FilterEditor
            external={external}
            dark={theme === 'dark'}
            focusSignal={focusSignal}
            error={error}
            onChange={setDraft}
            onApply={(t) => void apply(t)}
          />
        </Suspense>
      </div>
      {error && (
        <div className="filter-error" role="alert" data-testid="filter-error">
          {error.message}
        </div>
      )}
      {view?.state === 'running' && spec.filter && (
        <span className="filter-busy" data-testid="filter-progress">
          filtering {Math.round(view.progress * 100)}%
        </span>
      )}
      {spec.filter && (
        <button type="button" className="icon-button" title="Clear the filter" onClick={() => void apply('')}>
          ✕
        </button>
      )}
      <button type="button" className={`button small ${dirty ? 'primary' : ''}`} onClick={() => void apply(draft)} disabled={!!error} title="Apply (Enter)">
        Apply
      </button>
      <div className="history">
        <button type="button" className="icon-button" title="Filter history" onClick={() => setShowHistory((v) => !v)} aria-expanded={showHistory}>
          ▾
        </button>
        {showHistory && (
          <ul className="popover history-list" role="listbox">
            {history.length === 0 && <li className="muted pad">No filters applied yet</li>}
            {history.map((h) => (
              <li key={h}>
                <button type="button" className="mono" onClick={() => void apply(h)}>
                  {h}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  )
}
