// Statistics over the display filter's messages (a toggle counts all of them): messages over time (drag
// across the chart to filter the timeline to that time range), messages by protocol and by name, the
// conversations with the most bytes and messages (the rest summed as "others"), and request/response
// latencies per operation. The host computes them (src-main/host/session/stats.ts).

import { useLayoutEffect, useRef, useState } from 'react'
import type { CaptureStatistics, ConversationStat, OthersStat } from '../../../src-shared/api'
import { bytes, clock, conversationFilter, num, plural, protocolClass } from '../format'
import { useInspector } from '../state/store'
import { activation } from './activation'

const CHART_H = 140
const AXIS_W = 44 // y labels
const AXIS_H = 18 // x labels
/** Narrowest bar: buckets are merged until each bar is at least this wide. */
const MIN_BAR = 3

/** A latency in ms, without the unit (the table's heading says it). */
function ms(v: number): string {
  return v >= 100 ? `${Math.round(v)}` : `${+v.toFixed(v >= 10 ? 1 : 2)}`
}

/** The chart, drawn at the size it is shown (measured), with bars of at least MIN_BAR px and labelled axes. */
function RateChart({ timeline, onRange }: { timeline: CaptureStatistics['timeline']; onRange(from: number, to: number): void }) {
  const box = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(0)
  const [brush, setBrush] = useState<{ from: number; to: number } | null>(null)
  useLayoutEffect(() => {
    const el = box.current
    if (!el) return
    setWidth(el.clientWidth)
    const ro = new ResizeObserver(() => setWidth(el.clientWidth))
    ro.observe(el)
    return () => ro.disconnect()
  }, [])

  const { counts, start, step } = timeline
  const plotW = Math.max(1, width - AXIS_W - 6)
  const plotH = CHART_H - AXIS_H - 8
  const per = Math.max(1, Math.ceil((counts.length * MIN_BAR) / plotW))
  const bars: number[] = []
  for (let i = 0; i < counts.length; i += per) {
    let s = 0
    for (let j = i; j < Math.min(counts.length, i + per); j++) s += counts[j]
    bars.push(s)
  }
  // An even top, so the middle grid line is a whole number of messages.
  const peak = Math.max(1, ...bars)
  const max = peak === 1 ? 1 : Math.ceil(peak / 2) * 2
  const barW = bars.length ? plotW / bars.length : plotW
  const barStep = step * per
  const xToBar = (clientX: number) => {
    const r = box.current!.getBoundingClientRect()
    return Math.max(0, Math.min(bars.length - 1, Math.floor(((clientX - r.left - AXIS_W) / plotW) * bars.length)))
  }
  const finish = () => {
    if (!brush) return
    const lo = Math.min(brush.from, brush.to)
    const hi = Math.max(brush.from, brush.to)
    setBrush(null)
    onRange(start + lo * barStep, start + (hi + 1) * barStep)
  }
  const y = (c: number) => 4 + plotH - (c / max) * plotH
  const stepText = barStep < 1 ? `${+(barStep * 1000).toFixed(3)} ms` : `${+barStep.toFixed(3)} s`

  return (
    <>
      <p className="muted small">
        {counts.length ? `${clock(start)} – ${clock(start + counts.length * step)}, ${stepText} per bar. Drag to filter a time range.` : 'No messages.'}
      </p>
      <div className="chart" ref={box} data-testid="rate-chart-box">
        {width > 0 && (
          <svg
            width={width}
            height={CHART_H}
            data-testid="rate-chart"
            data-bars={bars.length}
            onMouseDown={(e) => {
              const b = xToBar(e.clientX)
              setBrush({ from: b, to: b })
            }}
            onMouseMove={(e) => brush && setBrush({ ...brush, to: xToBar(e.clientX) })}
            onMouseUp={finish}
            onMouseLeave={() => brush && finish()}
          >
            <g className="axis">
              <line x1={AXIS_W} x2={AXIS_W + plotW} y1={4 + plotH} y2={4 + plotH} />
              <line x1={AXIS_W} x2={AXIS_W + plotW} y1={4} y2={4} className="grid" />
              <line x1={AXIS_W} x2={AXIS_W + plotW} y1={4 + plotH / 2} y2={4 + plotH / 2} className="grid" />
              <text x={AXIS_W - 4} y={8} textAnchor="end">
                {num(max)}
              </text>
              {max > 1 && (
                <text x={AXIS_W - 4} y={8 + plotH / 2} textAnchor="end">
                  {num(max / 2)}
                </text>
              )}
              <text x={AXIS_W - 4} y={4 + plotH} textAnchor="end">
                0
              </text>
              {counts.length > 0 && (
                <>
                  <text x={AXIS_W} y={CHART_H - 4} textAnchor="start">
                    {clock(start)}
                  </text>
                  <text x={AXIS_W + plotW} y={CHART_H - 4} textAnchor="end">
                    {clock(start + counts.length * step)}
                  </text>
                </>
              )}
            </g>
            {bars.map((c, i) =>
              c === 0 ? null : (
                <rect key={i} x={AXIS_W + i * barW} y={y(c)} width={Math.max(1, barW - (barW > 4 ? 1 : 0))} height={4 + plotH - y(c)} className="bar">
                  <title>{`${clock(start + i * barStep)}: ${plural(c, 'message')}`}</title>
                </rect>
              )
            )}
            {brush && (
              <rect
                className="brush"
                x={AXIS_W + Math.min(brush.from, brush.to) * barW}
                y={4}
                width={(Math.abs(brush.to - brush.from) + 1) * barW}
                height={plotH}
              />
            )}
          </svg>
        )}
      </div>
    </>
  )
}

