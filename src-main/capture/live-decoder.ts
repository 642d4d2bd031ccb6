// The decode half of a live capture: a worker thread inside the capture process running the same
// DecodeSession as files. The capture process's main thread only reads libpcap and hands frames over in
// packed batches, so a slow message never makes libpcap's buffer overflow; what piles up here is
// bounded and counted by the main thread.

import { parentPort, workerData } from 'node:worker_threads'
import { DecodeSession } from '../../src-shared/engine/session'
import { JsonExportWriter, conversationListItems } from '../../src-shared/export/json'
import { utf8 } from '../../src-shared/export/json-bytes'
import { compileFilter } from '../../src-shared/filter'
import { decodeDepth } from '../host/view-matcher'
import { KeyStore } from '../../src-shared/keys/store'
import { registerSchemaFields } from '../../src-shared/schema/set'
import type { SchemaPack } from '../../src-shared/schema/types'
import { parseKeyFile } from '../../src-shared/keys/keyfile'
import type { CaptureFrame } from '../../src-shared/capture/types'
import { concatBytes } from '../../src-shared/bytes/concat'
import type { DecodedMessage } from '../../src-shared/model/types'
import type { IndexRow } from '../../src-shared/engine/message-index'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import { unpackFrames, type LiveOutputOptions, type PackedFrames } from './live-protocol'

/** About 256 KiB of conversation summaries per piece (about a thousand): one batch to the host each. */
const CONVERSATION_PIECE_CHARS = 1 << 18

export interface DecoderSetup {
  displayFilter?: string
  keylog?: string
  schemas?: SchemaPack[]
  decodeAs?: DecodeAsRule[]
  output: LiveOutputOptions
}

/** Main thread → decoder. */
export type DecoderCommand =
  | { type: 'frames'; frames: PackedFrames }
  | { type: 'add-keys'; id: number; text: string }
  | { type: 'end' }
  // After 'ended': the next piece of the summary's conversation list (each is asked for, so the list
  // moves at the pace of the host's output, never whole in memory).
  | { type: 'conversations' }

export interface DecoderProgress {
  /** Frames decoded so far. */
  frames: number
  messages: number
  matched: number
  errors: number
  conversations: number
}

/** Decoder → main thread. */
export type DecoderReport =
  | { type: 'ready'; warnings: string[] }
  | { type: 'setup-failed'; name: string; message: string }
  | ({ type: 'decoded'; ndjson?: Uint8Array; rows?: IndexRow[] } & DecoderProgress)
  | { type: 'keys'; id: number; added: number; total: number; warnings: string[] }
  | { type: 'keys-failed'; id: number; message: string }
  | ({ type: 'ended'; linkTypes: string[]; warnings: string[] } & DecoderProgress)
  /** Items of the summary's `conversations` array as JSON text, comma-separated (conversationListItems), UTF-8. */
  | { type: 'conversations'; json: Uint8Array; done: boolean }

export function rowOf(m: DecodedMessage): IndexRow {
  return {
    id: m.id,
    conversation: m.conversation,
    direction: m.direction,
    firstFrame: m.frames[0] ?? 0,
    lastFrame: m.frames[m.frames.length - 1] ?? 0,
    time: m.time,
    protocol: m.protocol,
    name: m.name,
    summary: m.summary,
    length: m.sources[m.layerSources ?? 0]?.bytes.length ?? 0,
    error: m.error !== null,
    warning: m.warnings.length > 0
  }
}

