// Photon rooms of the open capture (issue 16; `gamewire rooms` in the CLI): each room's actors, master
// changes and joins, each join's replay as Photon defines it beside what the joiner received, and every
// divergence with its rule. Frame numbers are links to the messages in the timeline. The host computes the
// document once per set of rows (src-main/host/session/rooms.ts); Refresh asks again (a live capture).

import { createContext, useContext, useEffect, useState } from 'react'
import type { Divergence, Room, RoomJoin, RoomsView } from '../../../src-shared/api'
import { plural } from '../format'
import { errorMessage, useInspector } from '../state/store'
import { FrameLink as AnyFrameLink, FrameLinks } from './FrameLinks'

const JOIN_MODES = ['Default', 'CreateIfNotExists', 'JoinOrRejoin', 'RejoinOnly']
/** Unknown input listed at most (the rest counted). */
const MAX_UNKNOWN = 50

/** The document's frame -> message map (RoomsView.messageAt). */
const MessageAt = createContext<Record<string, number> | undefined>(undefined)

/** A frame link to the message the analysis read there (else the first the frame carries: often an ACK). */
function FrameLink({ frame }: { frame: number }) {
  const at = useContext(MessageAt)
  return <AnyFrameLink frame={frame} id={at?.[frame]} tabbable />
}

function Frames({ frames }: { frames: readonly number[] }) {
  return (
    <>
      {frames.map((f, i) => (
        <span key={i}>
          {i > 0 && ', '}
          <FrameLink frame={f} />
        </span>
      ))}
    </>
  )
}

function Divergences({ list, testid }: { list: Divergence[]; testid: string }) {
  return (
    <ul className="divergences" data-testid={testid}>
      {list.map((d, i) => (
        <li key={i} data-testid="divergence" data-rule={d.rule} data-frames={d.frames.join(',')}>
          <span className="rule">{d.rule}</span> <FrameLinks text={d.detail} tabbable />{' '}
          <span className="muted">
            (frame{d.frames.length === 1 ? '' : 's'} <Frames frames={d.frames} />)
          </span>
        </li>
      ))}
    </ul>
  )
}

