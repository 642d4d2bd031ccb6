// `gamewire diff`: decodes each capture through the export's one-thread pipeline without trees (values are
// the same at both depths) for the comparison (src-shared/analysis/diff), which decodes a capture a second
// time only for the values of messages that differ.

import { basename } from 'node:path'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import { KeyStore } from '../../src-shared/keys/store'
import type { SchemaPack } from '../../src-shared/schema/types'
import { decodeOnThread } from './run-decode'
import { diffSources, type DiffOptions, type DiffReport, type DiffSource } from '../../src-shared/analysis/diff'

/** A capture file as a side of the diff. `pause` runs between read chunks (the app yields and cancels there). */
export function fileDiffSource(
  path: string,
  o: { keys?: KeyStore; schemas?: SchemaPack[]; decodeAs?: DecodeAsRule[]; pause?: () => Promise<void> } = {}
): DiffSource {
  return {
    file: basename(path),
    async decode(onMessage) {
      const session = await decodeOnThread(
        { file: path, format: 'ndjson', decodeAs: o.decodeAs, schemas: o.schemas },
        { keys: o.keys ?? new KeyStore(), recording: false, onMessage, pause: o.pause ?? (async () => {}) }
      )
      return session.engine.conversations()
    }
  }
}

export function diffFiles(
  a: string,
  b: string,
  o: { keysA?: KeyStore; keysB?: KeyStore; schemas?: SchemaPack[]; decodeAs?: DecodeAsRule[] } & DiffOptions = {}
): Promise<DiffReport> {
  return diffSources(
    fileDiffSource(a, { keys: o.keysA, schemas: o.schemas, decodeAs: o.decodeAs }),
    fileDiffSource(b, { keys: o.keysB, schemas: o.schemas, decodeAs: o.decodeAs }),
    o
  )
}
