// Sessions that span several conversations. SFS2X BlueBox (HTTP polling) opens a new TCP connection for
// many of its requests, so one game session is several conversations; the BlueBox decoder notes its session
// id on each (docs/sfs2x.md, "BlueBox"). Only the whole conversation list shows which belong together, so
// the link is made where the list is final: the export's conversation list and the app's.

import type { ConversationInfo } from '../model/types'
import type { ConversationList } from './conversation-table'

const SESSION_NOTE = /^BlueBox session (\S+)$/

/**
 * Reads `list` once and returns what adds, to a conversation that shares a session with others, the note
 * naming them all (the conversation itself when it shares none): for a page of a long list.
 */
export function sessionLinker(list: Iterable<{ id: number; notes: readonly string[] }>): <C extends { notes: string[] }>(c: C) => C {
  const members = new Map<string, number[]>()
  for (const c of list) {
    for (const n of c.notes) {
      const m = SESSION_NOTE.exec(n)
      if (!m) continue
      const ids = members.get(m[1])
      if (ids) ids.push(c.id)
      else members.set(m[1], [c.id])
    }
  }
  const shared = new Map([...members].filter(([, ids]) => ids.length > 1))
  if (shared.size === 0) return (c) => c
  return (c) => {
    const extra: string[] = []
    for (const n of c.notes) {
      const session = SESSION_NOTE.exec(n)?.[1]
      const ids = session === undefined ? undefined : shared.get(session)
      if (ids) extra.push(`BlueBox session ${session} spans conversations ${ids.map((id) => `#${id}`).join(', ')} (one HTTP connection per request)`)
    }
    return extra.length ? { ...c, notes: [...c.notes, ...extra] } : c
  }
}

/**
 * The conversations, each sharing a session with others given a note naming them all. Reads the list twice,
 * its columns to group and its summaries to write, so a long list is never held whole.
 */
export function* withSessionLinks(list: ConversationList): Generator<ConversationInfo> {
  const link = sessionLinker(notedConversations(list))
  for (const c of list.conversations()) yield link(c)
}

/** The conversations with notes of their own (only those can share a session), read from the list's columns. */
function notedConversations(list: ConversationList): { id: number; notes: readonly string[] }[] {
  const noted: { id: number; notes: readonly string[] }[] = []
  list.visitKeys((id, _protocol, _frames, _bytes, _first, _last, notes) => {
    if (notes.length) noted.push({ id, notes })
  })
  return noted
}
