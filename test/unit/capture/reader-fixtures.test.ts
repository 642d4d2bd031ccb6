// CaptureReader against tshark: every fixture in test/fixtures/capture/ must read exactly as tshark
// 4.0 read it when the generator ran (frames, ns timestamps, lengths, interfaces, comments, bytes),
// and the result must not depend on how the bytes are chunked.

import { describe, it, expect } from 'vitest'
import { CaptureReader } from '../../../src-shared/capture'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { epoch, fixture, hex, manifest, oracle, readCapture, rng } from './helpers'

const entries = manifest()

describe('capture fixtures match tshark', () => {
  it('has the fixtures the generator promises', () => {
    expect(entries.length).toBeGreaterThanOrEqual(15)
    for (const f of [
      'pcap-us-le.pcap',
      'pcap-ns-be.pcap',
      'pcapng-two-interfaces.pcapng',
      'pcapng-sections.pcapng',
      'pcapng-comments.pcapng',
      'pcapng-truncated.pcapng'
    ]) {
      expect(entries.map((e) => e.file)).toContain(f)
    }
  })

  for (const entry of entries) {
    describe(entry.file, () => {
      const bytes = fixture(entry.file)
      const want = oracle(entry.file)
      const whole = readCapture(bytes)

      it('reads the same frames as tshark', () => {
        expect(whole.error).toBeUndefined()
        expect(whole.format).toBe(entry.format)
        expect(whole.bytesRead).toBe(bytes.length)
        expect(whole.frames.length).toBe(want.frames.length)
        whole.frames.forEach((f, i) => {
          const o = want.frames[i]
          const iface = whole.interfaces[f.interfaceId]
          const sectionIfaces = whole.interfaces.filter((x) => x.section === iface.section)
          const got: Record<string, unknown> = {
            number: f.number,
            time: f.noTimestamp ? null : epoch(f),
            len: f.originalLength,
            capLen: f.data.length,
            section: iface.section + 1, // tshark counts sections from 1
            interfaceId: sectionIfaces.indexOf(iface), // tshark's id is per section
            interfaceName: iface.name ?? null,
            linkType: f.linkType,
            comments: f.comments ?? [],
            hex: hex(f.data)
          }
          if (!('interfaceName' in o)) delete got.interfaceName
          expect(got, `frame ${i + 1}`).toEqual(o)
          expect(f.linkType).toBe(iface.linkType)
          expect(f.tsNsec).toBeGreaterThanOrEqual(0)
          expect(f.tsNsec).toBeLessThan(1e9)
        })
      })

      it('reports the interfaces capinfos reports', () => {
        expect(whole.interfaces.map((x) => x.id)).toEqual(whole.interfaces.map((_, i) => i))
        expect(whole.announced).toEqual(whole.interfaces)
        // capinfos lists no interfaces past a truncation point it never reached; compare what it has.
        expect(whole.interfaces.length).toBeGreaterThanOrEqual(want.interfaces.length)
        want.interfaces.forEach((o, i) => {
          const x = whole.interfaces[i]
          expect(
            {
              name: x.name ?? null,
              description: x.description ?? null,
              linkType: x.linkType,
              snapLen: x.snapLen,
              tsUnitsPerSecond: x.tsUnitsPerSecond,
              tsOffset: x.tsOffset
            },
            `interface ${i}`
          ).toEqual(o)
        })
        if (entry.fcsLength !== undefined) expect(whole.interfaces[0].fcsLength).toBe(entry.fcsLength)
      })

      it(entry.complete ? 'reports no warning' : 'warns about the damage tshark reported', () => {
        if (entry.complete) {
          expect(whole.warnings).toEqual([])
        } else {
          expect(whole.warnings.length).toBe(1)
          expect(whole.warnings[0]).toContain(entry.expectWarning ?? '')
        }
      })

      it('gives identical results for any chunking', () => {
        const random = rng(bytes.length)
        for (const chunk of [1, 2, 3, 7, 13, 4096, (_: number) => 1 + Math.floor(random() * 61)]) {
          expect(readCapture(bytes, chunk), `chunk ${typeof chunk === 'number' ? chunk : 'random'}`).toEqual(whole)
        }
      })

      it('hands out frame bytes that do not pin the input chunks: copies, in slabs of at most 8 KiB', () => {
        for (const f of readCapture(bytes, 4096).frames) {
          expect(f.data.buffer).not.toBe(bytes.buffer)
          expect(f.data.buffer.byteLength).toBeLessThanOrEqual(Math.max(8192, f.data.length))
        }
      })

      it('keeps every frame intact when the caller reuses one Buffer for every chunk', () => {
        // As a host reading a file into one buffer does: each push's bytes are overwritten right after it.
        const frames: CaptureFrame[] = []
        const reader = new CaptureReader({ onFrame: (f) => frames.push(f) })
        const chunk = Buffer.alloc(1000)
        for (let pos = 0; pos < bytes.length; pos += chunk.length) {
          const n = Math.min(chunk.length, bytes.length - pos)
          chunk.set(bytes.subarray(pos, pos + n))
          reader.push(chunk.subarray(0, n))
          chunk.fill(0xee)
        }
        try {
          reader.end()
        } catch {
          // A fixture that is not a complete capture reports it here; the frames before it are compared.
        }
        expect(frames.map((f) => hex(f.data))).toEqual(whole.frames.map((f) => hex(f.data)))
      })
    })
  }
})
