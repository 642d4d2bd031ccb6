// `gamewire decode` without the process around it: the same runDecode the CLI's worker runs, its
// output collected as text.
import { runDecode, type DecodeResult } from '../../../src-main/host/run-decode'
import type { DecodeJob } from '../../../src-main/host/decode-job'

export async function decodeToText(job: DecodeJob): Promise<{ text: string; result: DecodeResult }> {
  const parts: Buffer[] = []
  const result = await runDecode(job, { write: (b) => void parts.push(Buffer.from(b)), flush: () => undefined })
  return { text: Buffer.concat(parts).toString('utf8'), result }
}
