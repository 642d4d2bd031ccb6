// A capture of many small messages in few frames, for the timeline past a browser's tallest element:
// Photon datagrams of 69 ACK commands each (12 + 69 * 20 = 1,392 bytes), client and server taking turns
// on port 5055. Each ACK command is one message of the timeline.
import { writeFileSync } from 'node:fs'
import { PcapngWriter } from '../../../src-shared/capture/pcapng-writer'
import { cmd, datagram } from '../protocols/photon/udp-encoder'
import { resetFrames, udpFrame } from './frames'

export const ACKS_PER_DATAGRAM = 69

/** Writes `datagrams` datagrams to `file` (ACKS_PER_DATAGRAM messages each). */
export function writeManyRowsCapture(file: string, datagrams: number): void {
  resetFrames()
  const w = new PcapngWriter()
  const parts: Uint8Array[] = [w.header([{ linkType: 1, tsUnitsPerSecond: 1e6 }])]
  // One datagram built by the encoder; the others are copies with their sent time and acked sequences set.
  const template = datagram({ peerId: 7, commands: Array.from({ length: ACKS_PER_DATAGRAM }, () => cmd.ack(0, 0, 0)) })
  for (let d = 0; d < datagrams; d++) {
    const bytes = template.bytes.slice()
    const view = new DataView(bytes.buffer)
    view.setUint32(4, d)
    for (let k = 0; k < ACKS_PER_DATAGRAM; k++) {
      view.setUint32(template.offsets[k] + 12, d * ACKS_PER_DATAGRAM + k) // acked sequence
      view.setUint32(template.offsets[k] + 16, d) // acked sent time
    }
    const f = d % 2 ? udpFrame('10.0.0.2', 5055, '10.0.0.1', 50000, bytes) : udpFrame('10.0.0.1', 50000, '10.0.0.2', 5055, bytes)
    parts.push(w.frame({ interfaceId: 0, tsSec: 1_700_000_000 + Math.floor(d / 1000), tsNsec: (d % 1000) * 1_000_000, data: f.data }))
  }
  writeFileSync(file, Buffer.concat(parts))
}
