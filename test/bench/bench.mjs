// `npm run bench`: gamewire against tshark on the same ~200,000-frame capture.
// Prints frames/s for reading + reassembly + decoded-JSON export (`gamewire decode -o /dev/null`), the
// same for `tshark -r FILE -T json`, their ratio, peak RSS of each, and the row index's memory per
// message (`gamewire stats`). Numbers, not pass/fail: speed is never asserted by a test.

import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const frames = Number(process.env.BENCH_FRAMES ?? 200_000)
const dir = join(root, '.bench')
const capture = join(dir, `bench-${frames}.pcap`)
mkdirSync(dir, { recursive: true })
if (!existsSync(capture)) execFileSync(process.execPath, [join(root, 'test/bench/make-bench-capture.mjs'), capture, String(frames)], { stdio: 'inherit' })
if (!existsSync(join(root, 'out/main/cli.js'))) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })

/** Runs a command under GNU time; returns wall seconds and peak RSS in MiB. */
function measure(cmd, args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', cmd, ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 })
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr.toString().slice(-500)}`)
  const [secs, kb] = r.stderr.toString().trim().split('\n').pop().split(' ').map(Number)
  return { secs, rssMiB: kb / 1024 }
}

const actual = Number(execFileSync('capinfos', ['-M', '-c', '-T', '-r', capture]).toString().trim().split('\t').pop())
console.log(`capture: ${capture} (${actual} frames, ${(statSync(capture).size / 2 ** 20).toFixed(1)} MiB)`)

const gw = measure(process.execPath, [join(root, 'bin/gamewire.mjs'), 'decode', capture, '-o', '/dev/null', '-q'])
const gwRate = actual / gw.secs
console.log(`gamewire decode (read + reassembly + decoded JSON): ${gw.secs.toFixed(2)} s, ${Math.round(gwRate).toLocaleString('en')} frames/s, peak RSS ${gw.rssMiB.toFixed(0)} MiB`)

const ts = measure('tshark', ['-r', capture, '-T', 'json'])
const tsRate = actual / ts.secs
console.log(`tshark -T json:                                     ${ts.secs.toFixed(2)} s, ${Math.round(tsRate).toLocaleString('en')} frames/s, peak RSS ${ts.rssMiB.toFixed(0)} MiB`)
console.log(`ratio: gamewire is ${(gwRate / tsRate).toFixed(1)}x tshark -T json`)

const stats = JSON.parse(execFileSync(process.execPath, ['--expose-gc', join(root, 'bin/gamewire.mjs'), 'stats', capture, '--json'], { cwd: root, maxBuffer: 1 << 30 }).toString())
console.log(`row index: ${stats.messages.toLocaleString('en')} messages, ${stats.index.bytesPerMessage.toFixed(1)} bytes/message (columns ${stats.index.columnBytesPerMessage} + summaries), heap growth ${stats.index.heapBytesPerMessage.toFixed(1)} bytes/message`)

// Live capture: bursts on loopback at rising rates (test/bench/live-bench.mjs; needs capture rights).
console.log('')
execFileSync(process.execPath, [join(root, 'test/bench/live-bench.mjs')], { cwd: root, stdio: 'inherit' })