function ConversationBars({ list, others, by, testid }: { list: ConversationStat[]; others: OthersStat; by: 'bytes' | 'messages'; testid: string }) {
  const { applyFilter } = useInspector.getState()
  const value = (x: { bytes: number; messages: number }) => (by === 'bytes' ? x.bytes : x.messages)
  const max = Math.max(1, ...list.map(value), value(others))
  const text = (v: number) => (by === 'bytes' ? bytes(v) : num(v))
  return (
    <ul className="bars" data-testid={testid}>
      {list.map((c) => (
        <li
          key={c.id}
          data-testid="stat-item"
          title={`${c.client} ⇄ ${c.server}: ${plural(c.messages, 'message')}, ${bytes(c.bytes)}`}
          {...activation(() => void applyFilter(conversationFilter(c.id)))}
        >
          <span className="bar-label">
            #{c.id} <span className="muted">{c.protocol}</span> {c.client}
          </span>
          <span className={`bar-fill ${protocolClass(c.protocol)}`} style={{ width: `${(value(c) / max) * 100}%` }} />
          <span className="bar-value">{text(value(c))}</span>
        </li>
      ))}
      {others.items > 0 && (
        <li
          className="others"
          data-testid="stat-others"
          title={`${plural(others.items, 'other conversation')}: ${plural(others.messages, 'message')}, ${bytes(others.bytes)}`}
        >
          <span className="bar-label">{plural(others.items, 'other')}</span>
          <span className="bar-fill proto-other" style={{ width: `${(value(others) / max) * 100}%` }} />
          <span className="bar-value">{text(value(others))}</span>
        </li>
      )}
    </ul>
  )
}

