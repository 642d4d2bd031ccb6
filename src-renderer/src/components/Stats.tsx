// Statistics: messages per time bucket (drag across the chart to filter the timeline to that time
// range), messages by name, and bytes by conversation.

import { useRef, useState } from 'react'
import { bytes, clock, num, protocolClass } from '../format'
import { useInspector } from '../state/store'

const W = 320
const H = 120

export function Stats() {
  const stats = useInspector((s) => s.stats)
  const filter = useInspector((s) => s.spec.filter)
  const { applyFilter, loadStats } = useInspector.getState()
  const svg = useRef<SVGSVGElement>(null)
  const [brush, setBrush] = useState<{ from: number; to: number } | null>(null)

  if (!stats) {
    return (
      <section className="side-panel" data-testid="statistics" aria-label="Statistics">
        <header className="side-head">
          <h2>Statistics</h2>
        </header>
        <div className="spinner" />
      </section>
    )
  }
  const { counts, start, step } = stats.timeline
  const max = Math.max(1, ...counts)
  const barW = counts.length ? W / counts.length : W
  const xToBucket = (clientX: number) => {
    const r = svg.current!.getBoundingClientRect()
    return Math.max(0, Math.min(counts.length - 1, Math.floor(((clientX - r.left) / r.width) * counts.length)))
  }
  const finishBrush = () => {
    if (!brush) return
    const lo = Math.min(brush.from, brush.to)
    const hi = Math.max(brush.from, brush.to)
    setBrush(null)
    const a = +(start + lo * step).toFixed(6)
    const b = +(start + (hi + 1) * step).toFixed(6)
    const range = `frame.time_epoch >= ${a} && frame.time_epoch < ${b}`
    void applyFilter(filter ? `(${filter}) && ${range}` : range)
  }
  const maxBytes = Math.max(1, ...stats.byConversation.map((c) => c.bytes))
  const maxName = Math.max(1, ...stats.byName.map((n) => n.count))

  return (
    <section className="side-panel" data-testid="statistics" aria-label="Statistics">
      <header className="side-head">
        <h2>Statistics</h2>
        <span className="spacer" />
        <button className="button small" onClick={() => void loadStats()}>
          Refresh
        </button>
      </header>
      <h3>Messages over time</h3>
      <p className="muted small">
        {counts.length ? `${clock(start)} – ${clock(start + counts.length * step)}, ${step < 1 ? `${Math.round(step * 1000)} ms` : `${step} s`} per bar. Drag to filter a time range.` : 'No messages.'}
      </p>
      <svg
        ref={svg}
        className="chart"
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        data-testid="rate-chart"
        onMouseDown={(e) => {
          const b = xToBucket(e.clientX)
          setBrush({ from: b, to: b })
        }}
        onMouseMove={(e) => brush && setBrush({ ...brush, to: xToBucket(e.clientX) })}
        onMouseUp={finishBrush}
        onMouseLeave={() => brush && finishBrush()}
      >
        {counts.map((c, i) => (
          <rect key={i} x={i * barW} y={H - (c / max) * (H - 4)} width={Math.max(0.5, barW - 0.5)} height={(c / max) * (H - 4)} className="bar">
            <title>{`${clock(start + i * step)}: ${c} message${c === 1 ? '' : 's'}`}</title>
          </rect>
        ))}
        {brush && <rect className="brush" x={Math.min(brush.from, brush.to) * barW} y={0} width={(Math.abs(brush.to - brush.from) + 1) * barW} height={H} />}
      </svg>
      <h3>By protocol</h3>
      <div className="proto-row">
        {stats.byProtocol.map((p) => (
          <span key={p.protocol} className={`proto-badge ${protocolClass(p.protocol)}`}>
            {p.protocol} {num(p.count)}
          </span>
        ))}
      </div>
      <h3>Messages by name</h3>
      <ul className="bars">
        {stats.byName.slice(0, 25).map((n) => (
          <li key={`${n.protocol}/${n.name}`} title={`${n.protocol}: ${n.name}`} onClick={() => void applyFilter(`gamewire.name == ${JSON.stringify(n.name)}`)}>
            <span className="bar-label">{n.name}</span>
            <span className={`bar-fill ${protocolClass(n.protocol)}`} style={{ width: `${(n.count / maxName) * 100}%` }} />
            <span className="bar-value">{num(n.count)}</span>
          </li>
        ))}
      </ul>
      <h3>Bytes by conversation</h3>
      <ul className="bars">
        {stats.byConversation.map((c) => (
          <li key={c.id} title={`${c.client} ⇄ ${c.server}`} onClick={() => void applyFilter(`gamewire.conversation == ${c.id}`)}>
            <span className="bar-label">
              #{c.id} {c.protocol}
            </span>
            <span className={`bar-fill ${protocolClass(c.protocol)}`} style={{ width: `${(c.bytes / maxBytes) * 100}%` }} />
            <span className="bar-value">{bytes(c.bytes)}</span>
          </li>
        ))}
      </ul>
    </section>
  )
}
