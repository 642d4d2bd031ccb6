// CaptureReader on inputs no tool writes: bad magics, damaged blocks, hostile lengths, odd options,
// and the streaming guarantees (bounded buffering, chunk independence).

import { describe, it, expect } from 'vitest'
import { CaptureFormatError, CaptureReader, MAX_RECORD, PcapngWriter } from '../../../src-shared/capture'
import { epoch, fixture, readCapture } from './helpers'

/** Little-endian pcapng block: type, total length, body padded to 32 bits, trailing length. */
function block(type: number, body: Uint8Array, totalOverride?: number): Uint8Array {
  const padded = (body.length + 3) & ~3
  const out = new Uint8Array(12 + padded)
  const v = new DataView(out.buffer)
  const total = totalOverride ?? out.length
  v.setUint32(0, type, true)
  v.setUint32(4, total, true)
  out.set(body, 8)
  v.setUint32(out.length - 4, total, true)
  return out
}

function le32(...vals: number[]): Uint8Array {
  const out = new Uint8Array(vals.length * 4)
  const v = new DataView(out.buffer)
  vals.forEach((x, i) => v.setUint32(i * 4, x, true))
  return out
}

function cat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

/** EPB body: interface, timestamp, lengths, data, then raw option bytes. */
function epbBody(ifId: number, tsHigh: number, tsLow: number, data: Uint8Array, options: Uint8Array = new Uint8Array(0), orig = data.length): Uint8Array {
  const padded = new Uint8Array((data.length + 3) & ~3)
  padded.set(data)
  return cat(le32(ifId, tsHigh, tsLow, data.length, orig), padded, options)
}

function option(code: number, value: Uint8Array, lenOverride?: number): Uint8Array {
  const out = new Uint8Array(4 + ((value.length + 3) & ~3))
  const v = new DataView(out.buffer)
  v.setUint16(0, code, true)
  v.setUint16(2, lenOverride ?? value.length, true)
  out.set(value, 4)
  return out
}

const writer = new PcapngWriter()
const header = writer.header([{ linkType: 1, name: 'eth0' }])
const frameA = writer.frame({ interfaceId: 0, tsSec: 1700000000, tsNsec: 123456000, data: Uint8Array.of(1, 2, 3, 4, 5) })
const frameB = writer.frame({ interfaceId: 0, tsSec: 1700000001, tsNsec: 0, data: Uint8Array.of(6, 7) })

describe('CaptureReader: not a capture file', () => {
  it("throws CaptureFormatError on an unknown magic, without repeating the file's bytes", () => {
    const r = readCapture(new TextEncoder().encode('GET / HTTP/1.1\r\n'))
    expect(r.error).toBe('not a pcap or pcapng file (it does not start with a capture file magic number)')
    expect(r.frames).toEqual([])
  })

  it('throws from the push that completes the magic, even byte by byte', () => {
    const reader = new CaptureReader({ onFrame: () => {} })
    reader.push(Uint8Array.of(0xde))
    reader.push(Uint8Array.of(0xad, 0xbe))
    expect(() => reader.push(Uint8Array.of(0xef, 0))).toThrow(CaptureFormatError)
  })

  it('rejects modified pcap by name and an empty or tiny input at end()', () => {
    expect(readCapture(Uint8Array.of(0x34, 0xcd, 0xb2, 0xa1, 2, 0, 4, 0)).error).toMatch(/modified .*pcap is not supported/)
    expect(readCapture(new Uint8Array(0)).error).toMatch(/empty file/)
    expect(readCapture(Uint8Array.of(0xd4, 0xc3)).error).toMatch(/only 2 bytes/)
  })

  it('rejects a pcap with an unsupported version and a pcapng with a bad byte-order magic', () => {
    const pcap = fixture('pcap-us-le.pcap').slice()
    pcap[4] = 9
    expect(readCapture(pcap).error).toMatch(/unsupported pcap version 9\.4/)
    const ng = header.slice()
    ng[8] = 0x99
    expect(readCapture(ng).error).toMatch(/bad byte-order magic/)
    const badLen = header.slice()
    badLen[4] = 13
    expect(readCapture(badLen).error).toMatch(/multiple of 4/)
  })

  it('knows the format as soon as the magic is in, before the header is complete', () => {
    const reader = new CaptureReader({ onFrame: () => {} })
    reader.push(fixture('pcap-ns-be.pcap').subarray(0, 5))
    expect(reader.format).toBe('pcap')
    expect(reader.interfaces).toEqual([])
  })
})

