// `gamewire diff`: decodes each capture through the export's one-thread pipeline without trees (values are
// the same at both depths) and hands the messages to the pure comparison (src-shared/analysis/diff).

import { basename } from 'node:path'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import { KeyStore } from '../../src-shared/keys/store'
import type { SchemaPack } from '../../src-shared/schema/types'
import { decodeOnThread } from './run-decode'
import {
  diffCaptures,
  diffMessage,
  diffSideOf,
  type DiffMessageInput,
  type DiffOptions,
  type DiffReport,
  type DiffSideInput
} from '../../src-shared/analysis/diff'

/** One capture's conversations and messages, as the diff takes them. `pause` runs between read chunks (the app yields and cancels there). */
export async function diffSide(
  path: string,
  o: { keys?: KeyStore; schemas?: SchemaPack[]; decodeAs?: DecodeAsRule[]; pause?: () => Promise<void> } = {}
): Promise<DiffSideInput> {
  const messages: DiffMessageInput[] = []
  const session = await decodeOnThread(
    { file: path, format: 'ndjson', decodeAs: o.decodeAs, schemas: o.schemas },
    {
      keys: o.keys ?? new KeyStore(),
      recording: false,
      onMessage: (m) => messages.push(diffMessage(m)),
      pause: o.pause ?? (async () => {})
    }
  )
  return diffSideOf(messages, session.engine.conversations(), basename(path))
}

export async function diffFiles(
  a: string,
  b: string,
  o: { keysA?: KeyStore; keysB?: KeyStore; schemas?: SchemaPack[]; decodeAs?: DecodeAsRule[] } & DiffOptions = {}
): Promise<DiffReport> {
  const [sa, sb] = [
    await diffSide(a, { keys: o.keysA, schemas: o.schemas, decodeAs: o.decodeAs }),
    await diffSide(b, { keys: o.keysB, schemas: o.schemas, decodeAs: o.decodeAs })
  ]
  return diffCaptures(sa, sb, o)
}