export function Stats() {
  const stats = useInspector((s) => s.stats)
  const all = useInspector((s) => s.statsAll)
  const filter = useInspector((s) => s.spec.filter)
  const { applyFilter, loadStats, setStatsAll } = useInspector.getState()

  const head = (
    <header className="side-head">
      <h2>Statistics</h2>
      <span className="spacer" />
      <label className="small toggle" title="Count every message, not only the ones the display filter keeps">
        <input type="checkbox" checked={all} onChange={(e) => setStatsAll(e.target.checked)} data-testid="stats-all" /> All messages
      </label>
      <button type="button" className="button small" onClick={() => void loadStats()}>
        Refresh
      </button>
    </header>
  )
  if (!stats) {
    return (
      <section className="side-panel" data-testid="statistics" aria-label="Statistics">
        {head}
        <div className="spinner" />
      </section>
    )
  }
  const maxName = Math.max(1, ...stats.byName.map((n) => n.count), stats.otherNames.messages)
  const onRange = (from: number, to: number) => {
    const range = `frame.time_epoch >= ${+from.toFixed(6)} && frame.time_epoch < ${+to.toFixed(6)}`
    void applyFilter(filter ? `(${filter}) && ${range}` : range)
  }

  return (
    <section className="side-panel" data-testid="statistics" aria-label="Statistics">
      {head}
      <p className="muted small scope" data-testid="stats-scope" data-messages={stats.scope.messages}>
        {stats.scope.filter ? (
          <>
            {num(stats.scope.messages)} of {plural(stats.scope.total, 'message')}, filter <span className="mono">{stats.scope.filter}</span>
          </>
        ) : (
          <>All {plural(stats.scope.messages, 'message')}</>
        )}
      </p>
      <h3>Messages over time</h3>
      <RateChart timeline={stats.timeline} onRange={onRange} />
      <h3>By protocol</h3>
      <div className="proto-row">
        {stats.byProtocol.map((p) => (
          <span key={p.protocol} className={`proto-badge ${protocolClass(p.protocol)}`}>
            {p.protocol} {num(p.count)}
          </span>
        ))}
      </div>
      <h3>Messages by name</h3>
      <ul className="bars" data-testid="stats-names">
        {stats.byName.map((n) => (
          <li
            key={`${n.protocol}/${n.name}`}
            data-testid="stat-item"
            title={`${n.protocol}: ${n.name}, ${bytes(n.bytes)}`}
            {...activation(() => void applyFilter(`gamewire.name == ${JSON.stringify(n.name)}`))}
          >
            <span className="bar-label">{n.name}</span>
            <span className={`bar-fill ${protocolClass(n.protocol)}`} style={{ width: `${(n.count / maxName) * 100}%` }} />
            <span className="bar-value">{num(n.count)}</span>
          </li>
        ))}
        {stats.otherNames.items > 0 && (
          <li className="others" data-testid="stat-others">
            <span className="bar-label">{plural(stats.otherNames.items, 'other name')}</span>
            <span className="bar-fill proto-other" style={{ width: `${(stats.otherNames.messages / maxName) * 100}%` }} />
            <span className="bar-value">{num(stats.otherNames.messages)}</span>
          </li>
        )}
      </ul>
      <h3>Conversations by bytes ({num(stats.conversations)})</h3>
      <ConversationBars list={stats.topByBytes} others={stats.othersByBytes} by="bytes" testid="stats-conv-bytes" />
      <h3>Conversations by messages</h3>
      <ConversationBars list={stats.topByMessages} others={stats.othersByMessages} by="messages" testid="stats-conv-messages" />
      <h3>Operations (latency in ms)</h3>
      {stats.operations === null ? (
        <p className="muted small">Not available for this capture.</p>
      ) : stats.operations.length === 0 ? (
        <p className="muted small">No requests or responses.</p>
      ) : (
        <table className="ops-table" data-testid="stats-operations">
          <thead>
            <tr>
              <th>Operation</th>
              <th className="num" title="Requests">
                Req
              </th>
              <th className="num" title="Responses paired with a request">
                Resp
              </th>
              <th className="num" title="Requests with no response in the capture">
                Unans.
              </th>
              <th className="num">p50</th>
              <th className="num">p95</th>
              <th className="num">Max</th>
            </tr>
          </thead>
          <tbody>
            {stats.operations.map((o) => (
              <tr
                key={`${o.protocol}/${o.name}`}
                data-testid="operation"
                data-name={o.name}
                data-count={o.count}
                data-responses={o.responses}
                data-unanswered={o.unanswered}
                data-p50={o.p50 ?? ''}
                data-p95={o.p95 ?? ''}
                data-max={o.max ?? ''}
                title={o.protocol}
              >
                <td className="op-name" title={`${o.protocol}: ${o.name}`}>
                  {o.name}
                </td>
                <td className="num">{num(o.count)}</td>
                <td className="num">{num(o.responses)}</td>
                <td className={o.unanswered ? 'num unanswered' : 'num'}>{num(o.unanswered)}</td>
                <td className="num">{o.p50 === null ? '–' : ms(o.p50)}</td>
                <td className="num">{o.p95 === null ? '–' : ms(o.p95)}</td>
                <td className="num">{o.max === null ? '–' : ms(o.max)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
