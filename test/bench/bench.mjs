// `npm run bench`: gamewire against tshark on the same files in the same run. Numbers, never pass/fail:
// speed is never asserted by a test.
//
// 1. The game capture (test/bench/game-traffic.ts: Photon, SFS2X and FigNet on every carrier, with its
//    key file; BENCH_FRAMES frames, default 200,000; generated into .bench/ when missing):
//      index pass      `gamewire stats --keylog`           vs `tshark -r`
//      display filter  `gamewire decode --filter --tree none` and the app's setView  vs `tshark -r -Y`
//      decode export   `gamewire decode -o /dev/null` (--tree full) and `--tree none`  vs `tshark -T json`
//      workers         each gamewire row again with --jobs 1 and --jobs 2
//      peak RSS of every process, V8 bytes allocated per frame in the index pass, the app path in-process
//      (SessionCore: open, the detail checkpoints taken after it, filter, export of a filtered view and of a
//      selection, message detail latency; under the young generation the app's session worker has) and in
//      Chromium (`gamewire serve`).
//    A flag this build's CLI rejects (--jobs, --tree are being added) gives "n/a", not a failure.
//    Every command of a comparison runs BENCH_REPEAT times (default 3), its tshark reference and the
//    gamewire commands in turn each time, and the table shows medians: single runs on a shared machine
//    move by 10-40 %, and a slow phase then falls on both sides of a ratio.
// 2. The generic capture (make-bench-capture.mjs: generic payloads, so mostly transport cost), shorter.
// 3. Live capture (live-bench.mjs); BENCH_LIVE=0 skips it.

import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runnerImport } from 'vite'
import { usage } from '../script-usage.mjs'

usage(`usage: node test/bench/bench.mjs   (npm run bench)
gamewire against tshark on the same captures in the same run; prints numbers, never pass/fail. No arguments.
Runs \`npm run build\` first, and keeps its captures in .bench/ (generated when missing: the game capture and
its key file by make-game-capture.mjs, the generic capture by make-bench-capture.mjs). Needs tshark and
capinfos; the UI row needs /usr/bin/chromium; the live part needs capture rights.
Environment:
  BENCH_FRAMES=N           frames in the game capture (default 200000)
  BENCH_GENERIC_FRAMES=N   frames in the generic capture (default 200000)
  BENCH_BUILD=0            skip \`npm run build\` (measure out/ as it is)
  BENCH_LIVE=0             skip the live part (live-bench.mjs)
  BENCH_LIVE_RATES=...     the live part's rates (see live-bench.mjs --help)
  BENCH_REPEAT=N           runs of each compared command, in turn with its tshark reference (default 3);
                           the tables show the median time, the highest peak RSS and the range of ratios
`)

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const load = async (path) => (await runnerImport(join(root, path), { configFile: false, logLevel: 'error' })).module

// The app's session runs in a worker thread with DECODE_WORKER_LIMITS (a larger young generation than
// V8's default); the in-process parts below (the app path, the floor) are measured under the same, so this
// script runs itself again with the matching semi-space size (the young generation is three semi-spaces).
{
  const { DECODE_WORKER_LIMITS } = await load('src-main/host/worker-limits.ts')
  const semiSpace = `--max-semi-space-size=${Math.round(DECODE_WORKER_LIMITS.maxYoungGenerationSizeMb / 3)}`
  if (!process.execArgv.includes(semiSpace)) {
    const again = spawnSync(process.execPath, [...process.execArgv, semiSpace, fileURLToPath(import.meta.url)], { stdio: 'inherit' })
    process.exit(again.status ?? 1)
  }
}
const BIN = join(root, 'bin/gamewire.mjs')
const dir = join(root, '.bench')
const FRAMES = Number(process.env.BENCH_FRAMES ?? 200_000)
const GENERIC_FRAMES = Number(process.env.BENCH_GENERIC_FRAMES ?? 200_000)
const FILTER = 'udp.port == 5055'
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3)
if (!Number.isInteger(REPEAT) || REPEAT < 1) {
  console.error(`BENCH_REPEAT must be a whole number from 1, got '${process.env.BENCH_REPEAT}'`)
  process.exit(2)
}
mkdirSync(dir, { recursive: true })

