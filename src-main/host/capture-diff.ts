// `gamewire diff`: decodes each capture through the export's one-thread pipeline without trees (values are
// the same at both depths) for the comparison (src-shared/analysis/diff), which decodes a capture a second
// time only for the values of messages that differ.

import { basename } from 'node:path'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import { KeyStore } from '../../src-shared/keys/store'
import type { SchemaPack } from '../../src-shared/schema/types'
import { decodeOnThread } from './run-decode'
import { diffSources, diffSourcesStream, type DiffOptions, type DiffReport, type DiffSource, type DiffStream } from '../../src-shared/analysis/diff'

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

type FilesOptions = { keysA?: KeyStore; keysB?: KeyStore; schemas?: SchemaPack[]; decodeAs?: DecodeAsRule[] } & DiffOptions

function sources(a: string, b: string, o: FilesOptions): [DiffSource, DiffSource] {
  return [
    fileDiffSource(a, { keys: o.keysA, schemas: o.schemas, decodeAs: o.decodeAs }),
    fileDiffSource(b, { keys: o.keysB, schemas: o.schemas, decodeAs: o.decodeAs })
  ]
}

/** The report of two capture files, as it is read (the CLI writes it so: a million pairs are not held). */
export function diffFilesStream(a: string, b: string, o: FilesOptions = {}): Promise<DiffStream> {
  return diffSourcesStream(...sources(a, b, o), o)
}

export function diffFiles(a: string, b: string, o: FilesOptions = {}): Promise<DiffReport> {
  return diffSources(...sources(a, b, o), o)
}
