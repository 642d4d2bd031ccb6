// Worker-thread entry of one decode shard (see shard-pool.ts): decodes the batches of frames it is sent and
// answers each with its report.

import { parentPort, workerData } from 'node:worker_threads'
import { createShard, type ShardReply, type ShardRequest, type ShardSetup } from './shard-pool'

const port = parentPort!
const shard = createShard(workerData as ShardSetup)
port.on('message', (r: ShardRequest) => {
  try {
    const report = r.type === 'frames' ? shard.frames(r) : shard.end(r.lastFrame)
    port.postMessage({ type: 'report', report } satisfies ShardReply)
  } catch (e) {
    port.postMessage({ type: 'fatal', message: `internal error in a decode worker: ${(e as Error).message}` } satisfies ShardReply)
  }
})