// ---- inputs ----

// The game capture's name carries a hash of its generator and the encoders it uses: edit them and the
// next run regenerates instead of measuring stale traffic.
const GENERATOR_FILES = [
  'test/bench/game-traffic.ts',
  'test/bench/make-game-capture.mjs',
  'test/unit/helpers/frames.ts',
  'test/unit/helpers/websocket.ts',
  'test/unit/protocols/photon/udp-encoder.ts',
  'test/unit/protocols/photon/gp-encoder.ts',
  'test/unit/protocols/sfs2x/helpers.ts',
  'test/unit/protocols/enet/encoder.ts',
  'test/unit/protocols/fignet/encoders.ts',
  'test/unit/protocols/litenetlib/encoder.ts'
]
const genHash = createHash('sha256')
for (const f of GENERATOR_FILES) genHash.update(readFileSync(join(root, f)))
const game = join(dir, `game-${FRAMES}-${genHash.digest('hex').slice(0, 8)}.pcapng`)
const keys = `${game}.keys`
if (!existsSync(game) || !existsSync(keys)) {
  console.log(`generating ${game} (${FRAMES.toLocaleString('en')} frames; takes a while the first time)`)
  execFileSync(process.execPath, [join(root, 'test/bench/make-game-capture.mjs'), game, String(FRAMES)], { stdio: 'inherit' })
}
const generic = join(dir, `bench-${GENERIC_FRAMES}.pcap`)
if (!existsSync(generic))
  execFileSync(process.execPath, [join(root, 'test/bench/make-bench-capture.mjs'), generic, String(GENERIC_FRAMES)], { stdio: 'inherit' })
// A capture with no frames: what the CLI allocates just to start, subtracted from the allocation count.
const empty = join(dir, 'empty.pcap')
if (!existsSync(empty)) writeFileSync(empty, Buffer.from('d4c3b2a1020004000000000000000000ffff000001000000', 'hex'))
// Always build: the bench measures out/, which must be the sources as they are.
if (process.env.BENCH_BUILD !== '0') execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' })

// ---- running and measuring processes ----

const HAVE_TIME = existsSync('/usr/bin/time')

/** Peak RSS by polling /proc (used only without GNU time): VmHWM is the process's high-water mark. */
function vmHwmKiB(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : 0
  } catch {
    return 0
  }
}

/**
 * Runs a command with stdout to /dev/null (or captured). Returns wall seconds and peak RSS (MiB), or
 * `unsupported` naming the flag when the CLI rejects an option this build does not have.
 */
