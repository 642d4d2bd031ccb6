// Shared by the golden, fuzz, protocol and end-to-end tests: decode a capture file or a list of frames,
// key stores from key-file text, field-range checks and tree lookups.
import { expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { DecodeSession } from '../../../src-shared/engine/session'
import type { ConversationInfo, DecodedMessage, FieldNode } from '../../../src-shared/model/types'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { Engine } from '../../../src-shared/engine/engine'
import { createDefaultRegistry } from '../../../src-shared/protocols'
import { KeyStore } from '../../../src-shared/keys/store'
import { parseKeyFile } from '../../../src-shared/keys/keyfile'
import { compileFilter, targetFromMessage } from '../../../src-shared/filter'
import { rangeProblems } from './ranges'
import { messageMetaFields } from '../../../src-shared/engine/meta-fields'

export interface Decoded {
  messages: DecodedMessage[]
  conversations: ConversationInfo[]
  frames: number
}

/** Decodes a capture file (with `keys`, if given), pushing it in odd-sized chunks as a stream would. */
export function decodeFile(file: string, keys?: KeyStore): Decoded {
  const messages: DecodedMessage[] = []
  const s = new DecodeSession({ keys, onMessage: (m) => messages.push(m) })
  const bytes = readFileSync(file)
  for (let i = 0; i < bytes.length; i += 4093) s.push(new Uint8Array(bytes.subarray(i, i + 4093)))
  s.end()
  return { messages, conversations: s.engine.conversationList(), frames: s.engine.stats.frames }
}

/** Every field range must lie inside its data source. */
export function checkRanges(m: DecodedMessage): void {
  expect(rangeProblems(m)).toEqual([])
}

export function keyStore(lines: string): KeyStore {
  const ks = new KeyStore()
  ks.addAll(parseKeyFile(lines).keys)
  return ks
}

// ---- engine harness ----

/** Runs frames through a fresh engine; with `filter`, keeps only the messages the display filter matches. */
export function runEngine(frames: CaptureFrame[], keys?: KeyStore, recording = true, filter?: string) {
  const messages: DecodedMessage[] = []
  const compiled = filter ? compileFilter(filter) : undefined
  const engine = new Engine({
    registry: createDefaultRegistry(),
    keys,
    recording,
    onMessage: (m, conv, dir) => {
      if (!compiled || compiled.matches(targetFromMessage(m, messageMetaFields(m, conv, dir)))) messages.push(m)
    }
  })
  for (const f of frames) engine.addFrame(f)
  engine.finish()
  return { messages, conversations: engine.conversationList() }
}

// ---- trees ----

export function findAll(nodes: FieldNode[], key: string, acc: FieldNode[] = []): FieldNode[] {
  for (const n of nodes) {
    if (n.key === key) acc.push(n)
    if (n.children) findAll(n.children, key, acc)
  }
  return acc
}

export function find(nodes: FieldNode[], key: string): FieldNode {
  const n = findAll(nodes, key)[0]
  if (!n) throw new Error(`no node ${key}`)
  return n
}

/** The bytes a node's range points at. */
export function rangeBytes(sources: { bytes: Uint8Array }[], n: FieldNode): Uint8Array {
  return sources[n.source!].bytes.subarray(n.start!, n.start! + n.length!)
}
