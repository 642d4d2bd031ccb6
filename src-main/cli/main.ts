// `gamewire` command line: decode | capture | devices | serve. Errors are one line on stderr and an exit
// code (2 for bad arguments or unreadable input), never a stack trace.

import { accessSync, constants, createWriteStream, readFileSync, statSync, type WriteStream } from 'node:fs'
import { compileFilter, FilterError } from '../../src-shared/filter'
import { KeyFileError, parseKeyFile } from '../../src-shared/keys/keyfile'
import { KeyStore } from '../../src-shared/keys/store'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import { TREE_MODES, type TreeMode } from '../../src-shared/export/json'
import { parseArgs, one, positiveNumber, UsageError, type OptionSpec, type ParsedArgs } from './args'
import { defaultJobs } from '../host/shard-pool'
import { decodeInWorker, DecodeFailure } from '../host/worker-host'
import type { DecodeJob } from '../host/decode-job'
import { listDevices, CaptureUnavailable } from '../capture/devices'
import { LiveCaptureHost, LiveCaptureFailure } from '../capture/live-host'
import type { LiveStartOptions, LiveStopped } from '../capture/live-protocol'
import { captureFilter, PresetError, CAPTURE_PRESETS, PRESET_GROUPS } from '../capture/presets'
import { MAX_SNAPLEN } from '../capture/live'
// The session module pulls in every decoder and the frame/IP meta fields, so filter checks here know
// the same field names and named values as the worker that applies the filter.
import '../../src-shared/engine/session'
import { captureStats } from '../host/capture-stats'
import { serveCommand } from '../serve/command'

const PRESET_LIST = [...Object.keys(PRESET_GROUPS), ...CAPTURE_PRESETS.map((p) => (p.userPorts ? `${p.id}:PORT` : p.id))].join(', ')

const USAGE = `usage: gamewire <command> [options]

commands:
  decode CAPTURE [--keylog FILE] [--filter EXPR] [--format json|ndjson] [-o OUT] [--tree full|none]
                 [--decode-as CONV=PROTOCOL]... [--include-keys] [--include-bytes] [--layers] [--jobs N]
      Decode a .pcap or .pcapng file to the decoded-JSON document (stdout or OUT).
      --tree none leaves each message's field tree out (faster, smaller).
      --layers puts each message's frames first (frame, link, IP, UDP/TCP fields; Frame N sources).
  capture -i IFACE [-f BPF] [--preset NAME]... [--duration SECONDS] [--count N] [-w FILE.pcapng]
          [--keylog FILE] [--filter EXPR] [--format ndjson] [--tree full|none]
          [--snaplen N] [--buffer-size MiB] [--no-promisc]
      Live capture through libpcap, streaming decoded messages as NDJSON until the duration/count is
      reached or SIGINT/SIGTERM, then the summary line. Presets: ${PRESET_LIST}.
  devices [--json]
      List capture devices.
  stats CAPTURE [--keylog FILE] [--json] [--jobs N]
      Summarise a capture: frames, messages per protocol, conversations.
  serve [CAPTURE] [--port N] [--host 127.0.0.1]
      Serve the inspector UI to a browser.

CONV in --decode-as is a conversation id or an ip:port of either side; PROTOCOL is a protocol id or 'unknown'.
--jobs N decodes in N worker threads (default: cores - 1, at least 1); the output is the same for any N.`

class CliExit extends Error {
  constructor(readonly code: number, message: string) {
    super(message)
  }
}

function fail(message: string, code = 2): never {
  throw new CliExit(code, message)
}

function readableFile(path: string, what: string): void {
  try {
    accessSync(path, constants.R_OK)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    fail(code === 'ENOENT' ? `${what} not found: ${path}` : `cannot read ${what} ${path} (${code})`)
  }
  if (statSync(path).isDirectory()) fail(`${what} is a directory: ${path}`)
}

function parseDecodeAs(values: string[]): DecodeAsRule[] {
  return values.map((v) => {
    const eq = v.lastIndexOf('=')
    if (eq <= 0 || eq === v.length - 1) fail(`--decode-as needs CONV=PROTOCOL, got '${v}'`)
    const conv = v.slice(0, eq)
    const protocol = v.slice(eq + 1)
    return { match: /^\d+$/.test(conv) ? Number(conv) : conv, protocol }
  })
}