export function runLiveDecoder(): void {
  const port = parentPort!
  const setup = workerData as DecoderSetup
  // The NDJSON bytes of a batch are this thread's own copy: moved, not cloned.
  const send = (r: DecoderReport): void => {
    const moved = r.type === 'decoded' ? r.ndjson : r.type === 'conversations' ? r.json : undefined
    port.postMessage(r, moved ? [moved.buffer as ArrayBuffer] : [])
  }
  const keys = new KeyStore()
  // The writer's buffer is reused: each batch's bytes are copied out whole (a batch is whole lines).
  let text: Uint8Array[] = []
  const writer = new JsonExportWriter(
    { format: 'ndjson', includeSourceBytes: setup.output.includeSourceBytes, tree: setup.output.tree },
    (chunk) => text.push(chunk.slice()),
    { reuse: true }
  )
  let rows: IndexRow[] = []
  let session: DecodeSession
  let internalErrors = 0
  let listed: Generator<string> | undefined
  const warnings: string[] = []
  try {
    if (setup.keylog) {
      const parsed = parseKeyFile(setup.keylog)
      keys.addAll(parsed.keys)
      warnings.push(...parsed.warnings)
    }
    if (setup.schemas?.length) registerSchemaFields(setup.schemas)
    const filter = setup.displayFilter?.trim() ? compileFilter(setup.displayFilter) : undefined
    session = new DecodeSession({
      keys,
      schemas: setup.schemas,
      filter,
      decodeAs: setup.decodeAs,
      // Trees only for NDJSON that has them, or for a filter that reads tree fields (not only index fields).
      ...decodeDepth(!!setup.output.ndjson && setup.output.tree !== 'none', filter),
      onMessage: (m) => {
        if (setup.output.ndjson) writer.message(m)
        if (setup.output.rows) rows.push(rowOf(m))
      }
    })
  } catch (e) {
    send({ type: 'setup-failed', name: (e as Error).name, message: (e as Error).message })
    return
  }
  const progress = (_force = false): DecoderProgress => ({
    frames: session.engine.stats.frames,
    messages: session.engine.stats.messages,
    matched: session.matched,
    errors: session.engine.stats.errors,
    conversations: session.engine.conversationCount
  })
  const takeOutput = (): { ndjson?: Uint8Array; rows?: IndexRow[] } => {
    const out: { ndjson?: Uint8Array; rows?: IndexRow[] } = {}
    writer.flush()
    if (text.length) out.ndjson = concatBytes(text)
    if (rows.length) out.rows = rows
    text = []
    rows = []
    return out
  }
  send({ type: 'ready', warnings })
  port.on('message', (c: DecoderCommand) => {
    switch (c.type) {
      case 'frames':
        for (const f of unpackFrames(c.frames)) {
          const frame: CaptureFrame = { ...f, interfaceId: 0 }
          try {
            session.addFrame(frame)
          } catch (e) {
            // The engine is meant never to throw; if it does, keep decoding and say so once.
            if (internalErrors++ === 0) warnings.push(`internal decode error at frame ${frame.number}: ${(e as Error).message}`)
          }
        }
        send({ type: 'decoded', ...takeOutput(), ...progress() })
        return
      case 'add-keys':
        try {
          const parsed = parseKeyFile(c.text)
          const added = keys.addAll(parsed.keys)
          send({ type: 'keys', id: c.id, added, total: keys.size, warnings: parsed.warnings })
        } catch (e) {
          send({ type: 'keys-failed', id: c.id, message: (e as Error).message })
        }
        return
      case 'end':
        try {
          // End of input: reassembly buffers are flushed, so their partial messages still come out.
          session.end()
        } catch (e) {
          warnings.push(`internal decode error at the end: ${(e as Error).message}`)
        }
        send({ type: 'decoded', ...takeOutput(), ...progress() })
        send({ type: 'ended', linkTypes: session.engine.stats.linkTypes, warnings: [...warnings, ...session.engine.stats.warnings], ...progress() })
        return
      case 'conversations': {
        // One summary at a time from the engine's compact storage: a million conversations never
        // become one list or one string.
        listed ??= conversationListItems(session.engine.conversations())
        let piece = ''
        let next = listed.next()
        for (; !next.done; next = listed.next()) {
          piece += next.value
          if (piece.length >= CONVERSATION_PIECE_CHARS) break
        }
        const done = !!next.done
        send({ type: 'conversations', json: utf8(piece), done })
        if (done) port.close()
        return
      }
    }
  })
}
