// `npm run bench`, live part: bounded bursts of Photon datagrams sent on loopback at rising rates while
// `gamewire capture -i lo` captures and decodes them, and then the app's path (forward-only capture into
// the session core); prints, per rate, what was captured and decoded,
// then the highest rate with zero drops. Numbers, not pass/fail.
//
// A drop is any datagram sent that did not come out decoded: lost before gamewire saw it (the cap binding
// exposes no pcap_stats, so this is counted against the known burst size) or left out of the output
// because the consumer fell behind (`outputDropped`, the decoder backlog bound). Needs root (or the
// capture capabilities on node). BENCH_LIVE_RATES=1000,5000 overrides the rates.

import { fork, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { runnerImport } from 'vite'
import { usage } from '../script-usage.mjs'

usage(`usage: sudo node test/bench/live-bench.mjs   (npm run bench runs it unless BENCH_LIVE=0)
Bursts of Photon datagrams on loopback at rising rates while \`gamewire capture -i lo\`, then the app's
capture path, capture and decode them; prints per rate what was captured and decoded, and the highest rate
with zero drops. No arguments; writes no files. Needs capture rights (root) and \`npm run build\` first.
Environment:
  BENCH_LIVE_RATES=1000,5000   the rates in datagrams/s (default 1000,2000,5000,10000,20000,25000,30000,40000,80000)
  BENCH_LIVE_BUFFER=MiB        libpcap's buffer for both paths (default: gamewire's default, as users get it)
`)

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const BIN = join(root, 'bin/gamewire.mjs')
const RATES = (process.env.BENCH_LIVE_RATES ?? '1000,2000,5000,10000,20000,25000,30000,40000,80000').split(',').map(Number)
const BUFFER_MIB = process.env.BENCH_LIVE_BUFFER === undefined ? undefined : Number(process.env.BENCH_LIVE_BUFFER)
if (BUFFER_MIB !== undefined && !(BUFFER_MIB >= 1 && BUFFER_MIB <= 2047)) {
  console.error(`live-bench: BENCH_LIVE_BUFFER is a size in MiB from 1 to 2047, got '${process.env.BENCH_LIVE_BUFFER}'`)
  process.exit(2)
}
const BURST_SECONDS = 2
const MAX_BURST = 160_000

async function freePort() {
  return new Promise((resolve) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port
      s.close(() => resolve(p))
    })
  })
}

// The sender runs as its own process so pacing is not disturbed by this one. Its datagrams: see
// photon-datagram.mjs.
const SENDER = `
import { createSocket } from 'node:dgram'
import { photonEventDatagram as datagram } from ${JSON.stringify(pathToFileURL(join(root, 'test/bench/photon-datagram.mjs')).href)}
const [port, n, rate] = process.argv.slice(-3).map(Number)
const s = createSocket('udp4')
s.bind(0, '127.0.0.1', () => {
  const start = process.hrtime.bigint()
  let sent = 0
  const tick = () => {
    const due = Math.min(n, Math.floor(Number(process.hrtime.bigint() - start) / 1e9 * rate))
    while (sent < due) s.send(datagram(sent++), port, '127.0.0.1')
    if (sent < n) setTimeout(tick, 1) // not a busy loop: the capture needs the CPU more
    else setTimeout(() => { process.stdout.write(String(Number(process.hrtime.bigint() - start) / 1e9)); s.close() }, 50)
  }
  tick()
})
`

function run(cmd, args, { onStderr } = {}) {
  const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdoutTail = ''
  let lines = 0
  let stderr = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (d) => {
    for (let i = d.indexOf('\n'); i !== -1; i = d.indexOf('\n', i + 1)) lines++
    // Keep only the end (the summary line): a consumer that copies everything would be the bottleneck.
    stdoutTail += d
    if (stdoutTail.length > 4 << 20) stdoutTail = stdoutTail.slice(-(1 << 20))
  })
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (d) => {
    stderr += d
    onStderr?.(stderr)
  })
  const done = new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdoutTail, lines, stderr })))
  return { child, done }
}

async function sendBurst(port, n, rate) {
  const sender = run(process.execPath, ['--input-type=module', '-e', SENDER, String(port), String(n), String(rate)])
  const sent = await sender.done
  if (sent.code !== 0) throw new Error(`the sender failed: ${sent.stderr.trim()}`)
  return Number(sent.stdoutTail)
}

/** The CLI path: `gamewire capture` printing NDJSON (field trees and all) to a pipe this process reads. */
async function cliBurst(rate, n, port) {
  let ready
  const capturing = new Promise((r) => (ready = r))
  const cap = run(
    process.execPath,
    [BIN, 'capture', '-i', 'lo', '-f', `udp port ${port}`, '--count', String(n), ...(BUFFER_MIB === undefined ? [] : ['--buffer-size', String(BUFFER_MIB)])],
    {
      onStderr: (s) => s.includes('capturing on') && ready()
    }
  )
  const first = await Promise.race([capturing.then(() => null), cap.done])
  if (first) throw new Error(`capture did not start: ${first.stderr.trim()}`)
  const seconds = await sendBurst(port, n, rate)
  // Give the decoder time to finish what it has, then stop it if --count was not reached (drops).
  const timer = setTimeout(() => cap.child.kill('SIGINT'), 3000)
  const r = await cap.done
  clearTimeout(timer)
  const summary = JSON.parse(r.stdoutTail.trim().split('\n').pop()).summary
  return {
    seconds,
    received: summary.capture.received,
    decoded: summary.stats.messages,
    delivered: r.lines - 1,
    dropped: summary.capture.outputDropped + summary.capture.decodeDropped,
    photon: summary.conversations.some((c) => c.protocol === 'photon')
  }
}