/** A write that returns a promise when the stream's buffer is full: awaiting it is the backpressure. */
function writeWithBackpressure(out: NodeJS.WritableStream): (chunk: string | Uint8Array) => Promise<void> | void {
  return (chunk) => {
    if (!out.write(chunk)) return new Promise((resolve) => out.once('drain', () => resolve()))
  }
}

function treeOption(a: ParsedArgs): TreeMode {
  const tree = one(a, 'tree') ?? 'full'
  if (!(TREE_MODES as readonly string[]).includes(tree)) fail(`--tree must be ${TREE_MODES.join(' or ')}, got '${tree}'`)
  return tree as TreeMode
}

const DECODE_OPTIONS: OptionSpec[] = [
  { name: 'keylog', value: true },
  { name: 'filter', short: 'Y', value: true },
  { name: 'format', short: 'T', value: true },
  { name: 'output', short: 'o', value: true },
  { name: 'tree', value: true },
  { name: 'decode-as', short: 'd', value: true, repeat: true },
  { name: 'include-keys' },
  { name: 'include-bytes' },
  { name: 'layers' },
  { name: 'quiet', short: 'q' },
  { name: 'jobs', short: 'j', value: true }
]

/** --jobs N: a whole number of decoding workers, 1 to 64; absent: one per core but one. */
function jobsOption(a: ParsedArgs): number {
  const text = one(a, 'jobs')
  if (text === undefined) return defaultJobs()
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 64) fail(`--jobs must be a whole number from 1 to 64, got '${text}'`)
  return Number(text)
}

async function decodeCommand(argv: string[]): Promise<number> {
  const a = parseArgs(argv, DECODE_OPTIONS, 1)
  const file = a.positional[0]
  if (!file) fail('decode needs a capture file: gamewire decode CAPTURE')
  readableFile(file, 'capture file')
  const format = one(a, 'format') ?? 'json'
  if (format !== 'json' && format !== 'ndjson') fail(`--format must be json or ndjson, got '${format}'`)
  const job: DecodeJob = { file, format, includeKeys: a.flags.has('include-keys'), includeSourceBytes: a.flags.has('include-bytes'), tree: treeOption(a), jobs: jobsOption(a) }
  if (a.flags.has('layers')) job.layers = true
  const keylog = one(a, 'keylog')
  if (keylog) {
    readableFile(keylog, 'key file')
    job.keylog = readFileSync(keylog, 'utf8')
    const parsed = parseKeyFile(job.keylog) // throws KeyFileError naming the line
    for (const w of parsed.warnings) process.stderr.write(`gamewire: warning: ${w}\n`)
  }
  const filter = one(a, 'filter')
  if (filter) {
    compileFilter(filter) // throws FilterError with the position
    job.filter = filter
  }
  const decodeAs = a.options.get('decode-as')
  if (decodeAs) job.decodeAs = parseDecodeAs(decodeAs)

  const outPath = one(a, 'output')
  let out: WriteStream | NodeJS.WriteStream = process.stdout
  if (outPath) {
    out = createWriteStream(outPath)
    await new Promise<void>((resolve, reject) => {
      ;(out as WriteStream).once('open', () => resolve())
      ;(out as WriteStream).once('error', (e: NodeJS.ErrnoException) => reject(new CliExit(2, `cannot write ${outPath} (${e.code})`)))
    })
  }
  const showProgress = process.stderr.isTTY && !a.flags.has('quiet')
  const write = writeWithBackpressure(out)
  try {
    const result = await decodeInWorker(job, {
      write,
      progress: showProgress
        ? (p) => process.stderr.write(`\r\x1b[Kdecoding ${p.total ? Math.floor((100 * p.bytes) / p.total) : 0}%  ${p.frames} frames  ${p.messages} messages`)
        : undefined
    })
    if (showProgress) process.stderr.write(`\r\x1b[K${result.frames} frames, ${result.matched} messages, ${result.errors} with errors\n`)
    for (const w of result.warnings) if (w.startsWith('capture truncated')) process.stderr.write(`gamewire: warning: ${w}\n`)
  } finally {
    if (out !== process.stdout) await new Promise<void>((resolve) => (out as WriteStream).end(() => resolve()))
  }
  return 0
}