async function measure(cmd, args, o = {}) {
  const argv = HAVE_TIME ? ['/usr/bin/time', ['-f', '%e %M', cmd, ...args]] : [cmd, args]
  const started = performance.now()
  const child = spawn(argv[0], argv[1], { cwd: root, env: { ...process.env, ...o.env }, stdio: ['ignore', o.stdout ? 'pipe' : 'ignore', 'pipe'] })
  let stderr = ''
  let stdout = ''
  let peak = 0
  child.stderr.on('data', (d) => (stderr += d))
  child.stdout?.on('data', (d) => (stdout += d))
  const poll = HAVE_TIME ? null : setInterval(() => (peak = Math.max(peak, vmHwmKiB(child.pid))), 20)
  const code = await new Promise((resolve) => child.on('close', resolve))
  if (poll) clearInterval(poll)
  const wall = (performance.now() - started) / 1000
  const lines = stderr.trimEnd().split('\n')
  let secs = wall
  if (HAVE_TIME) {
    const [s, kb] = lines.pop().split(' ').map(Number)
    secs = s
    peak = kb
    stderr = lines.join('\n')
  }
  const flag = /unknown option (--[\w-]+)/.exec(stderr)
  if (code === 2 && flag) return { unsupported: flag[1] }
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${code}): ${stderr.slice(-800)}`)
  return { secs, rssMiB: peak / 1024, stdout, stderr }
}

const gw = (args, o) => measure(process.execPath, [BIN, ...args], o)

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/**
 * Runs a comparison's commands REPEAT times, all of them in turn each time (so a slow phase of the machine,
 * which lasts minutes here, lands on the reference and on gamewire alike). Per command: the median seconds,
 * the highest peak RSS, every run's seconds in order (`runs`, to pair with the reference's), and the first
 * run's output.
 */
async function repeated(commands) {
  const all = Object.fromEntries(Object.keys(commands).map((k) => [k, []]))
  for (let i = 0; i < REPEAT; i++) for (const [k, run] of Object.entries(commands)) all[k].push(await run())
  const summary = ([k, rs]) => [
    k,
    rs[0].unsupported ? rs[0] : { ...rs[0], secs: median(rs.map((r) => r.secs)), rssMiB: Math.max(...rs.map((r) => r.rssMiB)), runs: rs.map((r) => r.secs) }
  ]
  return Object.fromEntries(Object.entries(all).map(summary))
}

function frameCount(file) {
  return Number(execFileSync('capinfos', ['-M', '-c', '-T', '-r', file]).toString().trim().split('\t').pop())
}

// ---- printing ----

const num = (n) => Math.round(n).toLocaleString('en')
const secs = (s) => (s < 10 ? s.toFixed(2) : s.toFixed(1)) + ' s'
const ms = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1)) + ' ms'
const NA = 'n/a (flag not supported by this build)'
const W = 46

/** One row: gamewire's time, frames/s and RSS; tshark's; gamewire's speed as a multiple of tshark's. */
function row(label, frames, g, t) {
  const head = label.padEnd(W)
  if (g.unsupported) return console.log(`${head}${NA}`)
  const gRate = frames / g.secs
  let line = `${head}${secs(g.secs).padStart(9)} ${num(gRate).padStart(10)} ${(g.rssMiB.toFixed(0) + ' MiB').padStart(9)}`
  if (t) {
    line += `   ${secs(t.secs).padStart(8)} ${num(frames / t.secs).padStart(9)} ${(t.rssMiB.toFixed(0) + ' MiB').padStart(8)}   ${(t.secs / g.secs).toFixed(2)}x`
    // The ratio of each run with the reference's run of the same turn: how far one run can be trusted.
    if (g.runs?.length > 1 && t.runs?.length === g.runs.length) {
      const ratios = g.runs.map((s, i) => t.runs[i] / s)
      line += ` (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}x)`
    }
  }
  console.log(line)
}

function header(title) {
  console.log('')
  console.log(title)
  console.log(
    `${''.padEnd(W)}${'gamewire'.padStart(9)} ${'frames/s'.padStart(10)} ${'peak RSS'.padStart(9)}   ${'tshark'.padStart(8)} ${'frames/s'.padStart(9)} ${'peak RSS'.padStart(8)}   speed vs tshark`
  )
}

const speedup = (one, two) => (one.unsupported || two.unsupported ? NA : `${(one.secs / two.secs).toFixed(2)}x`)

// ---- 1. the game capture ----

const gameFrames = frameCount(game)
const keyLines = readFileSync(keys, 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#')).length
console.log(`game capture: ${game} (${num(gameFrames)} frames, ${(statSync(game).size / 2 ** 20).toFixed(1)} MiB, ${keyLines} keys)`)
console.log(`every gamewire run below passes --keylog ${keys}; tshark has no dissector for these protocols and no keys`)
console.log(`each compared command ran ${REPEAT} times, in turn with its reference: median time, highest peak RSS, (range of the runs' ratios)`)

// Index pass. `stats` prints one summary; with --keylog missing (an older build) it runs without keys. This
// first run, not counted, also brings the capture into the page cache.
let statsKeys = ['--keylog', keys]
let first = await gw(['stats', game, ...statsKeys, '--json'], { stdout: true })
if (first.unsupported === '--keylog') {
  statsKeys = []
  first = await gw(['stats', game, '--json'], { stdout: true })
}
const summary = JSON.parse(first.stdout)
const { tsRead, stats, stats1, stats2 } = await repeated({
  tsRead: () => measure('tshark', ['-r', game]),
  stats: () => gw(['stats', game, ...statsKeys]),
  stats1: () => gw(['stats', game, ...statsKeys, '--jobs', '1']),
  stats2: () => gw(['stats', game, ...statsKeys, '--jobs', '2'])
})
header(`index pass (gamewire stats${statsKeys.length ? ' --keylog' : ', no --keylog in this build'}; tshark -r FILE > /dev/null)`)
row('stats', gameFrames, stats, tsRead)
row('stats --jobs 1', gameFrames, stats1, tsRead)
row('stats --jobs 2', gameFrames, stats2, tsRead)
console.log(
  `${num(summary.messages)} messages (${Object.entries(summary.protocols)
    .map(([p, n]) => `${p} ${num(n)}`)
    .join(', ')}), ${summary.errors} with errors; ` +
    `the row index takes ${summary.index.bytesPerMessage.toFixed(1)} bytes/message (${summary.index.columnBytesPerMessage} of fixed columns)`
)

// Display filter: the CLI exports only the matching messages; tshark prints their summary lines.
const { tsFilter, gwFilter } = await repeated({
  tsFilter: () => measure('tshark', ['-r', game, '-Y', FILTER]),
  gwFilter: () => gw(['decode', game, '--keylog', keys, '--filter', FILTER, '--tree', 'none', '-o', '/dev/null', '-q'])
})
header(`display filter '${FILTER}' (gamewire decode --filter … -o /dev/null; tshark -r FILE -Y … > /dev/null)`)
row('decode --filter --tree none', gameFrames, gwFilter, tsFilter)
if (gwFilter.unsupported)
  row(
    'decode --filter (full trees of the matches)',
    gameFrames,
    await gw(['decode', game, '--keylog', keys, '--filter', FILTER, '-o', '/dev/null', '-q']),
    tsFilter
  )

// Decode export.
// The worker rows use --tree none (the cheaper export) when this build has it, so they stay short.
const mode = (await gw(['decode', empty, '--tree', 'none', '-o', '/dev/null', '-q'])).unsupported ? [] : ['--tree', 'none']
const decodeGame = (...args) => gw(['decode', game, '--keylog', keys, ...args, '-o', '/dev/null', '-q'])
const { tsJson, full, full2, none, jobs1, jobs2 } = await repeated({
  tsJson: () => measure('tshark', ['-r', game, '-T', 'json']),
  full: () => decodeGame(),
  // With trees each message costs far more than reading and merging it, so two workers pay off there most.
  full2: () => decodeGame('--jobs', '2'),
  none: () => decodeGame('--tree', 'none'),
  jobs1: () => decodeGame(...mode, '--jobs', '1'),
  jobs2: () => decodeGame(...mode, '--jobs', '2')
})
header('decode export (gamewire decode -o /dev/null; tshark -r FILE -T json > /dev/null)')
row('decode (--tree full)', gameFrames, full, tsJson)
row('decode (--tree full) --jobs 2', gameFrames, full2, tsJson)
row('decode --tree none', gameFrames, none, tsJson)
row(`decode ${mode.join(' ')} --jobs 1`.replace('  ', ' '), gameFrames, jobs1, tsJson)
row(`decode ${mode.join(' ')} --jobs 2`.replace('  ', ' '), gameFrames, jobs2, tsJson)
console.log('')
console.log(
  `speed-up of 2 workers over 1: index pass ${speedup(stats1, stats2)}, decode ${mode.join(' ') || '(--tree full)'} ${speedup(jobs1, jobs2)}` +
    (mode.length ? `, decode (--tree full) ${speedup(full, full2)}` : '')
)

// Allocation: V8 reports, at every GC, the bytes allocated on its heap since the previous GC
// (--trace-gc-nvp `allocated=`); --expose-gc lets `stats` collect at its start and end, so the sum covers
// the whole run. The same sum for a capture without frames (CLI start-up, module loading) is subtracted.
// It counts JS objects, strings and small typed arrays; ArrayBuffer backing stores outside V8's heap
// (file chunks, large byte arrays) are not in it, so it is a lower bound on all allocation.
async function allocated(file) {
  const r = await measure(process.execPath, ['--expose-gc', '--trace-gc', '--trace-gc-nvp', BIN, 'stats', file, ...statsKeys], { stdout: true })
  let bytes = 0
  let gcs = 0
  let pause = 0
  // Now and then V8 prints a count that went below zero as an unsigned 64-bit number (2^64 less a few
  // bytes); no run allocates 2^53 bytes, so such a count is left out, and the line says how many were.
  let wrapped = 0
  for (const m of r.stdout.matchAll(/pause=([\d.]+).*? allocated=(\d+)/g)) {
    pause += Number(m[1])
    gcs++
    if (Number(m[2]) >= 2 ** 53) wrapped++
    else bytes += Number(m[2])
  }
  return { bytes, gcs, pause, wrapped, secs: r.secs }
}
const alloc = await allocated(game)
const base = await allocated(empty)
console.log(
  `index pass allocation (V8 heap, --trace-gc-nvp): ${num((alloc.bytes - base.bytes) / gameFrames)} bytes/frame ` +
    `(${((alloc.bytes - base.bytes) / 2 ** 30).toFixed(2)} GiB; ${num(alloc.gcs)} GCs, ${num(alloc.pause)} ms of GC pauses` +
    `${alloc.wrapped + base.wrapped ? `; ${alloc.wrapped + base.wrapped} GC count below zero left out` : ''})`
)

// ---- the app path, in-process: SessionCore as the Electron shell and `serve` drive it ----

const { SessionCore } = await load('src-main/host/session-core.ts')
const { rng } = await load('test/unit/helpers/rng.ts')
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]
const coreTmp = mkdtempSync(join(dir, 'core-'))
const jobsDone = new Map()
const core = new SessionCore({
  emit: (e) => {
    if (e.type === 'job' && e.job.state !== 'running') jobsDone.set(e.job.id, e.job)
  },
  demoCapturePath: () => game,
  tempDir: coreTmp
})
/** Runs an export from the app's dialog to a file under the bench folder; its time, messages and bytes. */
async function appExport(req) {
  const path = join(coreTmp, `export.${req.format}`)
  const t = performance.now()
  const { id } = core.startExport(req, { path, fileName: basename(path) })
  while (!jobsDone.has(id)) await new Promise((r) => setTimeout(r, 10))
  const job = jobsDone.get(id)
  if (job.state !== 'done') throw new Error(`export ${job.state}: ${job.error ?? ''}`)
  rmSync(path, { force: true })
  return { secs: (performance.now() - t) / 1000, messages: job.result.messages, bytes: job.result.bytes }
}
await core.addKeys(readFileSync(keys, 'utf8'))
let t0 = performance.now()
const opened = await core.open(game)
const openSecs = (performance.now() - t0) / 1000
const rssAfterOpen = process.memoryUsage().rss / 2 ** 20
// After an open, the session takes detail checkpoints through the long conversations in the background. It
// yields to any other work; waited for here alone, so its time is its own.
t0 = performance.now()
const checkpoints = await core.detailCheckpoints()
const checkpointSecs = (performance.now() - t0) / 1000
const rssAfterCheckpoints = process.memoryUsage().rss / 2 ** 20
t0 = performance.now()
const filtered = await core.setView({ filter: FILTER, sort: null, columns: [] })
const filterSecs = (performance.now() - t0) / 1000
// More filters a user types: a subtree the index answers (every Photon event), a parameter's presence and
// a parameter's number, which the index keeps (245, the event data; events from actor 3), and bytes in the
// event data, which only the trees hold, for which the Photon conversations are decoded again.
const moreFilters = []
for (const filter of ['photon.ev', 'photon.param.245', 'photon.param.254 == 3', 'photon.param.245 contains 01']) {
  await core.setView({ filter: '', sort: null, columns: [] })
  t0 = performance.now()
  const v = await core.setView({ filter, sort: null, columns: [] })
  moreFilters.push({ filter, secs: (performance.now() - t0) / 1000, count: v.count })
}
// The export dialog: the filtered view as JSON with trees (SFS2X extension calls on one port), and 20
// selected messages. Only the conversations holding them are decoded again.
const EXPORT_FILTER = 'tcp.port == 9933 && sfs2x.cmd'
await core.setView({ filter: EXPORT_FILTER, sort: null, columns: [] })
const filteredExport = await appExport({ format: 'json', scope: 'filtered' })
const exportRand = rng(7)
const selectedExport = await appExport({
  format: 'json',
  scope: 'selected',
  ids: Array.from({ length: 20 }, () => 1 + Math.floor(exportRand() * opened.messages))
})
// Message detail: 200 random messages (seeded), then 200 "arrow key" steps through one conversation.
const all = await core.setView({ filter: '', sort: null, columns: [] })
const rows = core.getRows(all.id, 0, all.count).rows
const rand = rng(42)
const randomLatency = []
for (const id of new Set(Array.from({ length: 200 }, () => 1 + Math.floor(rand() * rows.length)))) {
  t0 = performance.now()
  core.getMessage(id)
  randomLatency.push(performance.now() - t0)
}
const byConv = new Map()
for (const r of rows) (byConv.get(r.conversation) ?? byConv.set(r.conversation, []).get(r.conversation)).push(r.id)
const [convId, convIds] = [...byConv].sort((a, b) => b[1].length - a[1].length)[0]
const startAt = Math.floor(convIds.length / 2)
const stepLatency = []
for (const id of convIds.slice(startAt, startAt + 201)) {
  t0 = performance.now()
  core.getMessage(id)
  stepLatency.push(performance.now() - t0)
}
const firstStep = stepLatency.shift() // the jump into the conversation replays it from its start
// Clicks further down: 20 messages spread over each of the three largest conversations, top to bottom.
const downLatency = []
for (const [, ids] of [...byConv].sort((a, b) => b[1].length - a[1].length).slice(0, 3)) {
  for (let i = 0; i < 20; i++) {
    t0 = performance.now()
    core.getMessage(ids[Math.floor(((i + 0.5) * ids.length) / 20)])
    downLatency.push(performance.now() - t0)
  }
}
core.close()
rmSync(coreTmp, { recursive: true, force: true })
console.log('')
console.log(`app path in-process (SessionCore, with the keys): ${num(opened.messages)} messages in ${num(opened.conversations)} conversations`)
console.log(
  `  open → ready                ${secs(openSecs)}  ${num(gameFrames / openSecs)} frames/s  (bench process RSS after: ${rssAfterOpen.toFixed(0)} MiB)`
)
console.log(
  `  detail checkpoints, background after open  ${secs(checkpointSecs)}  ${num(checkpoints.kept)} kept  (RSS after: ${rssAfterCheckpoints.toFixed(0)} MiB)`
)
console.log(
  `  setView '${FILTER}'    ${secs(filterSecs)}  ${num(filtered.count)} of ${num(filtered.total)} rows  (${(tsFilter.secs / filterSecs).toFixed(2)}x tshark -Y's speed)`
)
for (const f of moreFilters) console.log(`  setView '${f.filter}'${' '.repeat(Math.max(1, 30 - f.filter.length))}${secs(f.secs)}  ${num(f.count)} rows`)
console.log(
  `  export filtered '${EXPORT_FILTER}' as JSON  ${secs(filteredExport.secs)}  ${num(filteredExport.messages)} messages, ${(filteredExport.bytes / 2 ** 20).toFixed(0)} MiB`
)
console.log(`  export 20 selected as JSON   ${secs(selectedExport.secs)}  ${num(selectedExport.messages)} messages`)
console.log(
  `  getMessage, ${randomLatency.length} random ids  p50 ${ms(pct(randomLatency, 50))}  p95 ${ms(pct(randomLatency, 95))}  max ${ms(Math.max(...randomLatency))}  (${secs(randomLatency.reduce((a, b) => a + b, 0) / 1000)} in all)`
)
console.log(
  `  arrow-key steps, 200 in conversation #${convId} (${num(convIds.length)} messages)  p50 ${ms(pct(stepLatency, 50))}  p95 ${ms(pct(stepLatency, 95))}  (jump in: ${ms(firstStep)})`
)
console.log(
  `  clicks down the 3 largest conversations, 20 each  p50 ${ms(pct(downLatency, 50))}  p95 ${ms(pct(downLatency, 95))}  max ${ms(Math.max(...downLatency))}`
)