function Join({ join }: { join: RoomJoin }) {
  const lines = Math.max(join.expected.length, join.received.length)
  return (
    <div className={`room-join verdict-${join.verdict}`} data-testid="room-join" data-actor={join.actorNr} data-frame={join.frame} data-verdict={join.verdict}>
      <div className="room-join-head">
        Actor {join.actorNr} <span className="muted">(conversation {join.conversation})</span> joined in frame <FrameLink frame={join.frame} />:{' '}
        <span className={`verdict ${join.verdict}`} data-testid="join-verdict">
          {join.verdict === 'ok' ? 'as Photon replays' : join.verdict === 'diverges' ? 'diverges' : 'unknown (input could not be read)'}
        </span>
      </div>
      {lines === 0 ? (
        <p className="muted small">Nothing cached, nothing replayed.</p>
      ) : (
        <table className="ops-table replay-table" data-testid="join-replay">
          <thead>
            <tr>
              <th colSpan={3}>Expected (Photon)</th>
              <th colSpan={3}>Received</th>
            </tr>
            <tr>
              <th className="num">Code</th>
              <th className="num">Sender</th>
              <th className="num">Cache</th>
              <th className="num">Code</th>
              <th className="num">Sender</th>
              <th className="num">Frame</th>
            </tr>
          </thead>
          <tbody>
            {Array.from({ length: lines }, (_, i) => {
              const e = join.expected[i]
              const r = join.received[i]
              const differs = !e || !r || e.code !== r.code || e.sender !== r.sender
              return (
                <tr key={i} className={differs ? 'differs' : ''} data-testid="replay-line">
                  <td className="num">{e?.code ?? ''}</td>
                  <td className="num">{e?.sender ?? ''}</td>
                  <td className="num">{e ? (e.cache === 5 ? '5 global' : String(e.cache)) : ''}</td>
                  <td className="num">{r?.code ?? ''}</td>
                  <td className="num">{r ? (r.sender ?? '–') : ''}</td>
                  <td className="num">{r && <FrameLink frame={r.frame} />}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
      {join.divergences.length > 0 && <Divergences list={join.divergences} testid="join-divergences" />}
    </div>
  )
}

function RoomView({ room }: { room: Room }) {
  return (
    <section className="room" data-testid="room" data-name={room.name}>
      <h3>
        Room <span className="mono">{room.name}</span> <span className="muted">on {room.server}</span>
      </h3>
      <p className="muted small">
        {plural(room.actors.length, 'actor')}, {plural(room.joins.length, 'join')}, {plural(room.divergences.length, 'divergence')}; CleanupCacheOnLeave{' '}
        {room.cleanupCacheOnLeave ? 'on' : 'off'}, PlayerTTL {room.playerTtl === -1 ? 'forever' : `${room.playerTtl} ms`}
      </p>
      {room.divergences.length > 0 && <Divergences list={room.divergences} testid="room-divergences" />}
      <h4>Actors</h4>
      <table className="ops-table" data-testid="room-actors">
        <thead>
          <tr>
            <th className="num">Actor</th>
            <th>User</th>
            <th className="num" title="Conversation">
              Conv
            </th>
            <th className="num">Joined</th>
            <th className="num">Left</th>
            <th title="JoinMode of the join request">Mode</th>
            <th>Ghost</th>
          </tr>
        </thead>
        <tbody>
          {room.actors.map((a, i) => (
            <tr key={i} data-testid="room-actor" data-actor={a.actorNr} data-ghost={a.ghost}>
              <td className="num">{a.actorNr}</td>
              <td className="mono">{a.userId ?? '–'}</td>
              <td className="num">{a.conversation}</td>
              <td className="num">
                <FrameLink frame={a.joinedFrame} />
              </td>
              <td className="num">{a.leftFrame === null ? '–' : <FrameLink frame={a.leftFrame} />}</td>
              <td>{JOIN_MODES[a.joinMode] ?? a.joinMode}</td>
              <td>{a.ghost ? 'ghost' : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h4>Master client</h4>
      <ul className="master-list" data-testid="room-master">
        {room.master.map((m, i) => (
          <li key={i} data-testid="master-change" data-actor={m.actorNr} data-how={m.how}>
            Frame <FrameLink frame={m.frame} />: actor {m.actorNr}{' '}
            <span className="muted">({m.how === 'lowest-active' ? 'lowest active actor' : 'SetProperties 248 with the expected value'})</span>
          </li>
        ))}
      </ul>
      <h4>Joins and their replay</h4>
      {room.joins.map((j, i) => (
        <Join key={i} join={j} />
      ))}
    </section>
  )
}

export function RoomsPanel() {
  const api = useInspector((s) => s.api)
  const generation = useInspector((s) => s.status?.generation)
  const phase = useInspector((s) => s.status?.phase)
  const [doc, setDoc] = useState<RoomsView | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [asked, setAsked] = useState(0)

  useEffect(() => {
    if (!api || phase !== 'ready') return
    let current = true
    setBusy(true)
    setError(null)
    api
      .getRooms()
      .then(
        (d) => current && setDoc(d),
        (e) => current && errorMessage(e) !== 'cancelled' && setError(errorMessage(e))
      )
      .finally(() => current && setBusy(false))
    return () => {
      current = false
    }
  }, [api, generation, phase, asked])

  const unknown = doc?.unknown ?? []
  return (
    <MessageAt.Provider value={doc?.messageAt}>
      <section className="side-panel rooms-panel" data-testid="rooms" aria-label="Photon rooms" data-state={busy ? 'running' : doc ? 'done' : 'empty'}>
        <header className="side-head">
          <h2>Photon rooms</h2>
          <span className="spacer" />
          <button
            type="button"
            className="button small"
            onClick={() => setAsked((n) => n + 1)}
            data-testid="rooms-refresh"
            title="Analyse the capture again (a live capture keeps growing)"
          >
            Refresh
          </button>
        </header>
        {error && (
          <p className="error pad" data-testid="rooms-error">
            {error}
          </p>
        )}
        {busy && !doc && <div className="spinner" />}
        {doc && doc.rooms.length === 0 && <p className="muted pad">No Photon room in this capture.</p>}
        {doc?.rooms.map((r, i) => (
          <RoomView key={`${r.server}/${r.name}/${i}`} room={r} />
        ))}
        {unknown.length > 0 && (
          <>
            <h3>Unknown input</h3>
            <p className="muted small pad">
              {plural(unknown.length, 'message')} could not be read (encrypted without a key?): the verdicts that depend on them are unknown.
            </p>
            <ul className="unknown-list" data-testid="rooms-unknown">
              {unknown.slice(0, MAX_UNKNOWN).map((u, i) => (
                <li key={i}>
                  Frame <FrameLink frame={u.frame} /> <span className="muted">(conversation {u.conversation})</span>: {u.reason}
                </li>
              ))}
              {unknown.length > MAX_UNKNOWN && <li className="muted">and {plural(unknown.length - MAX_UNKNOWN, 'more')}</li>}
            </ul>
          </>
        )}
      </section>
    </MessageAt.Provider>
  )
}
