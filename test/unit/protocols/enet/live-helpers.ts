// For the live ENet test: tshark on plain `lo` (we run as root; no namespace needed), a free UDP port, and
// npm enet 0.2.9 (ENet 1.3.5 compiled to JS) loaded through require (it ships no types).
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import dgram from 'node:dgram'

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Starts tshark on lo with a capture filter; resolves once it captures. Returns stop(). */
export async function startTshark(filter: string, file: string): Promise<() => Promise<void>> {
  const tshark = spawn('tshark', ['-i', 'lo', '-f', filter, '-w', file], { stdio: ['ignore', 'ignore', 'pipe'] })
  let err = ''
  await new Promise<void>((resolve, reject) => {
    tshark.stderr.on('data', (d) => {
      err += d
      if (err.includes('Capturing on')) resolve()
    })
    tshark.on('exit', (c) => reject(new Error(`tshark exited ${c}: ${err}`)))
  })
  await sleep(500)
  return async () => {
    await sleep(700) // let the last packets reach the file
    const exited = new Promise((r) => tshark.on('exit', r))
    tshark.kill('SIGINT')
    await exited
  }
}

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
