// Adds a timeline column from any field key the decoders know.

import { useEffect, useMemo, useRef, useState } from 'react'
import { useInspector } from '../state/store'

export function ColumnPicker({ onClose }: { onClose(): void }) {
  const fields = useInspector((s) => s.fields)
  const columns = useInspector((s) => s.spec.columns)
  const [q, setQ] = useState('')
  const box = useRef<HTMLDivElement>(null)
  const shown = useMemo(() => {
    const t = q.trim().toLowerCase()
    const found = fields.filter((f) => !columns.includes(f.key) && (!t || f.key.toLowerCase().includes(t) || f.name.toLowerCase().includes(t)))
    // The frame numbers first: the column Wireshark users look for.
    const frame = found.findIndex((f) => f.key === 'frame.number')
    if (frame > 0) found.unshift(...found.splice(frame, 1))
    return found.slice(0, 200)
  }, [fields, columns, q])

  useEffect(() => {
    const away = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) onClose()
    }
    document.addEventListener('mousedown', away)
    return () => document.removeEventListener('mousedown', away)
  }, [onClose])

  return (
    <div className="popover column-picker" ref={box} role="dialog" aria-label="Add a column">
      <input autoFocus placeholder="Search fields…" value={q} onChange={(e) => setQ(e.target.value)} onKeyDown={(e) => e.key === 'Escape' && onClose()} />
      <ul>
        {shown.map((f) => (
          <li key={f.key}>
            <button
              onClick={() => {
                useInspector.getState().addColumn(f.key)
                onClose()
              }}
            >
              <span className="mono">{f.key}</span>
              <span className="muted">{f.name}</span>
            </button>
          </li>
        ))}
        {shown.length === 0 && <li className="muted pad">No field matches</li>}
      </ul>
    </div>
  )
}
