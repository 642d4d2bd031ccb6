// For the live ENet test: tshark on plain `lo` (we run as root; no namespace needed), a free UDP port, and
// npm enet 0.2.9 (ENet 1.3.5 compiled to JS) loaded through require (it ships no types).
import { startTshark as startTsharkOn } from '../../../fixtures/loopback.mjs'
import { createRequire } from 'node:module'
import dgram from 'node:dgram'

export { sleep } from '../../../fixtures/loopback.mjs'

/** Starts tshark on the host's lo with a capture filter; resolves once it captures. Returns stop(). */
export const startTshark = (filter: string, file: string) => startTsharkOn(null, filter, file)

/** A UDP port nobody holds right now on 127.0.0.1. */
export async function freeUdpPort(): Promise<number> {
  const s = dgram.createSocket('udp4')
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()))
  const port = s.address().port
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

export interface EnetLib {
  createServer(opts: any, cb: (err: Error | undefined, host: any) => void): any
  createClient(opts: any, cb: (err: Error | undefined, host: any) => void): any
  Packet: new (data: Buffer, flags: number) => any
  PACKET_FLAG: { RELIABLE: number; UNSEQUENCED: number; UNRELIABLE_FRAGMENT: number }
}

export function loadEnet(): EnetLib {
  const require = createRequire(import.meta.url)
  const warn = process.emitWarning
  // The asm.js build makes Node print a harmless warning; keep the test output clean.
  process.emitWarning = () => undefined
  try {
    return require('enet') as EnetLib
  } finally {
    process.emitWarning = warn
  }
}