async function statsCommand(argv: string[]): Promise<number> {
  const a = parseArgs(argv, [{ name: 'json' }, { name: 'keylog', value: true }, { name: 'jobs', short: 'j', value: true }], 1)
  const file = a.positional[0]
  if (!file) fail('stats needs a capture file: gamewire stats CAPTURE')
  readableFile(file, 'capture file')
  const keylog = one(a, 'keylog')
  let keys: KeyStore | undefined
  if (keylog) {
    readableFile(keylog, 'key file')
    const parsed = parseKeyFile(readFileSync(keylog, 'utf8')) // throws KeyFileError naming the line
    for (const w of parsed.warnings) process.stderr.write(`gamewire: warning: ${w}\n`)
    keys = new KeyStore()
    keys.addAll(parsed.keys)
  }
  const s = await captureStats(file, { keys, jobs: jobsOption(a) })
  if (a.flags.has('json')) {
    process.stdout.write(JSON.stringify(s, null, 2) + '\n')
    return 0
  }
  const lines = [
    `file: ${s.file} (${s.bytes} bytes)`,
    `frames: ${s.frames}`,
    `messages: ${s.messages} (${Object.entries(s.protocols).map(([p, n]) => `${p} ${n}`).join(', ') || 'none'}), ${s.errors} with errors`,
    `conversations: ${s.conversations.length}`,
    ...s.conversations.map((c) => `  #${c.id} ${c.transport} ${c.client} -> ${c.server} ${c.stack.join('/')} ${c.frames} frames ${c.bytes} bytes`),
    ...s.warnings.map((w) => `warning: ${w}`)
  ]
  process.stdout.write(lines.join('\n') + '\n')
  return 0
}

const CAPTURE_OPTIONS: OptionSpec[] = [
  { name: 'interface', short: 'i', value: true },
  { name: 'capture-filter', short: 'f', value: true },
  { name: 'preset', value: true, repeat: true },
  { name: 'duration', short: 'a', value: true },
  { name: 'count', short: 'c', value: true },
  { name: 'write', short: 'w', value: true },
  { name: 'keylog', value: true },
  { name: 'filter', short: 'Y', value: true },
  { name: 'format', short: 'T', value: true },
  { name: 'tree', value: true },
  { name: 'snaplen', short: 's', value: true },
  { name: 'buffer-size', short: 'B', value: true },
  { name: 'no-promisc', short: 'p' },
  { name: 'decode-as', short: 'd', value: true, repeat: true },
  { name: 'include-bytes' }
]

function integerOption(text: string | undefined, name: string, max: number): number | undefined {
  const n = positiveNumber(text, name)
  if (n !== undefined && (!Number.isInteger(n) || n > max)) fail(`--${name} must be a whole number up to ${max}, got '${text}'`)
  return n
}

