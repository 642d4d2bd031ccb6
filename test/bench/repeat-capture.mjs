// Makes a big capture out of a small real one by repeating it: each copy moves its IPv4 addresses to
// 10.<copy>.x.y-style second octets (so every copy is its own set of conversations, not retransmissions
// of the first) and follows the previous copy in time. Ethernet + IPv4 only; other frames are copied as
// they are. IP checksums are not fixed (gamewire does not check them).
// usage: node test/bench/repeat-capture.mjs IN.pcap[ng] OUT.pcap COPIES

import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pcapRecordHeader } from './packets.mjs'
import { usage } from '../script-usage.mjs'

usage(`usage: node test/bench/repeat-capture.mjs IN.pcap[ng] OUT.pcap COPIES
Writes OUT.pcap: IN repeated COPIES times (1..65535), each copy later in time with its IPv4 addresses moved
(second octets) so every copy is its own set of conversations. Needs editcap.
`)

const [input, out, copiesText] = process.argv.slice(2)
const copies = Number(copiesText)
if (!input || !out || !Number.isInteger(copies) || copies < 1 || copies > 65535) {
  console.error('usage: repeat-capture.mjs IN.pcap[ng] OUT.pcap COPIES (1..65535)')
  process.exit(2)
}

// editcap reads either format and writes classic pcap with nanosecond stamps.
const tmp = mkdtempSync(join(tmpdir(), 'gw-repeat-'))
const pcap = join(tmp, 'in.pcap')
execFileSync('editcap', ['-F', 'nsecpcap', input, pcap])
const file = readFileSync(pcap)
rmSync(tmp, { recursive: true })
if (file.readUInt32LE(0) !== 0xa1b23c4d) throw new Error('expected a little-endian nanosecond pcap from editcap')
const linkType = file.readUInt32LE(20)

const records = []
for (let off = 24; off + 16 <= file.length; ) {
  const len = file.readUInt32LE(off + 8)
  records.push({
    sec: file.readUInt32LE(off),
    nsec: file.readUInt32LE(off + 4),
    orig: file.readUInt32LE(off + 12),
    data: file.subarray(off + 16, off + 16 + len)
  })
  off += 16 + len
}
if (!records.length) throw new Error('no frames')
const ns = (r) => BigInt(r.sec) * 1_000_000_000n + BigInt(r.nsec)
const span = ns(records[records.length - 1]) - ns(records[0]) + 1_000_000n

const parts = [file.subarray(0, 24)]
for (let c = 0; c < copies; c++) {
  const shift = span * BigInt(c)
  for (const r of records) {
    const data = Buffer.from(r.data)
    // Ethernet II carrying IPv4: source address at 26, destination at 30; the second octet becomes this copy's number.
    if (linkType === 1 && data.length >= 34 && data.readUInt16BE(12) === 0x0800) {
      data[27] = (data[27] + c) & 0xff
      data[31] = (data[31] + c) & 0xff
      data[26] = (data[26] + (c >> 8)) & 0xff
      data[30] = (data[30] + (c >> 8)) & 0xff
    }
    const t = ns(r) + shift
    parts.push(pcapRecordHeader(Number(t / 1_000_000_000n), Number(t % 1_000_000_000n), data.length, r.orig), data)
  }
}
writeFileSync(out, Buffer.concat(parts))
console.log(`wrote ${records.length * copies} frames (${copies} copies of ${records.length}) to ${out}`)
