// Messages between the host-side InspectorSession and the SessionCore it runs on a worker thread.

import type { InspectorEvent } from '../../src-shared/api'

/** SessionCore methods the host may call (the worker refuses anything else). */
export const CORE_METHODS = [
  'open',
  'status',
  'getConversationPage',
  'getFields',
  'checkFilter',
  'setView',
  'getRows',
  'findRow',
  'findFrame',
  'getMessage',
  'getSourceBytes',
  'setDecodeAs',
  'listKeys',
  'addKeys',
  'removeKey',
  'exportKeys',
  'getStats',
  'startExport',
  'cancelJob',
  'setCaptureState',
  'beginLive',
  'liveFrames',
  'endLive',
  'saveFrames',
  'close',
  'getRooms',
  'diffWith',
  'getDiffPairs',
  'getDiffLines',
  'listSchemas',
  'addSchema',
  'removeSchema',
  'exportSchemas',
  'queryTables',
  'runQuery',
  'cancelQuery'
] as const

export type CoreMethod = (typeof CORE_METHODS)[number]

export type HostToWorker = { type: 'call'; id: number; method: CoreMethod; args: unknown[] }

export type WorkerToHost =
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; name: string; message: string }
  | { type: 'event'; event: InspectorEvent }

export interface SessionWorkerData {
  demoCapturePath: string
  tempDir?: string
  /** Shard workers for opening a capture (default: cores - 1). */
  jobs?: number
}