/**
 * The app path: the capture process forward-only (libpcap and nothing else, as the app starts it) sending
 * frame batches to a SessionCore, which decodes each frame once into the timeline's rows. The core runs on
 * this process's thread here (in the app it has a worker thread of its own).
 */
async function appBurst(rate, n, port) {
  const { SessionCore } = await loadCore()
  const core = new SessionCore({ emit: () => undefined, demoCapturePath: () => '' })
  const child = fork(join(root, 'out/main/capture-process.js'), [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  child.on('error', () => undefined) // an ack racing the process's exit
  let stopped
  let pending = Promise.resolve()
  const done = new Promise((resolve, reject) => {
    child.on('message', (m) => {
      if (m.type === 'started') core.beginLive({ device: m.device, linkType: m.linkType, snapLen: 262144, ringFrames: n, ringBytes: 1 << 30 })
      else if (m.type === 'batch') {
        // Acknowledged once the core has taken the batch, as InspectorSession does: a slow core slows the output.
        pending = pending.then(() => {
          if (m.frames) core.liveFrames(m.frames)
          if (child.connected) child.send({ type: 'ack', seq: m.seq })
        })
      } else if (m.type === 'stopped') stopped = m
      else if (m.type === 'fatal') reject(new Error(m.message))
    })
    child.on('exit', () => resolve())
  })
  const started = new Promise((resolve) => child.on('message', (m) => m.type === 'started' && resolve()))
  child.send({
    type: 'start',
    options: {
      device: 'lo',
      filter: `udp port ${port}`,
      bufferSize: BUFFER_MIB === undefined ? undefined : BUFFER_MIB * 2 ** 20,
      ring: { frames: n, bytes: 1 << 30 },
      forwardOnly: true,
      output: { frames: true },
      maxFrames: n
    }
  })
  await Promise.race([started, done])
  const seconds = await sendBurst(port, n, rate)
  const timer = setTimeout(() => child.connected && child.send({ type: 'stop' }), 3000)
  await done
  await pending
  clearTimeout(timer)
  const status = core.endLive()
  core.close()
  const s = stopped.stats
  return {
    seconds,
    received: s.received,
    decoded: status.messages,
    delivered: status.messages,
    dropped: s.outputDropped + s.decodeDropped + s.framesNotSent,
    photon: core.getConversationPage({ start: 0, count: 1, protocols: ['photon'] }).total > 0 || status.messages > 0
  }
}

let coreModule
async function loadCore() {
  coreModule ??= (await runnerImport(join(root, 'src-main/host/session-core.ts'), { configFile: false, logLevel: 'error' })).module
  return coreModule
}

async function ladder(label, burst) {
  console.log(label)
  let best = 0
  let failures = 0
  for (const rate of RATES) {
    const n = Math.min(MAX_BURST, Math.round(rate * BURST_SECONDS))
    let r
    try {
      r = await burst(rate, n, await freePort())
    } catch (e) {
      console.log(`  live capture unavailable: ${e.message}`)
      return
    }
    const lost = n - r.received
    const zero = lost === 0 && r.decoded === n && r.delivered === n && r.dropped === 0
    const actualRate = Math.round(n / r.seconds)
    console.log(
      `  ${String(rate).padStart(6)}/s target (${actualRate.toLocaleString('en')}/s sent): ${n.toLocaleString('en')} sent, ${r.received.toLocaleString('en')} captured, ` +
        `${r.decoded.toLocaleString('en')} decoded (${r.photon ? 'photon' : 'not photon'}), ${r.delivered.toLocaleString('en')} delivered, ${r.dropped} dropped by the backlog/output bounds, ${lost} lost before capture -> ${zero ? 'zero drops' : 'DROPS'}`
    )
    if (zero) best = Math.max(best, actualRate)
    else if (++failures >= 2) break
  }
  console.log(`  highest rate captured and decoded with zero drops: ${best ? `${best.toLocaleString('en')} datagrams/s` : 'none of the rates tried'}`)
}

console.log(
  `live capture + decode on lo: bursts of ${BURST_SECONDS} s (at most ${MAX_BURST.toLocaleString('en')} datagrams), libpcap buffer ${BUFFER_MIB === undefined ? "gamewire's default" : `${BUFFER_MIB} MiB`}`
)
await ladder('gamewire capture -i lo (NDJSON with field trees, to a pipe):', cliBurst)
await ladder('the app path: forward-only capture process, frames decoded once by the session core (rows):', appBurst)
