// Conversations: client/server (and what decided them), protocol and stack, frames, bytes, duration. The host
// sorts the list (by id, protocol, frames, bytes or duration) and sends the entries in view, a block at a
// time (conversationCache); only those are in the DOM (useRowWindow: entries of one height, so a million
// of them scroll to the last). Clicking one filters the timeline to it; "decode as" forces a protocol (or
// switches detection off) and re-decodes.

import { useEffect, useRef, useState } from 'react'
import type { ConversationSort } from '../../../src-shared/api'
import type { ConversationInfo } from '../../../src-shared/model/types'
import { bytes, conversationFilter, duration, num, plural, protocolClass } from '../format'
import { conversationCache, useInspector } from '../state/store'
import type { RoleFrom } from '../../../src-shared/model/types'
import { useRowWindow } from './row-window'
import { activation } from './activation'

// `enet`/`litenetlib`: the transport alone, its payloads as bytes (FigNet not decoded on top).
const PROTOCOLS = ['auto', 'photon', 'sfs2x', 'fignet', 'enet', 'litenetlib', 'unknown']

const ROLE_TEXT: Record<RoleFrom, string> = {
  handshake: 'from the handshake',
  semantics: 'from what each side sent (e.g. only a server sends events)',
  port: "from the protocol's well-known server port",
  'first-packet': 'the sender of the first packet seen (no better evidence)'
}

type SortKey = ConversationSort
const SORTS: { key: SortKey; label: string }[] = [
  { key: 'id', label: 'No.' },
  { key: 'protocol', label: 'Protocol' },
  { key: 'frames', label: 'Frames' },
  { key: 'bytes', label: 'Bytes' },
  { key: 'duration', label: 'Duration' }
]
const SORT_KEY = 'gamewire.conversationSort'
/** Every entry's height (app.css `.conv`: its lines do not wrap, and the notes line is kept for all). */
const ENTRY_HEIGHT = 96

const span = (c: ConversationInfo) => Math.max(0, c.lastTime - c.firstTime)

function loadSort(): { key: SortKey; desc: boolean } {
  try {
    const v = JSON.parse(localStorage.getItem(SORT_KEY) ?? 'null') as { key?: unknown; desc?: unknown } | null
    if (v && SORTS.some((s) => s.key === v.key)) return { key: v.key as SortKey, desc: v.desc === true }
  } catch {
    // a preference: ignore what cannot be read
  }
  return { key: 'id', desc: false }
}