async function captureCommand(argv: string[]): Promise<number> {
  const a = parseArgs(argv, CAPTURE_OPTIONS, 0)
  const device = one(a, 'interface')
  if (!device) fail('capture needs an interface: gamewire capture -i IFACE (gamewire devices lists them)')
  const format = one(a, 'format') ?? 'ndjson'
  if (format !== 'ndjson') fail(`capture streams ndjson only, got --format '${format}'`)
  const tree = treeOption(a)
  let filter: string
  try {
    filter = captureFilter(a.options.get('preset') ?? [], one(a, 'capture-filter'))
  } catch (e) {
    if (e instanceof PresetError) fail(e.message)
    throw e
  }
  const durationS = positiveNumber(one(a, 'duration'), 'duration')
  const count = integerOption(one(a, 'count'), 'count', 2 ** 32)
  const snapLen = integerOption(one(a, 'snaplen'), 'snaplen', MAX_SNAPLEN)
  const bufferMiB = positiveNumber(one(a, 'buffer-size'), 'buffer-size')
  if (bufferMiB !== undefined && bufferMiB > 2047) fail(`--buffer-size is in MiB, at most 2047, got '${bufferMiB}'`)
  const opts: LiveStartOptions = {
    device,
    filter,
    snapLen,
    promiscuous: !a.flags.has('no-promisc'),
    bufferSize: bufferMiB === undefined ? undefined : Math.max(65536, Math.round(bufferMiB * 2 ** 20)),
    durationMs: durationS === undefined ? undefined : Math.round(durationS * 1000),
    maxFrames: count,
    writeFile: one(a, 'write'),
    ring: null, // the CLI saves with -w, as it goes; nothing is kept for later
    output: { ndjson: true, includeSourceBytes: a.flags.has('include-bytes'), tree }
  }
  const keylog = one(a, 'keylog')
  if (keylog) {
    readableFile(keylog, 'key file')
    opts.keylog = readFileSync(keylog, 'utf8')
    for (const w of parseKeyFile(opts.keylog).warnings) process.stderr.write(`gamewire: warning: ${w}\n`)
  }
  const displayFilter = one(a, 'filter')
  if (displayFilter) {
    compileFilter(displayFilter)
    opts.displayFilter = displayFilter
  }
  const decodeAs = a.options.get('decode-as')
  if (decodeAs) opts.decodeAs = parseDecodeAs(decodeAs)

  const write = writeWithBackpressure(process.stdout)
  const host = new LiveCaptureHost({
    onBatch: (b) => (b.ndjson ? write(b.ndjson) : undefined),
    onLog: (line) => process.stderr.write(`gamewire: capture: ${line}\n`)
  })
  // Signals count from before the start: a Ctrl-C while libpcap opens the device stops right after.
  let signals = 0
  let capturing = false
  const onSignal = (): void => {
    if (++signals > 1) process.exit(130) // a second Ctrl-C: stop waiting
    if (capturing) host.stop().catch(() => undefined)
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    const started = await host.start(opts)
    for (const w of started.warnings) process.stderr.write(`gamewire: warning: ${w}\n`)
    process.stderr.write(`gamewire: capturing on ${device} (${started.linkTypeName})${filter ? `, filter: ${filter}` : ''}\n`)
  } catch (e) {
    if (e instanceof LiveCaptureFailure) fail(e.message, e.kind === 'internal' ? 1 : 2)
    throw e
  }
  capturing = true
  if (signals) host.stop().catch(() => undefined)
  let stopped: LiveStopped
  try {
    stopped = await host.whenStopped()
  } catch (e) {
    fail((e as Error).message, 1)
  }
  await write(stopped.summaryLine + '\n')
  const s = stopped.stats
  const written = opts.writeFile ? `, ${s.written} written to ${opts.writeFile}` : ''
  const lost = s.outputDropped ? `, ${s.outputDropped} messages not printed (output too slow)` : ''
  process.stderr.write(`gamewire: ${s.received} frames captured on ${device}, ${s.matched} messages${written}${lost}\n`)
  return 0
}

function devicesCommand(argv: string[]): number {
  const a = parseArgs(argv, [{ name: 'json' }], 0)
  const devices = listDevices()
  if (a.flags.has('json')) {
    process.stdout.write(JSON.stringify(devices, null, 2) + '\n')
    return 0
  }
  for (const d of devices) {
    const addrs = d.addresses.map((x) => x.addr).join(', ')
    const tags = [d.loopback && 'loopback', d.up && 'up', d.running && 'running'].filter(Boolean)
    process.stdout.write(`${d.name}${tags.length ? ` [${tags.join(', ')}]` : ''}\t${d.friendlyName}\t${addrs}\n`)
  }
  return 0
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  // A reader that stops early (`| head`) is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0)
  })
  try {
    switch (command) {
      case 'decode':
        return await decodeCommand(rest)
      case 'devices':
        return devicesCommand(rest)
      case 'stats':
        return await statsCommand(rest)
      case 'capture':
        return await captureCommand(rest)
      case 'serve':
        return await serveCommand(rest)
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE + '\n')
        return command === undefined ? 2 : 0
      default:
        fail(`unknown command '${command}' (commands: decode, stats, capture, devices, serve)`)
    }
  } catch (e) {
    if (e instanceof CliExit) {
      process.stderr.write(`gamewire: ${e.message}\n`)
      return e.code
    }
    if (e instanceof UsageError || e instanceof KeyFileError || e instanceof DecodeFailure || e instanceof CaptureUnavailable) {
      process.stderr.write(`gamewire: ${e.message}\n`)
      return 2
    }
    if (e instanceof FilterError) {
      process.stderr.write(`gamewire: filter: ${e.message}\n`)
      return 2
    }
    process.stderr.write(`gamewire: internal error: ${(e as Error).message}\n`)
    return 1
  }
}
