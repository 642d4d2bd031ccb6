// A capture whose one message decompresses to 8 MB: an SFS2X extension response (zlib) whose int array
// holds 2,000,000 entries. For checking that details stay bounded and that source bytes come in pages.
import { writeFileSync } from 'node:fs'
import { PcapngWriter } from '../../../src-shared/capture/pcapng-writer'
import { Conn, encode, ext, packet, t } from '../protocols/sfs2x/helpers'
import { resetFrames } from './frames'

/** Writes the capture to `file`; returns the decompressed body (the bytes the hex view must show). */
export function writeBigBodyCapture(file: string): Uint8Array {
  const body = encode(ext('big', { a: t.intArr(Array.from({ length: 2_000_000 }, (_, i) => i % 7)) }))
  resetFrames()
  const conn = new Conn().s(packet(body, { zlib: true, big: true }))
  const w = new PcapngWriter()
  writeFileSync(
    file,
    Buffer.concat([
      w.header([{ linkType: 1, tsUnitsPerSecond: 1e6 }]),
      ...conn.frames.map((f) => w.frame({ interfaceId: 0, tsSec: f.tsSec, tsNsec: f.tsNsec, data: f.data }))
    ])
  )
  return body
}
