// The capture files the tests decode: every pcap and pcapng under a folder, and the committed set
// (test/fixtures and the bundled demo) that the whole-corpus tests run over.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(__dirname, '../../..')

/** Every .pcap and .pcapng file under `dir`, at any depth. */
export function captureFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? captureFiles(p) : /\.(pcap|pcapng)$/.test(name) ? [p] : []
  })
}

/** Every committed capture: the fixtures, then the demo capture `npm start` opens. */
export function committedCaptures(): string[] {
  return [...captureFiles(join(ROOT, 'test/fixtures')), join(ROOT, 'resources/demo.pcapng')]
}
