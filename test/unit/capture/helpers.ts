// Shared by the capture tests: feeding bytes to CaptureReader in chunks, and reading the fixture
// oracles written by test/fixtures/make-capture-fixtures.mjs (tshark/capinfos output).

import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { CaptureFormatError, CaptureReader, type CaptureFormat, type CaptureFrame, type CaptureInterface } from '../../../src-shared/capture'
export { rng } from '../helpers/rng'

export const FIXTURES = fileURLToPath(new URL('../../fixtures/capture/', import.meta.url))

export interface ManifestEntry {
  file: string
  format: CaptureFormat
  description: string
  complete: boolean
  frames: number
  expectWarning?: string
  fcsLength?: number
}

export interface OracleFrame {
  number: number
  time: string | null
  len: number
  capLen: number
  section: number
  interfaceId: number
  /** Absent past section 1 (tshark 4.0 looks the name up in the wrong section). */
  interfaceName?: string | null
  linkType: number
  comments: string[]
  hex: string
}

export interface OracleInterface {
  name: string | null
  description: string | null
  linkType: number
  snapLen: number
  tsUnitsPerSecond: number
  tsOffset: number
}

export interface Oracle {
  file: string
  complete: boolean
  stderr: string
  interfaces: OracleInterface[]
  frames: OracleFrame[]
}

export function manifest(): ManifestEntry[] {
  return JSON.parse(readFileSync(FIXTURES + 'manifest.json', 'utf8')) as ManifestEntry[]
}

export function oracle(file: string): Oracle {
  return JSON.parse(readFileSync(FIXTURES + file + '.oracle.json', 'utf8')) as Oracle
}

export function fixture(file: string): Uint8Array {
  // A fresh Uint8Array, not a pooled Buffer, so tests see what a browser host would pass.
  return new Uint8Array(readFileSync(FIXTURES + file))
}

export interface ReadResult {
  format: CaptureFormat | undefined
  frames: CaptureFrame[]
  interfaces: CaptureInterface[]
  /** Interfaces as reported through onInterface, in order. */
  announced: CaptureInterface[]
  warnings: string[]
  /** Message of the CaptureFormatError thrown by push() or end(), if any. */
  error?: string
  bytesRead: number
}

/**
 * Feeds `bytes` to a CaptureReader in chunks: a fixed size, or sizes drawn from a function (called
 * with the chunk index). Only CaptureFormatError is caught; anything else fails the test.
 */
export function readCapture(bytes: Uint8Array, chunk: number | ((i: number) => number) = bytes.length || 1): ReadResult {
  const frames: CaptureFrame[] = []
  const announced: CaptureInterface[] = []
  const warnings: string[] = []
  const reader = new CaptureReader({
    onFrame: (f) => frames.push(f),
    onInterface: (i) => announced.push(i),
    onWarning: (w) => warnings.push(w)
  })
  let error: string | undefined
  try {
    for (let pos = 0, i = 0; pos < bytes.length; i++) {
      const n = Math.max(1, typeof chunk === 'number' ? chunk : chunk(i))
      reader.push(bytes.subarray(pos, pos + n))
      pos += n
    }
    reader.end()
  } catch (e) {
    if (!(e instanceof CaptureFormatError)) throw e
    error = e.message
  }
  return { format: reader.format, frames, interfaces: [...reader.interfaces], announced, warnings, error, bytesRead: reader.bytesRead }
}

export function hex(b: Uint8Array): string {
  let s = ''
  for (const x of b) s += x.toString(16).padStart(2, '0')
  return s
}

/** tshark's frame.time_epoch form: seconds, a dot, 9 digits of nanoseconds. */
export function epoch(f: Pick<CaptureFrame, 'tsSec' | 'tsNsec'>): string {
  return `${f.tsSec}.${String(f.tsNsec).padStart(9, '0')}`
}