// ---- the floor under the index pass: the same file with no protocol decoder ----
// The capture reader alone, then the reader with the network layers, TCP/UDP conversations and every payload
// an unknown message (an empty protocol registry): what any index pass pays before a decoder runs. CPU time
// of this thread, best of three.
{
  const { CaptureReader } = await load('src-shared/capture/reader.ts')
  const { DecodeSession } = await load('src-shared/engine/session.ts')
  const { ProtocolRegistry } = await load('src-shared/protocols/registry.ts')
  const bytes = readFileSync(game)
  const feed = (push) => {
    for (let i = 0; i < bytes.length; i += 1 << 20) push(new Uint8Array(bytes.buffer, bytes.byteOffset + i, Math.min(1 << 20, bytes.length - i)))
  }
  const cpu = (run) => {
    let best = Infinity
    for (let i = 0; i < 3; i++) {
      const c0 = process.cpuUsage()
      run()
      const c = process.cpuUsage(c0)
      best = Math.min(best, (c.user + c.system) / 1e6)
    }
    return best
  }
  const readerOnly = cpu(() => {
    const r = new CaptureReader({ onFrame: () => undefined })
    feed((b) => r.push(b))
    r.end()
  })
  const network = cpu(() => {
    const s = new DecodeSession({ registry: new ProtocolRegistry(), recording: false, onMessage: () => undefined })
    feed((b) => s.push(b))
    s.end()
  })
  console.log('')
  console.log(
    `floor without protocol decoders (CPU, best of 3): capture reader ${secs(readerOnly)}, reader + network layers + conversations ${secs(network)}; ` +
      `tshark -r ${secs(tsRead.secs)} (3x tshark would be ${secs(tsRead.secs / 3)})`
  )
}