describe('CaptureReader: damage after the header', () => {
  it('warns when the file ends inside the header', () => {
    const r = readCapture(fixture('pcap-us-le.pcap').subarray(0, 10), 3)
    expect(r.error).toBeUndefined()
    expect(r.warnings).toEqual(['capture truncated: last record cut off at byte 10'])
  })

  it('keeps frames before a block whose trailing length does not match', () => {
    const bad = block(6, epbBody(0, 0, 0, Uint8Array.of(1)))
    bad[bad.length - 4] ^= 0xff
    const r = readCapture(cat(header, frameA, bad, frameB))
    expect(r.frames.map((f) => f.number)).toEqual([1])
    expect(r.warnings).toHaveLength(1)
    expect(r.warnings[0]).toMatch(/at byte \d+: trailing length \d+ does not match/)
  })

  it('stops, without allocating, at a block claiming more than the record limit', () => {
    const huge = cat(le32(6, MAX_RECORD + 4), new Uint8Array(64))
    const reader = new CaptureReader({ onFrame: () => {}, onWarning: (w) => warnings.push(w) })
    const warnings: string[] = []
    reader.push(cat(header, frameA, huge))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/larger than the 268435456-byte limit/)
    reader.push(frameB) // ignored after the stop
    reader.end()
    expect(reader.frames).toBe(1)
    expect(reader.bytesRead).toBe(header.length + frameA.length + huge.length + frameB.length)
  })

  it('buffers a large declared block only as far as bytes arrive, then reports truncation', () => {
    const reader = new CaptureReader({ onFrame: () => {}, onWarning: (w) => warnings.push(w) })
    const warnings: string[] = []
    reader.push(header)
    reader.push(le32(6, 200 * 1024 * 1024)) // 200 MiB claimed, 8 bytes given
    reader.push(new Uint8Array(100))
    const pending = (reader as unknown as { pending: Uint8Array }).pending
    expect(pending.length).toBeLessThan(4096)
    reader.end()
    expect(warnings).toEqual([`capture truncated: last record cut off at byte ${header.length + 108}`])
  })

  it('stops at a pcap record claiming more than the limit', () => {
    const pcap = fixture('pcap-us-le.pcap').slice()
    new DataView(pcap.buffer).setUint32(24 + 8, 0xffffffff, true)
    const r = readCapture(pcap)
    expect(r.frames).toEqual([])
    expect(r.warnings[0]).toMatch(/pcap record at byte 24: captured length 4294967295/)
  })

  it('stops at a packet whose captured length does not fit its block', () => {
    const body = epbBody(0, 0, 0, Uint8Array.of(1, 2, 3, 4))
    new DataView(body.buffer).setUint32(12, 400, true)
    const r = readCapture(cat(header, frameA, block(6, body), frameB))
    expect(r.frames).toHaveLength(1)
    expect(r.warnings[0]).toMatch(/captured length 400 does not fit/)
  })

  it('stops at a packet naming an interface the section does not have', () => {
    const r = readCapture(cat(header, block(6, epbBody(3, 0, 0, Uint8Array.of(1))), frameA))
    expect(r.frames).toEqual([])
    expect(r.warnings[0]).toMatch(/interface 3 is not defined in this section \(1 defined\)/)
  })

  it('stops at a later section with a bad byte-order magic, keeping the earlier section', () => {
    const second = header.slice()
    second[8] = 0
    const r = readCapture(cat(header, frameA, second, frameB))
    expect(r.error).toBeUndefined()
    expect(r.frames).toHaveLength(1)
    expect(r.warnings[0]).toMatch(/bad byte-order magic/)
  })

  it('keeps a packet whose option list runs past the block, with a warning', () => {
    const opts = cat(option(1, new TextEncoder().encode('ok')), option(1, new Uint8Array(4), 200))
    const r = readCapture(cat(header, block(6, epbBody(0, 0, 1000, Uint8Array.of(9, 8, 7), opts)), frameB))
    expect(r.frames).toHaveLength(2)
    expect(r.frames[0].comments).toEqual(['ok'])
    expect(r.warnings).toHaveLength(1)
    expect(r.warnings[0]).toMatch(/option 1 runs past the end of the block/)
  })
})