export function Conversations() {
  const status = useInspector((s) => s.status)
  const listsVersion = useInspector((s) => s.listsVersion)
  useInspector((s) => s.conversationsVersion) // entries arrived: render them
  const filter = useInspector((s) => s.spec.filter)
  const { applyFilter, setDecodeAs } = useInspector.getState()
  const rules = status?.decodeAs ?? []
  const scroller = useRef<HTMLDivElement>(null)
  const [sort, setSortState] = useState(loadSort)

  const setSort = (key: SortKey) => {
    // Numbers read biggest first on the first click; names and ids smallest first.
    const next = sort.key === key ? { key, desc: !sort.desc } : { key, desc: key === 'frames' || key === 'bytes' || key === 'duration' }
    setSortState(next)
    try {
      localStorage.setItem(SORT_KEY, JSON.stringify(next))
    } catch {
      // storage disabled: the sort still applies
    }
  }

  const count = status?.conversations ?? 0
  // Another capture state, count or sort is another list, and so is a live capture's list after each new
  // frame (its conversations' counts grow). While the decoding and the sort stay, the old entries show
  // until the new arrive.
  const generation = status?.generation ?? -1
  const live = status?.source?.kind === 'interface' ? status.frames : ''
  const list = `${generation}|${count}|${listsVersion}|${live}|${sort.key}|${sort.desc}`
  const shown = conversationCache.key
  if (shown.text !== list)
    conversationCache.reset(
      { text: list, generation, sort: sort.key, desc: sort.desc },
      shown.generation === generation && shown.sort === sort.key && shown.desc === sort.desc
    )

  const rowWindow = useRowWindow(scroller, count, ENTRY_HEIGHT, 6)
  const first = rowWindow.rows[0]?.index ?? 0
  const last = rowWindow.rows[rowWindow.rows.length - 1]?.index ?? -1
  useEffect(() => {
    if (last >= first) conversationCache.ensure(first, last + 1, count)
  })

  const forced = (id: number) => rules.find((r) => r.match === id)?.protocol ?? 'auto'
  const setRule = (id: number, protocol: string) => {
    const rest = rules.filter((r) => r.match !== id)
    void setDecodeAs(protocol === 'auto' ? rest : [...rest, { match: id, protocol }])
  }

  return (
    <section className="side-panel conversations-panel" data-testid="conversations" aria-label="Conversations">
      <header className="side-head">
        <h2>Conversations</h2>
        <span className="muted" data-testid="conversation-count">
          {num(count)}
        </span>
      </header>
      {count > 0 && (
        <div className="conv-sort" role="toolbar" aria-label="Sort conversations" data-sort={sort.key} data-desc={sort.desc}>
          <span className="muted small">Sort</span>
          {SORTS.map((s) => (
            <button
              type="button"
              key={s.key}
              className={`chip ${sort.key === s.key ? 'active' : ''}`}
              aria-pressed={sort.key === s.key}
              data-testid={`conv-sort-${s.key}`}
              onClick={() => setSort(s.key)}
              title={`Sort by ${s.label.toLowerCase()}${sort.key === s.key ? ' (click again to reverse)' : ''}`}
            >
              {s.label}
              {sort.key === s.key && <span className="sort-mark">{sort.desc ? ' ▼' : ' ▲'}</span>}
            </button>
          ))}
        </div>
      )}
      {/* The scroller stays while the list is empty: the row window listens to it from the start. */}
      <div className="conv-scroll" ref={scroller} data-testid="conversation-list">
        {count === 0 ? (
          <div className="empty-state small">
            <p>No conversations yet.</p>
          </div>
        ) : (
          <div style={{ height: rowWindow.height, position: 'relative' }}>
            {rowWindow.rows.map((item) => {
              const c = conversationCache.get(item.index)
              if (!c)
                return (
                  <div
                    key={`wait-${item.index}`}
                    className="conv waiting"
                    style={{ transform: `translateY(${item.top}px)`, height: ENTRY_HEIGHT }}
                    aria-busy="true"
                  />
                )
              const selectFilter = conversationFilter(c.id)
              const active = filter === selectFilter
              return (
                <div
                  key={c.id}
                  data-index={item.index}
                  className={`conv ${active ? 'active' : ''}`}
                  style={{ transform: `translateY(${item.top}px)`, height: ENTRY_HEIGHT }}
                  data-testid="conversation"
                  data-id={c.id}
                  {...activation(() => void applyFilter(active ? '' : selectFilter))}
                  title={c.notes.join('\n') || 'Click to show only this conversation'}
                >
                  <div className="conv-top">
                    <span className="conv-id">#{c.id}</span>
                    <span className={`proto-badge ${protocolClass(c.protocol)}`}>{c.protocol}</span>
                    <span className="muted small conv-stack">{c.stack.join(' / ')}</span>
                    <span className="spacer" />
                    <label className="decode-as" onClick={(e) => e.stopPropagation()} title="Decode as…">
                      <span className="muted small">as</span>
                      <select value={forced(c.id)} onChange={(e) => setRule(c.id, e.target.value)} aria-label={`Decode conversation ${c.id} as`}>
                        {PROTOCOLS.map((p) => (
                          <option key={p} value={p}>
                            {p}
                          </option>
                        ))}
                      </select>
                    </label>
                  </div>
                  <div className="conv-addr mono">
                    <span title={`client (${ROLE_TEXT[c.roleFrom]})`}>{c.client}</span>
                    <span className="arrow">⇄</span>
                    <span>{c.server}</span>
                  </div>
                  <div className="conv-stats muted small">
                    <span>{c.transport.toUpperCase()}</span>
                    <span className="conv-role" title={`client and server: ${ROLE_TEXT[c.roleFrom]}`}>
                      roles by {c.roleFrom}
                    </span>
                    <span data-testid="conv-frames">{plural(c.frames, 'frame')}</span>
                    <span data-testid="conv-bytes" data-bytes={c.bytes}>
                      {bytes(c.bytes)}
                    </span>
                    <span data-testid="conv-duration">{duration(span(c))}</span>
                  </div>
                  {c.notes.length > 0 && <div className="conv-notes small">{c.notes[0]}</div>}
                </div>
              )
            })}
          </div>
        )}
      </div>
    </section>
  )
}
