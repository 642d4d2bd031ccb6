// The text report of `gamewire rooms`: per room its actors, master hand-offs, property changes and
// joins, each join's expected and received replay and its divergences with their rule ids.

import type { RoomsDocument } from './document'

const frames = (f: number[]) => (f.length === 1 ? `frame ${f[0]}` : `frames ${f.join(', ')}`)

export function roomsText(doc: RoomsDocument): string {
  const out: string[] = []
  if (!doc.rooms.length) out.push('no Photon room found (no readable CreateGame/JoinGame with its response)')
  for (const r of doc.rooms) {
    const n = r.divergences.length
    out.push(
      `room ${JSON.stringify(r.name)} on ${r.server || 'unknown server'}: ${r.actors.length} actors, ${r.joins.length} joins, ${n} divergence${n === 1 ? '' : 's'}`
    )
    out.push(`  options: CleanupCacheOnLeave ${r.cleanupCacheOnLeave ? 'on' : 'off'}, PlayerTTL ${r.playerTtl} ms`)
    out.push('  actors:')
    for (const a of r.actors) {
      const left = a.leftFrame === null ? 'still in' : `left frame ${a.leftFrame}`
      out.push(
        `    #${a.actorNr} conversation ${a.conversation} user ${a.userId === null ? '?' : JSON.stringify(a.userId)} joined frame ${a.joinedFrame}, ${left}, joinMode ${a.joinMode}${a.ghost ? ', ghost' : ''}`
      )
    }
    out.push(`  master: ${r.master.map((m) => `#${m.actorNr} from frame ${m.frame} (${m.how})`).join(', ') || 'none'}`)
    for (const p of r.properties) {
      const rc = p.serverReturnCode === null ? 'no response' : `server rc ${p.serverReturnCode}`
      out.push(
        `  SetProperties frame ${p.frame} ${p.target === 0 ? 'room' : `actor #${p.target}`} {${p.keys.join(', ')}}${p.cas ? ' with expected values' : ''}: Photon ${p.outcome}, ${rc}`
      )
    }
    for (const j of r.joins) {
      out.push(`  join #${j.actorNr} (conversation ${j.conversation}) frame ${j.frame}: ${j.verdict}`)
      out.push(`    expected: ${j.expected.map((e) => `${e.code} from ${e.sender}`).join(', ') || 'nothing'}`)
      out.push(`    received: ${j.received.map((e) => `${e.code} from ${e.sender ?? '?'} (frame ${e.frame})`).join(', ') || 'nothing'}`)
      if (j.verdict === 'unknown') out.push('    unknown: messages this replay depends on could not be read (see unknown input)')
    }
    for (const d of r.divergences) out.push(`  ${d.rule} (${frames(d.frames)}): ${d.detail}`)
  }
  if (doc.unknown.length) {
    out.push(`unknown input: ${doc.unknown.length} message${doc.unknown.length === 1 ? '' : 's'} could not be read`)
    for (const u of doc.unknown.slice(0, 20)) out.push(`  conversation ${u.conversation} frame ${u.frame}: ${u.reason}`)
    if (doc.unknown.length > 20) out.push(`  … ${doc.unknown.length - 20} more`)
  }
  return out.join('\n') + '\n'
}
