// The append-only temporary file under the frame store and the diff's values (src-main/host/append-file.ts):
// any byte range reads back as appended, whether it lies in the file, in the write buffer or across both;
// records larger than the buffer; nothing left on disk while open or after close; its descriptor closed.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AppendFile } from '../../../src-main/host/append-file'
import { rng } from '../helpers/rng'
import { openFilesNamed } from '../helpers/open-files'

const tmp = mkdtempSync(join(tmpdir(), 'gamewire-append-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('AppendFile', () => {
  it('reads back any range as appended: in the file, in the buffer, across both, and past the buffer size', () => {
    const rand = rng(11)
    const file = new AppendFile('gamewire-append-a-', tmp)
    const expected: number[] = []
    const starts: number[] = []
    for (let i = 0; i < 400; i++) {
      // mostly small records, every 50th larger than the 1 MiB write buffer, some in two parts
      const size = i % 50 === 17 ? (1 << 20) + 333 : Math.floor(rand() * 9000)
      const a = Uint8Array.from({ length: size }, () => Math.floor(rand() * 256))
      const b = i % 3 === 0 ? Uint8Array.from({ length: 1 + (i % 40) }, (_, k) => (k * 13 + i) & 255) : undefined
      starts.push(file.append(a, b))
      expect(starts[i]).toBe(expected.length)
      for (const x of a) expected.push(x)
      if (b) for (const x of b) expected.push(x)
      expect(file.size).toBe(expected.length)
      // the record just appended reads back at once (still buffered, or written straight to the file)
      const own = file.read(starts[i], file.size - starts[i])
      expect(Buffer.compare(own, Buffer.from(expected.slice(starts[i])))).toBe(0)
    }
    const all = Buffer.from(expected)
    for (let k = 0; k < 300; k++) {
      const start = Math.floor(rand() * all.length)
      const length = Math.floor(rand() * Math.min(3 << 20, all.length - start))
      expect(Buffer.compare(file.read(start, length), all.subarray(start, start + length))).toBe(0)
    }
    // the tail always spans the file and the buffer; into a caller's buffer
    const out = Buffer.alloc(100_000)
    expect(Buffer.compare(file.read(all.length - 100_000, 100_000, out), all.subarray(all.length - 100_000))).toBe(0)
    expect(() => file.read(all.length - 10, 11)).toThrow(RangeError)
    expect(() => file.read(-1, 1)).toThrow(RangeError)
    file.close()
  })

  it('views the same bytes through its read-ahead window, forwards, backwards and while records are added', () => {
    const rand = rng(5)
    const file = new AppendFile('gamewire-append-v-', tmp)
    const all: number[] = []
    const records: [number, number][] = []
    const add = (size: number) => {
      const bytes = Uint8Array.from({ length: size }, () => Math.floor(rand() * 256))
      records.push([file.append(bytes), size])
      for (const x of bytes) all.push(x)
    }
    const check = ([start, length]: [number, number]) => expect(Buffer.compare(file.view(start, length), Buffer.from(all.slice(start, start + length)))).toBe(0)
    for (let i = 0; i < 3000; i++) add(i % 700 === 3 ? (1 << 20) + 77 : Math.floor(rand() * 2000))
    for (const r of records) check(r)
    for (let k = records.length - 1; k >= 0; k -= 13) check(records[k])
    // a window read at the end, then records added after it: the next views reach past the old window's end
    check(records[records.length - 1])
    for (let i = 0; i < 50; i++) {
      add(Math.floor(rand() * 3000))
      check(records[records.length - 2])
      check(records[records.length - 1])
    }
    check(records[0])
    file.close()
    expect(() => file.view(0, 1)).toThrow(/after close/)
  })

  it('leaves nothing in its folder while open and closes its file', () => {
    const dir = mkdtempSync(join(tmp, 'b-'))
    const file = new AppendFile('gamewire-append-b-', dir)
    file.append(new Uint8Array(2 << 20).fill(1))
    // removed from the folder at once where the system allows (Linux), yet readable
    expect(readdirSync(dir)).toEqual([])
    expect(openFilesNamed('gamewire-append-b-')).toBe(1)
    expect(file.read((2 << 20) - 3, 3)).toEqual(Buffer.from([1, 1, 1]))
    file.close()
    file.close()
    expect(openFilesNamed('gamewire-append-b-')).toBe(0)
    expect(() => file.append(new Uint8Array(1))).toThrow(/after close/)
    expect(() => file.read(0, 1)).toThrow(/after close/)
  })
})