// ---- the UI: `gamewire serve CAPTURE` in headless Chromium ----

/** Times serve + Chromium: Chromium starts first, so its start-up is not counted; the clock starts at spawn. */
async function uiOpen() {
  const { chromium } = await import('playwright-core')
  const config = mkdtempSync(join(dir, 'serve-config-'))
  writeFileSync(join(config, 'keys.txt'), readFileSync(keys)) // serve loads saved keys before opening
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync'
    ]
  })
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
  const started = performance.now()
  const server = spawn(process.execPath, [BIN, 'serve', game, '--port', '0'], {
    env: { ...process.env, GAMEWIRE_CONFIG_DIR: config },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  try {
    const url = await new Promise((resolve, reject) => {
      server.stdout.once('data', (d) => resolve(String(d).trim().split('\n')[0]))
      server.once('exit', (code) => reject(new Error(`gamewire serve exited (${code})`)))
    })
    const at = () => (performance.now() - started) / 1000
    const listening = at()
    await page.goto(url)
    const loaded = at()
    await page.waitForSelector('[data-testid=timeline-row]', { timeout: 600_000 })
    const firstRows = at()
    await page.waitForSelector('[data-testid=status-bar][data-phase=ready]', { timeout: 600_000 })
    const ready = at()
    return { listening, loaded, firstRows, ready, steps: await arrowSteps(page) }
  } finally {
    await browser.close()
    server.kill('SIGTERM')
    await new Promise((r) => server.once('close', r))
    rmSync(config, { recursive: true, force: true })
  }
}
/**
 * Selects a row and steps down 40 messages with ArrowDown, timed in the page from the key's event to the
 * detail tree showing the next message (the driver's own round trips left out).
 */
async function arrowSteps(page) {
  await page.locator('[data-testid=timeline-row]').nth(5).click()
  await page.waitForSelector('[data-testid=detail-tree] [data-testid=tree-node]')
  await page.evaluate(() => {
    const steps = (window.__gamewireSteps = [])
    const tree = () => document.querySelector('[data-testid=detail-tree]')
    let pressed = 0
    let shown = tree()?.getAttribute('data-message')
    window.addEventListener('keydown', (e) => e.key === 'ArrowDown' && (pressed = performance.now()), true)
    new MutationObserver(() => {
      const m = tree()?.getAttribute('data-message')
      if (!pressed || !m || m === shown || !tree().querySelector('[data-testid=tree-node]')) return
      steps.push(performance.now() - pressed)
      shown = m
      pressed = 0
    }).observe(document.body, { subtree: true, childList: true, attributes: true })
  })
  for (let i = 0; i < 40; i++) {
    const before = await page.locator('[data-testid=detail-tree]').getAttribute('data-message')
    await page.keyboard.press('ArrowDown')
    await page.waitForFunction((b) => document.querySelector('[data-testid=detail-tree]')?.getAttribute('data-message') !== b, before)
  }
  return page.evaluate(() => window.__gamewireSteps)
}

try {
  const ui = await uiOpen()
  console.log(`UI (gamewire serve + headless Chromium, keys saved in its config; from starting serve; serve opens the capture at start):`)
  console.log(`  listening ${secs(ui.listening)}, page loaded ${secs(ui.loaded)}, first rows visible ${secs(ui.firstRows)}, status ready ${secs(ui.ready)}`)
  console.log(`  after the page loaded: first rows ${secs(ui.firstRows - ui.loaded)}, status ready ${secs(ui.ready - ui.loaded)}`)
  console.log(
    `  then ArrowDown × ${ui.steps.length} from a selected row, key to the next message's detail tree (in the page)  p50 ${ms(pct(ui.steps, 50))}  p95 ${ms(pct(ui.steps, 95))}`
  )
} catch (e) {
  console.log(`UI: not measured (${e.message})`)
}

// ---- 2. the generic capture ----

const genericFrames = frameCount(generic)
console.log('')
console.log(
  `generic capture: ${generic} (${num(genericFrames)} frames, ${(statSync(generic).size / 2 ** 20).toFixed(1)} MiB; generic payloads: transport cost, little decoding)`
)
header('generic capture: index pass and decode export')
const g = await repeated({
  tsRead: () => measure('tshark', ['-r', generic]),
  stats: () => gw(['stats', generic]),
  tsJson: () => measure('tshark', ['-r', generic, '-T', 'json']),
  decode: () => gw(['decode', generic, '-o', '/dev/null', '-q'])
})
row('stats (index pass) vs tshark -r', genericFrames, g.stats, g.tsRead)
row('decode (--tree full) vs tshark -T json', genericFrames, g.decode, g.tsJson)

// ---- 3. live capture: bursts on loopback at rising rates (needs capture rights) ----

if (process.env.BENCH_LIVE !== '0') {
  console.log('')
  execFileSync(process.execPath, [join(root, 'test/bench/live-bench.mjs')], { cwd: root, stdio: 'inherit' })
}
// Vite's module runner and playwright leave handles open.
process.exit(0)
