// Conversations: client/server (and what decided them), protocol and stack, frames, bytes, duration. Clicking one filters the
// timeline to it; "decode as" forces a protocol (or switches detection off) and re-decodes.

import { bytes, duration, num, protocolClass } from '../format'
import { useInspector } from '../state/store'
import type { RoleFrom } from '../../../src-shared/model/types'

// `enet`/`litenetlib`: the transport alone, its payloads as bytes (FigNet not decoded on top).
const PROTOCOLS = ['auto', 'photon', 'sfs2x', 'fignet', 'enet', 'litenetlib', 'unknown']

const ROLE_TEXT: Record<RoleFrom, string> = {
  handshake: 'from the handshake',
  semantics: 'from what each side sent (e.g. only a server sends events)',
  port: "from the protocol's well-known server port",
  'first-packet': 'the sender of the first packet seen (no better evidence)'
}

export function Conversations() {
  const conversations = useInspector((s) => s.conversations)
  const status = useInspector((s) => s.status)
  const filter = useInspector((s) => s.spec.filter)
  const { applyFilter, setDecodeAs } = useInspector.getState()
  const rules = status?.decodeAs ?? []

  const forced = (id: number) => rules.find((r) => r.match === id)?.protocol ?? 'auto'
  const setRule = (id: number, protocol: string) => {
    const rest = rules.filter((r) => r.match !== id)
    void setDecodeAs(protocol === 'auto' ? rest : [...rest, { match: id, protocol }])
  }

  return (
    <section className="side-panel" data-testid="conversations" aria-label="Conversations">
      <header className="side-head">
        <h2>Conversations</h2>
        <span className="muted">{num(conversations.length)}</span>
      </header>
      {conversations.length === 0 ? (
        <div className="empty-state small">
          <p>No conversations yet.</p>
        </div>
      ) : (
        <div className="conv-list">
          {conversations.map((c) => {
            const selectFilter = `gamewire.conversation == ${c.id}`
            const active = filter === selectFilter
            return (
              <div
                key={c.id}
                className={`conv ${active ? 'active' : ''}`}
                data-testid="conversation"
                data-id={c.id}
                role="button"
                tabIndex={0}
                onClick={() => void applyFilter(active ? '' : selectFilter)}
                onKeyDown={(e) => e.key === 'Enter' && void applyFilter(active ? '' : selectFilter)}
                title={c.notes.join('\n') || 'Click to show only this conversation'}
              >
                <div className="conv-top">
                  <span className="conv-id">#{c.id}</span>
                  <span className={`proto-badge ${protocolClass(c.protocol)}`}>{c.protocol}</span>
                  <span className="muted small">{c.stack.join(' / ')}</span>
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
                  <span className="conv-role" title={`client and server: ${ROLE_TEXT[c.roleFrom]}`}>roles by {c.roleFrom}</span>
                  <span>{num(c.frames)} frames</span>
                  <span>{bytes(c.bytes)}</span>
                  <span>{duration(Math.max(0, c.lastTime - c.firstTime))}</span>
                </div>
                {c.notes.length > 0 && <div className="conv-notes small">{c.notes[0]}</div>}
              </div>
            )
          })}
        </div>
      )}
    </section>
  )
}
