// Writes the benchmark's game capture (test/bench/game-traffic.ts) and its key file. game-traffic.ts is
// TypeScript using the tests' encoders: Vite's module runner loads it, as make-ui-fixtures.mjs does.
// usage: node test/bench/make-game-capture.mjs OUT.pcapng [FRAMES] [SEED]   (keys go to OUT.keys)
import { fileURLToPath } from 'node:url'
import { runnerImport } from 'vite'
import { usage } from '../script-usage.mjs'

usage(`usage: node test/bench/make-game-capture.mjs OUT.pcapng [FRAMES] [SEED]
Writes the benchmark's game capture (test/bench/game-traffic.ts: Photon, SFS2X and FigNet on every
carrier) to OUT.pcapng and its key file to OUT.pcapng.keys. FRAMES defaults to 200000, SEED to 1.
`)

const [out, framesText = '200000', seedText = '1'] = process.argv.slice(2)
if (!out) {
  console.error('usage: make-game-capture.mjs OUT.pcapng [FRAMES] [SEED]')
  process.exit(2)
}
// The SFS2X test helpers read __dirname (vitest provides it, the module runner does not), only to find
// test vectors this generator does not use.
globalThis.__dirname = fileURLToPath(new URL('../unit/protocols/sfs2x/', import.meta.url))
const { module } = await runnerImport(fileURLToPath(new URL('./game-traffic.ts', import.meta.url)), { configFile: false, logLevel: 'error' })
const started = performance.now()
const r = module.writeGameCapture(out, `${out}.keys`, { frames: Number(framesText), seed: Number(seedText) })
const secs = (performance.now() - started) / 1000
console.error(`wrote ${r.frames} frames (${(r.bytes / 2 ** 20).toFixed(1)} MiB) to ${out} and ${r.keys} keys to ${out}.keys in ${secs.toFixed(1)} s`)
