// `gamewire diff`: decodes each capture through the app's tree-less pass (a DecodeSession; values are the
// same at both depths) and hands the messages to the pure comparison (src-shared/analysis/diff).

import { createReadStream } from 'node:fs'
import { basename } from 'node:path'
import { DecodeSession } from '../../src-shared/engine/session'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import type { KeyStore } from '../../src-shared/keys/store'
import { diffCaptures, type DiffMessageInput, type DiffOptions, type DiffReport, type DiffSideInput } from '../../src-shared/analysis/diff'

/** One capture's conversations and messages, as the diff takes them. */
export async function diffSide(path: string, o: { keys?: KeyStore; decodeAs?: DecodeAsRule[] } = {}): Promise<DiffSideInput> {
  const messages: DiffMessageInput[] = []
  const session = new DecodeSession({
    keys: o.keys,
    decodeAs: o.decodeAs,
    recording: false,
    onMessage: (m) => messages.push({ id: m.id, conversation: m.conversation, direction: m.direction, frames: m.frames, time: m.time, protocol: m.protocol, name: m.name, value: m.value })
  })
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    session.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
  }
  session.end()
  // Held messages (roles not yet known) can come out after later ones: the diff wants them by id.
  messages.sort((x, y) => x.id - y.id)
  const conversations = session.engine.conversationList().map((c) => ({ id: c.id, protocol: c.protocol, client: c.client, server: c.server }))
  return { file: basename(path), conversations, messages }
}

export async function diffFiles(a: string, b: string, o: { keysA?: KeyStore; keysB?: KeyStore; decodeAs?: DecodeAsRule[] } & DiffOptions = {}): Promise<DiffReport> {
  const [sa, sb] = [await diffSide(a, { keys: o.keysA, decodeAs: o.decodeAs }), await diffSide(b, { keys: o.keysB, decodeAs: o.decodeAs })]
  return diffCaptures(sa, sb, o)
}
