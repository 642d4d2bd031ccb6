// Frame lengths as tshark reads them, the oracle for `frame.len` and `frame.cap_len`, and a capture whose
// frames a snapshot length cut (so the two differ).
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PcapngWriter } from '../../../src-shared/capture/pcapng-writer'
import { resetFrames, udpFrame } from './frames'

/** tshark's frame.len and frame.cap_len of each frame of `file`, by frame number. */
export function tsharkFrameLengths(file: string): (n: number) => { len: number; capLen: number } {
  const rows = execFileSync('tshark', ['-r', file, '-T', 'fields', '-e', 'frame.len', '-e', 'frame.cap_len'], { stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim()
    .split('\n')
    .map((l) => l.split('\t').map(Number))
  return (n) => {
    if (!rows[n - 1]) throw new Error(`tshark read no frame ${n} in ${file}`)
    return { len: rows[n - 1][0], capLen: rows[n - 1][1] }
  }
}

/**
 * Writes `cut.pcapng` in `dir`: three UDP datagrams of 122 bytes on the wire, each cut to a 64-byte snapshot
 * length (the engine decodes what was captured).
 */
export function writeCutCapture(dir: string): string {
  resetFrames()
  const w = new PcapngWriter()
  const parts = [w.header([{ linkType: 1, snapLen: 64 }])]
  for (let i = 0; i < 3; i++) {
    const f = udpFrame('10.0.0.1', 40000 + i, '10.0.0.2', 5055, new Uint8Array(80))
    parts.push(w.frame({ interfaceId: 0, tsSec: f.tsSec, tsNsec: 0, data: f.data.subarray(0, 64), originalLength: f.data.length }))
  }
  const file = join(dir, 'cut.pcapng')
  writeFileSync(file, Buffer.concat(parts))
  return file
}