describe('CaptureReader: pcapng details', () => {
  it('skips custom, unknown, NRB, ISB and DSB blocks without numbering them', () => {
    const r = readCapture(
      cat(
        header,
        block(0x00000bad, cat(le32(32473), new TextEncoder().encode('custom'))),
        frameA,
        block(0x40000bad, le32(32473, 1, 2)),
        block(4, new Uint8Array(4)), // NRB: nrb_record_end
        block(5, le32(0, 0, 0)), // ISB
        block(0x0a, le32(0x5353484b, 0)), // DSB with no secrets
        block(0x12345678, Uint8Array.of(1, 2, 3)),
        frameB
      )
    )
    expect(r.warnings).toEqual([])
    expect(r.frames.map((f) => [f.number, f.data.length])).toEqual([
      [1, 5],
      [2, 2]
    ])
  })

  it('converts every if_tsresol form exactly (decimal, sub-ns decimal, binary)', () => {
    const ts = (resol: number, high: number, low: number): string => {
      const idb = block(1, cat(Uint8Array.of(1, 0, 0, 0), le32(0), option(9, Uint8Array.of(resol)), new Uint8Array(4)))
      const r = readCapture(cat(header.subarray(0, 28), idb, block(6, epbBody(0, high, low, Uint8Array.of(0)))))
      expect(r.warnings).toEqual([])
      return epoch(r.frames[0])
    }
    expect(ts(9, 0x17a2b3c4, 0xd5e6f708)).toBe(
      `${(0x17a2b3c4d5e6f708n / 1_000_000_000n).toString()}.${(0x17a2b3c4d5e6f708n % 1_000_000_000n).toString().padStart(9, '0')}`
    )
    expect(ts(9, 0xffffffff, 0xffffffff)).toBe('18446744073.709551615')
    expect(ts(6, 0xffffffff, 0xffffffff)).toBe('18446744073709.551615000')
    expect(ts(0, 0, 1700000000)).toBe('1700000000.000000000')
    expect(ts(0, 0x10, 5)).toBe(`${16 * 2 ** 32 + 5}.000000000`)
    expect(ts(12, 0, 1_999_999_999)).toBe('0.001999999') // picoseconds: truncated like Wireshark
    expect(ts(0x80 | 10, 0, 1025)).toBe('1.000976562') // 2^-10: 976562.5 ns truncated like Wireshark
    expect(ts(0x80 | 30, 0, 3)).toBe('0.000000002') // 2.79 ns
    expect(ts(0x80, 0, 42)).toBe('42.000000000')
  })

  it('applies a negative if_tsoffset and reads if_fcslen', () => {
    const tsoff = new Uint8Array(8)
    new DataView(tsoff.buffer).setBigInt64(0, -3n, true)
    const idb = block(1, cat(Uint8Array.of(1, 0, 0, 0), le32(96), option(14, tsoff), option(13, Uint8Array.of(4)), new Uint8Array(4)))
    const r = readCapture(cat(header.subarray(0, 28), idb, block(6, epbBody(0, 0, 5_000_001, Uint8Array.of(0)))))
    expect(epoch(r.frames[0])).toBe('2.000001000') // 5.000001 s - 3 s
    expect(r.interfaces[0]).toMatchObject({ fcsLength: 4, snapLen: 96, tsOffset: -3 })
  })

  it('sizes a Simple Packet Block by original length, snaplen and the block', () => {
    const idb = (snap: number) => block(1, cat(Uint8Array.of(1, 0, 0, 0), le32(snap)))
    const spb = (orig: number, data: number) => block(3, cat(le32(orig), new Uint8Array(data).fill(7)))
    const shb = header.subarray(0, 28)
    const r = readCapture(cat(shb, idb(6), spb(10, 8), spb(3, 4), idb(0), spb(50, 8), shb, idb(0), spb(100, 8)))
    expect(r.frames.map((f) => [f.originalLength, f.data.length, f.interfaceId, f.noTimestamp])).toEqual([
      [10, 6, 0, true], // snaplen 6
      [3, 3, 0, true], // original length 3 (the 4th byte is padding)
      [50, 6, 0, true], // SPBs belong to the section's first interface, not the latest
      [100, 8, 2, true] // no snaplen: what the block holds
    ])
  })

  it('numbers interfaces globally across sections and resets per-section ids', () => {
    const w = new PcapngWriter()
    const bytes = cat(
      w.header([{ linkType: 1 }, { linkType: 101 }]),
      w.frame({ interfaceId: 1, tsSec: 1, tsNsec: 0, data: Uint8Array.of(0x45) }),
      w.header([{ linkType: 113, tsUnitsPerSecond: 1e9 }]),
      w.frame({ interfaceId: 0, tsSec: 2, tsNsec: 5, data: Uint8Array.of(0) })
    )
    const r = readCapture(bytes, 5)
    expect(r.interfaces.map((i) => [i.id, i.section, i.linkType])).toEqual([
      [0, 0, 1],
      [1, 0, 101],
      [2, 1, 113]
    ])
    expect(r.frames.map((f) => [f.interfaceId, f.linkType, epoch(f)])).toEqual([
      [1, 101, '1.000000000'],
      [2, 113, '2.000000005']
    ])
  })

  it('rejects push after end', () => {
    const reader = new CaptureReader({ onFrame: () => {} })
    reader.push(header)
    reader.end()
    expect(() => reader.push(frameA)).toThrow(/after end/)
  })
})

describe('CaptureReader: streaming', () => {
  it('never buffers more than one record while a big file streams through', () => {
    const w = new PcapngWriter()
    const parts = [w.header([{ linkType: 1 }])]
    for (let i = 0; i < 2000; i++) parts.push(w.frame({ interfaceId: 0, tsSec: i, tsNsec: i, data: new Uint8Array(100 + (i % 50)).fill(i & 0xff) }))
    const bytes = cat(...parts)
    let seen = 0
    let maxPending = 0
    const reader = new CaptureReader({ onFrame: () => seen++ })
    for (let pos = 0; pos < bytes.length; pos += 1000) {
      reader.push(bytes.subarray(pos, pos + 1000))
      maxPending = Math.max(maxPending, (reader as unknown as { pending: Uint8Array }).pending.length)
    }
    reader.end()
    expect(seen).toBe(2000)
    expect(maxPending).toBeLessThanOrEqual(512) // one EPB is ≤ 184 bytes; buffer grows by doubling from 256
  })
})
