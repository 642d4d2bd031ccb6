// The capture files the tests decode: every pcap and pcapng under a folder, and the committed set
// (test/fixtures and the bundled demo) that the whole-corpus tests run over.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { CaptureReader } from '../../../src-shared/capture/reader'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { Engine, type EngineOptions } from '../../../src-shared/engine/engine'
import { parseKeyFile } from '../../../src-shared/keys/keyfile'
import { KeyStore } from '../../../src-shared/keys/store'
import { createDefaultRegistry } from '../../../src-shared/protocols'

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

/** The keys the committed captures are decoded with (the UI fixtures' key file). */
export function fixtureKeys(): KeyStore {
  const k = new KeyStore()
  k.addAll(parseKeyFile(readFileSync(join(ROOT, 'test/fixtures/ui/keys.txt'), 'utf8')).keys)
  return k
}

/**
 * Decodes a capture file in one engine with the fixtures' keys (unless `o.keys` gives others) and the
 * default registry; a corrupt capture's frames read before the damage still count.
 */
export function decodeCaptureFile(
  file: string,
  o: Omit<EngineOptions, 'registry' | 'keys'> & { keys?: KeyStore; onFrame?: (f: CaptureFrame) => void }
): Engine {
  const { onFrame, keys, ...engineOptions } = o
  const engine = new Engine({ registry: createDefaultRegistry(), ...engineOptions, keys: keys ?? fixtureKeys() })
  const reader = new CaptureReader({
    onFrame: (f) => {
      onFrame?.(f)
      engine.addFrame(f)
    },
    onWarning: () => undefined
  })
  try {
    reader.push(new Uint8Array(readFileSync(file)))
    reader.end()
  } catch {
    // Corrupt-capture fixtures: what was read still counts.
  }
  engine.finish()
  return engine
}
