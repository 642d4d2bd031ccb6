// Adds a timeline column from any field key the decoders know. Fields of the protocols in the open
// capture come first; arrows move the highlight, Enter adds the highlighted field, or what is typed when
// it is a field key no list holds (`photon.param.245`, `sfs2x.p.p.un`).

import { useEffect, useMemo, useRef, useState } from 'react'
import { FIELD_RE } from '../../../src-shared/filter/lexer'
import { useInspector } from '../state/store'

export function ColumnPicker({ onClose }: { onClose(): void }) {
  const fields = useInspector((s) => s.fields)
  const columns = useInspector((s) => s.spec.columns)
  const [q, setQ] = useState('')
  const [active, setActive] = useState(0)
  const box = useRef<HTMLDivElement>(null)
  const list = useRef<HTMLUListElement>(null)
  const shown = useMemo(() => {
    const t = q.trim().toLowerCase()
    const matching = fields.filter((f) => !columns.includes(f.key) && (!t || f.key.toLowerCase().includes(t) || f.name.toLowerCase().includes(t)))
    // frame.number (the column Wireshark users look for), then present fields, then an exact key match,
    // then keys that start with the text; stable otherwise
    const score = (k: { key: string; present?: boolean }) =>
      (k.key === 'frame.number' ? -1 : 0) + (k.present ? 0 : 4) + (k.key.toLowerCase() === t ? 0 : k.key.toLowerCase().startsWith(t) ? 1 : 2)
    return matching
      .map((f, i) => ({ f, i, s: score(f) }))
      .sort((a, b) => a.s - b.s || a.i - b.i)
      .slice(0, 200)
      .map((x) => x.f)
  }, [fields, columns, q])

  useEffect(() => setActive(0), [q])
  useEffect(() => {
    list.current?.querySelector('[data-active="true"]')?.scrollIntoView({ block: 'nearest' })
  }, [active])

  useEffect(() => {
    const away = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) onClose()
    }
    document.addEventListener('mousedown', away)
    return () => document.removeEventListener('mousedown', away)
  }, [onClose])

  const add = (key: string) => {
    useInspector.getState().addColumn(key)
    onClose()
  }

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') onClose()
    else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      if (shown.length) setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length)
    } else if (e.key === 'Enter') {
      e.preventDefault()
      const typed = q.trim()
      const exact = shown.find((f) => f.key === typed)
      if (exact) add(exact.key)
      else if (shown[active]) add(shown[active].key)
      else if (FIELD_RE.test(typed) && typed.includes('.')) add(typed)
    }
  }

  return (
    <div className="popover column-picker" ref={box} role="dialog" aria-label="Add a column" data-testid="column-picker">
      <input
        autoFocus
        placeholder="Search fields… (Enter adds)"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        onKeyDown={onKeyDown}
        data-testid="column-picker-input"
      />
      <ul ref={list} role="listbox">
        {shown.map((f, i) => (
          <li
            key={f.key}
            role="option"
            aria-selected={i === active}
            data-active={i === active}
            data-key={f.key}
            data-present={f.present ? 'true' : undefined}
            className={i === active ? 'active' : undefined}
          >
            <button type="button" onClick={() => add(f.key)} onMouseEnter={() => setActive(i)}>
              <span className="mono">{f.key}</span>
              <span className="muted">{f.name}</span>
            </button>
          </li>
        ))}
        {shown.length === 0 && <li className="muted pad">{FIELD_RE.test(q.trim()) && q.includes('.') ? `Enter adds ${q.trim()}` : 'No field matches'}</li>}
      </ul>
    </div>
  )
}
