// Sessions that span several conversations. SFS2X BlueBox (HTTP polling) opens a new TCP connection for
// many of its requests, so one game session is several conversations; the BlueBox decoder notes its session
// id on each (docs/sfs2x.md, "BlueBox"). Only the whole conversation list shows which belong together, so
// the link is made where the list is final: the export's conversation list and the app's.

const SESSION_NOTE = /^BlueBox session (\S+)$/

/**
 * The conversations, each sharing a session with others given a note naming them all. Reads `list()` twice
 * (once to group, once to write) so a long list is never held whole.
 */
export function* withSessionLinks<C extends { id: number; notes: string[] }>(list: () => Iterable<C>): Generator<C> {
  const members = new Map<string, number[]>()
  for (const c of list()) {
    for (const n of c.notes) {
      const m = SESSION_NOTE.exec(n)
      if (m) members.set(m[1], [...(members.get(m[1]) ?? []), c.id])
    }
  }
  const shared = new Map([...members].filter(([, ids]) => ids.length > 1))
  for (const c of list()) {
    if (shared.size === 0) {
      yield c
      continue
    }
    const extra: string[] = []
    for (const n of c.notes) {
      const ids = shared.get(SESSION_NOTE.exec(n)?.[1] ?? '')
      if (ids)
        extra.push(`BlueBox session ${SESSION_NOTE.exec(n)![1]} spans conversations ${ids.map((id) => `#${id}`).join(', ')} (one HTTP connection per request)`)
    }
    yield extra.length ? { ...c, notes: [...c.notes, ...extra] } : c
  }
}
