// `gamewire` command line: decode | stats | capture | devices | serve | query. Errors are one line on stderr and an exit
// code (2 for bad arguments or unreadable input), never a stack trace.

import {
  accessSync,
  constants,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  type WriteStream
} from 'node:fs'
import { basename } from 'node:path'
import { compileFilter, FilterError } from '../../src-shared/filter'
import { KeyFileError, parseKeyFile } from '../../src-shared/keys/keyfile'
import { KeyStore } from '../../src-shared/keys/store'
import { parseSchemaPack, SchemaError } from '../../src-shared/schema/validate'
import { registerSchemaFields } from '../../src-shared/schema/set'
import type { SchemaPack } from '../../src-shared/schema/types'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import { TREE_MODES, type TreeMode } from '../../src-shared/export/json'
import { parseArgs, one, positiveNumber, UsageError, wantsHelp, type OptionSpec, type ParsedArgs } from './args'
import { appRoot } from '../host/paths'
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
import { statsJson, statsText } from './stats-output'
import { chunked, jsonWithArray } from './output-pieces'
import { captureRooms } from '../host/capture-rooms'
import { roomsText } from '../../src-shared/analysis/photon-rooms'
import { CaptureFormatError } from '../../src-shared/capture/types'
import { diffFilesStream } from '../host/capture-diff'
import { diffText } from '../../src-shared/analysis/diff'
import { isIgnorePattern } from '../../src-shared/analysis/diff/fields'
import { serveCommand } from '../serve/command'
// The SQL modules load DuckDB, a native module: imported when a command needs them, not at every start.
import type { LoadOptions } from '../sql/load'
import type { QueryFormat } from '../sql/query'
import { SqlError } from '../sql/errors'
import { describeTables, PARTITION_KEYS, type PartitionKey } from '../sql/tables'

const PRESET_LIST = [...Object.keys(PRESET_GROUPS), ...CAPTURE_PRESETS.map((p) => (p.userPorts ? `${p.id}:PORT` : p.id))].join(', ')

class CliExit extends Error {
  constructor(
    readonly code: number,
    message: string
  ) {
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

/** --jobs N: a whole number of decoding workers, 1 to 64; absent: one per core but one. */
function jobsOption(a: ParsedArgs): number {
  const text = one(a, 'jobs')
  if (text === undefined) return defaultJobs()
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 64) fail(`--jobs must be a whole number from 1 to 64, got '${text}'`)
  return Number(text)
}

/**
 * --schema FILE (repeatable): schema packs, each checked; a pack that does not validate is refused with its
 * JSON path and why. Their fields are made known here so a --filter naming them checks.
 */
function schemaOption(a: ParsedArgs): SchemaPack[] | undefined {
  const files = a.options.get('schema')
  if (!files?.length) return undefined
  const packs = files.map((file) => {
    readableFile(file, 'schema pack')
    try {
      return parseSchemaPack(readFileSync(file, 'utf8'))
    } catch (e) {
      if (e instanceof SchemaError) fail(`schema pack ${file} refused: ${e.message}`)
      throw e
    }
  })
  registerSchemaFields(packs)
  return packs
}

async function decodeCommand(a: ParsedArgs): Promise<number> {
  const file = a.positional[0]
  if (!file) fail('decode needs a capture file: gamewire decode CAPTURE')
  const format = one(a, 'format') ?? 'json'
  if (format === 'parquet') return decodeParquet(a)
  if (a.positional.length > 1) throw new UsageError(`unexpected argument '${a.positional[1]}' (several captures are for --format parquet)`, true)
  if (a.options.has('partition-by')) fail('--partition-by is for --format parquet')
  readableFile(file, 'capture file')
  if (format !== 'json' && format !== 'ndjson') fail(`--format must be json, ndjson or parquet, got '${format}'`)
  const job: DecodeJob = {
    file,
    format,
    includeKeys: a.flags.has('include-keys'),
    includeSourceBytes: a.flags.has('include-bytes'),
    tree: treeOption(a),
    jobs: jobsOption(a)
  }
  if (a.flags.has('layers')) job.layers = true
  job.schemas = schemaOption(a)
  job.keylog = keylogOption(a)
  job.filter = filterOption(a)
  job.decodeAs = decodeAsOption(a)

  const outPath = one(a, 'output')
  let out: WriteStream | NodeJS.WriteStream = process.stdout
  // A regular file is written beside itself and renamed over OUT only when the decode succeeds, so a
  // failed run leaves an existing OUT as it was. Devices and pipes (/dev/null, a FIFO) are written directly.
  const tempPath = outPath && !isSpecialFile(outPath) ? `${outPath}.${process.pid}.gamewire-tmp` : undefined
  if (outPath) {
    out = createWriteStream(tempPath ?? outPath)
    await new Promise<void>((resolve, reject) => {
      ;(out as WriteStream).once('open', () => resolve())
      ;(out as WriteStream).once('error', (e: NodeJS.ErrnoException) => reject(new CliExit(2, `cannot write ${outPath} (${e.code})`)))
    })
  }
  let succeeded = false
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
    succeeded = true
  } finally {
    if (out !== process.stdout) await new Promise<void>((resolve) => (out as WriteStream).end(() => resolve()))
    if (tempPath) {
      if (succeeded) renameSync(tempPath, outPath!)
      else rmSync(tempPath, { force: true })
    }
  }
  return 0
}

/** Whether `path` exists and is not a regular file (a device or FIFO cannot be replaced by a rename). */
function isSpecialFile(path: string): boolean {
  try {
    return !statSync(path).isFile()
  } catch {
    return false
  }
}

/** --filter EXPR, compiled once here so a bad filter fails with its position (FilterError) before any work. */
function filterOption(a: ParsedArgs): string | undefined {
  const filter = one(a, 'filter')
  if (!filter) return undefined
  compileFilter(filter)
  return filter
}

/** --decode-as rules (repeatable), checked. */
function decodeAsOption(a: ParsedArgs): DecodeAsRule[] | undefined {
  const rules = a.options.get('decode-as')
  return rules ? parseDecodeAs(rules) : undefined
}

/** The text of --keylog FILE, checked (a bad line throws KeyFileError naming it; warnings go to stderr). */
function keylogOption(a: ParsedArgs): string | undefined {
  const keylog = one(a, 'keylog')
  if (!keylog) return undefined
  readableFile(keylog, 'key file')
  const text = readFileSync(keylog, 'utf8')
  for (const w of parseKeyFile(text).warnings) process.stderr.write(`gamewire: warning: ${w}\n`)
  return text
}

/** The keys of --keylog FILE (its warnings on stderr), or undefined without it. */
function keysOption(a: ParsedArgs): KeyStore | undefined {
  const text = keylogOption(a)
  if (text === undefined) return undefined
  const keys = new KeyStore()
  keys.addAll(parseKeyFile(text).keys)
  return keys
}

async function statsCommand(a: ParsedArgs): Promise<number> {
  const file = a.positional[0]
  if (!file) fail('stats needs a capture file: gamewire stats CAPTURE')
  readableFile(file, 'capture file')
  const keys = keysOption(a)
  const showProgress = process.stderr.isTTY && !a.flags.has('quiet')
  const ops = a.flags.has('ops')
  const s = await captureStats(file, {
    keys,
    schemas: schemaOption(a),
    jobs: jobsOption(a),
    ops,
    decodeAs: decodeAsOption(a),
    progress: showProgress
      ? (p) => process.stderr.write(`\r\x1b[Kreading ${p.total ? Math.floor((100 * p.bytes) / p.total) : 0}%  ${p.messages} messages`)
      : undefined
  })
  if (showProgress) process.stderr.write('\r\x1b[K')
  const write = writeWithBackpressure(process.stdout)
  for (const chunk of chunked(a.flags.has('json') ? statsJson(s) : statsText(s))) await write(chunk)
  return 0
}

/** The diff's progress line: how much of each capture is read, "again" in the second read for the fields that differ. */
function diffProgress(fileA: string, fileB: string): { a: (done: number, total: number) => void; b: (done: number, total: number) => void } {
  const sides = [fileA, fileB].map((file) => ({ name: basename(file), percent: 0, last: 0, again: false }))
  const side = (s: (typeof sides)[number]) => (done: number, total: number) => {
    if (done < s.last) s.again = true
    s.last = done
    s.percent = total ? Math.floor((100 * done) / total) : 0
    process.stderr.write(`\r\x1b[Kreading ${sides.map((x) => `${x.name} ${x.again ? 'again ' : ''}${x.percent}%`).join('  ')}`)
  }
  return { a: side(sides[0]), b: side(sides[1]) }
}

async function diffCommand(a: ParsedArgs): Promise<number> {
  const [fileA, fileB] = a.positional
  if (!fileA || !fileB) fail('diff needs two capture files: gamewire diff A B')
  readableFile(fileA, 'capture file')
  readableFile(fileB, 'capture file')
  const keys = keysOption(a)
  const ignore = a.options.get('ignore') ?? []
  for (const p of ignore) if (!isIgnorePattern(p)) fail(`--ignore takes a field path such as parameters.221 or _id, got '${p}'`)
  const progress = process.stderr.isTTY && !a.flags.has('quiet') ? diffProgress(fileA, fileB) : undefined
  const report = await diffFilesStream(fileA, fileB, {
    keysA: keys,
    keysB: keys,
    schemas: schemaOption(a),
    ignore,
    noDefaults: a.flags.has('no-default-ignores'),
    thread: true,
    progressA: progress?.a,
    progressB: progress?.b
  })
  if (progress) process.stderr.write('\r\x1b[K')
  const write = writeWithBackpressure(process.stdout)
  const pieces = a.flags.has('json') ? jsonWithArray(report.head, 'conversations', report.conversations, report.tail) : diffText(report)
  for (const chunk of chunked(pieces)) await write(chunk)
  return 0
}

async function roomsCommand(a: ParsedArgs): Promise<number> {
  const file = a.positional[0]
  if (!file) fail('rooms needs a capture file: gamewire rooms CAPTURE')
  readableFile(file, 'capture file')
  const keys = keysOption(a)
  let result: Awaited<ReturnType<typeof captureRooms>>
  try {
    result = await captureRooms(file, { keys, schemas: schemaOption(a), decodeAs: decodeAsOption(a) })
  } catch (e) {
    if (e instanceof CaptureFormatError) fail(e.message)
    throw e
  }
  for (const w of result.warnings) if (w.startsWith('capture truncated')) process.stderr.write(`gamewire: warning: ${w}\n`)
  process.stdout.write(a.flags.has('json') ? JSON.stringify(result.doc, null, 2) + '\n' : roomsText(result.doc))
  return 0
}

function integerOption(text: string | undefined, name: string, max: number): number | undefined {
  const n = positiveNumber(text, name)
  if (n !== undefined && (!Number.isInteger(n) || n > max)) fail(`--${name} must be a whole number up to ${max}, got '${text}'`)
  return n
}

async function captureCommand(a: ParsedArgs): Promise<number> {
  const quiet = a.flags.has('quiet')
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
  opts.keylog = keylogOption(a)
  opts.schemas = schemaOption(a)
  opts.displayFilter = filterOption(a)
  opts.decodeAs = decodeAsOption(a)

  const write = writeWithBackpressure(process.stdout)
  const host = new LiveCaptureHost({
    // The messages, then (in the last batches) the summary line's pieces.
    onBatch: async (b) => {
      if (b.ndjson) await write(b.ndjson)
      if (b.summary) await write(b.summary)
    },
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
    if (!quiet) process.stderr.write(`gamewire: capturing on ${device} (${started.linkTypeName})${filter ? `, filter: ${filter}` : ''}\n`)
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
  const s = stopped.stats
  const written = opts.writeFile ? `, ${s.written} written to ${opts.writeFile}` : ''
  const lost = s.outputDropped ? `, ${s.outputDropped} messages not printed (output too slow)` : ''
  if (!quiet) process.stderr.write(`gamewire: ${s.received} frames captured on ${device}, ${s.matched} messages${written}${lost}\n`)
  return 0
}

function devicesCommand(a: ParsedArgs): number {
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

/** --keylog, --filter and --decode-as, checked, for decoding captures into the SQL tables. */
function sqlLoadOptions(a: ParsedArgs): LoadOptions {
  const opts: LoadOptions = { schemas: schemaOption(a) }
  opts.keylog = keylogOption(a)
  opts.filter = filterOption(a)
  opts.decodeAs = decodeAsOption(a)
  if (a.flags.has('layers')) opts.layers = true
  if (process.stderr.isTTY && !a.flags.has('quiet')) {
    opts.progress = (p) => process.stderr.write(`\r\x1b[K${p.capture} ${p.total ? Math.floor((100 * p.bytes) / p.total) : 0}%  ${p.messages} messages`)
  }
  return opts
}

function warnTruncated(warnings: string[]): void {
  for (const w of warnings) if (w.startsWith('capture truncated')) process.stderr.write(`gamewire: warning: ${w}\n`)
}

/**
 * decode --format parquet: the captures decoded into a scratch DuckDB database inside a folder beside DIR,
 * copied out as Parquet there, and the folder renamed to DIR only when everything succeeded.
 */
async function decodeParquet(a: ParsedArgs): Promise<number> {
  for (const o of ['tree', 'jobs']) if (a.options.has(o)) fail(`--${o} does not apply to --format parquet`)
  for (const f of ['include-keys', 'include-bytes']) if (a.flags.has(f)) fail(`--${f} does not apply to --format parquet`)
  for (const file of a.positional) readableFile(file, 'capture file')
  const partition = one(a, 'partition-by')
  if (partition !== undefined && !(PARTITION_KEYS as readonly string[]).includes(partition))
    fail(`--partition-by must be ${PARTITION_KEYS.join(', ')}, got '${partition}'`)
  const outDir = one(a, 'output')?.replace(/(.)\/+$/, '$1')
  if (!outDir) fail('--format parquet writes a directory: gamewire decode CAPTURE... --format parquet -o DIR')
  if (existsSync(outDir)) {
    if (!statSync(outDir).isDirectory()) fail(`${outDir} exists and is not a directory`)
    if (readdirSync(outDir).length > 0) fail(`${outDir} is not empty: give a new or empty directory`)
  }
  const opts = sqlLoadOptions(a)
  const [{ loadCaptures }, { writeParquet }, { ScratchDb }] = await Promise.all([import('../sql/load'), import('../sql/parquet'), import('../sql/query')])
  const temp = `${outDir}.${process.pid}.gamewire-tmp`
  let done = false
  try {
    try {
      mkdirSync(temp, { recursive: true })
    } catch (e) {
      fail(`cannot write ${outDir} (${(e as NodeJS.ErrnoException).code})`)
    }
    const db = await ScratchDb.open(temp)
    try {
      const loaded = await loadCaptures(db.connection, a.positional, opts)
      if (opts.progress)
        process.stderr.write(`\r\x1b[K${loaded.map((l) => `${l.capture}: ${l.frames} frames, ${l.messages} messages, ${l.errors} with errors`).join('\n')}\n`)
      for (const l of loaded) warnTruncated(l.warnings)
      await writeParquet(db.connection, temp, partition as PartitionKey | undefined).catch((e) => {
        throw new SqlError(`writing Parquet: ${(e as Error).message.split('\n')[0]}`)
      })
    } finally {
      db.close()
    }
    if (existsSync(outDir)) rmdirSync(outDir)
    renameSync(temp, outDir)
    done = true
  } finally {
    if (!done) rmSync(temp, { recursive: true, force: true })
  }
  return 0
}

async function queryCommand(a: ParsedArgs): Promise<number> {
  if (a.flags.has('tables')) {
    process.stdout.write(describeTables())
    return 0
  }
  const sql = one(a, 'sql')
  if (a.positional.length === 0) fail('query needs a capture file or a Parquet directory: gamewire query SOURCE... --sql "SELECT ..."')
  if (!sql?.trim()) fail('query needs --sql "SELECT ..." (gamewire query --tables lists the tables)')
  const format = one(a, 'format') ?? 'table'
  const { checkSql, openSources, QUERY_FORMATS, readsFields, ResultWriter, runSql, ScratchDb, sourceKind } = await import('../sql/query')
  if (!(QUERY_FORMATS as readonly string[]).includes(format)) fail(`--format must be ${QUERY_FORMATS.join(', ')}, got '${format}'`)
  if (sourceKind(a.positional) === 'capture') for (const file of a.positional) readableFile(file, 'capture file')
  const opts = sqlLoadOptions(a)
  const db = await ScratchDb.open()
  try {
    await checkSql(db.connection, sql)
    const loaded = await openSources(db, a.positional, { ...opts, fields: readsFields(sql) })
    if (opts.progress) process.stderr.write('\r\x1b[K')
    for (const l of loaded) warnTruncated(l.warnings)
    const writer = new ResultWriter(format as QueryFormat, writeWithBackpressure(process.stdout))
    await writer.end(await runSql(db.connection, sql, (columns, rows) => writer.rows(columns, rows)))
  } finally {
    db.close()
  }
  return 0
}

/** An option as the command line takes it, with what --help says about it. */
interface OptionDoc extends OptionSpec {
  /** The value's placeholder in the help, e.g. FILE. */
  arg?: string
  help: string
}

const KEYLOG: OptionDoc = { name: 'keylog', value: true, arg: 'FILE', help: 'decrypt with the keys in this key file' }
const FILTER: OptionDoc = { name: 'filter', short: 'Y', value: true, arg: 'EXPR', help: 'display filter: only the messages it matches' }
const TREE: OptionDoc = { name: 'tree', value: true, arg: 'full|none', help: "'none' leaves each message's field tree out (faster, smaller)" }
const DECODE_AS: OptionDoc = {
  name: 'decode-as',
  short: 'd',
  value: true,
  repeat: true,
  arg: 'CONV=PROTOCOL',
  help: "force a conversation's protocol (CONV: a conversation id or an ip:port of either side; PROTOCOL: a protocol id, or 'unknown'); repeatable"
}
/** Shared by every command that decodes: the game's own names and payload layouts (docs/schema-packs.md). */
const SCHEMA: OptionDoc = {
  name: 'schema',
  value: true,
  repeat: true,
  arg: 'FILE',
  help: "a schema pack (gamewire-schema/1 JSON) naming a game's codes and laying out its payloads; repeatable"
}
const INCLUDE_BYTES: OptionDoc = { name: 'include-bytes', help: "add each data source's bytes as hex" }
const JOBS: OptionDoc = {
  name: 'jobs',
  short: 'j',
  value: true,
  arg: 'N',
  help: 'decode in N worker threads, 1 to 64 (default: cores - 1, at least 1); the output is the same for any N'
}
const PROGRESS_QUIET: OptionDoc = { name: 'quiet', short: 'q', help: 'no progress line (it is shown on stderr only when stderr is a terminal)' }
const JSON_OUT: OptionDoc = { name: 'json', help: 'write JSON' }
const HELP: OptionDoc = { name: 'help', short: 'h', help: 'show this help' }

interface Command {
  name: string
  /** The usage line after `gamewire NAME`. */
  synopsis: string
  /** For the command list of `gamewire --help`. */
  brief: string
  summary: string
  positional: number
  options: OptionDoc[]
  /** Rewrites a command line before it is parsed (a spelling kept for compatibility). */
  rewrite?(argv: string[]): string[]
  run(a: ParsedArgs): Promise<number> | number
}

const PRESET_NOTE = `Presets: ${PRESET_LIST}.`

const COMMANDS: Command[] = [
  {
    name: 'decode',
    brief: 'Decode a capture file to the decoded-JSON document',
    synopsis:
      'CAPTURE... [--keylog FILE] [--schema FILE]... [--filter EXPR] [--format json|ndjson|parquet] [-o OUT] [--tree full|none] [--decode-as CONV=PROTOCOL]... [--include-keys] [--include-bytes] [--layers] [--partition-by capture|protocol|date] [--jobs N] [-q]',
    summary:
      'Decode a .pcap or .pcapng file to the decoded-JSON document (stdout, or OUT). With --format parquet: one or more captures to Apache Parquet tables (messages, fields, conversations) in the directory OUT (gamewire query --tables lists their columns).',
    positional: Number.MAX_SAFE_INTEGER,
    options: [
      KEYLOG,
      SCHEMA,
      FILTER,
      {
        name: 'format',
        short: 'T',
        value: true,
        arg: 'json|ndjson|parquet',
        help: 'one JSON document (default), one message a line then a summary line, or Parquet tables (needs -o DIR)'
      },
      { name: 'output', short: 'o', value: true, arg: 'OUT', help: 'write to this file instead of stdout (for parquet: a new or empty directory)' },
      {
        name: 'partition-by',
        value: true,
        arg: 'capture|protocol|date',
        help: 'parquet: Hive-style partitioned directories (KEY=VALUE/) per capture, protocol or UTC day'
      },
      TREE,
      DECODE_AS,
      { name: 'include-keys', help: 'write the keys from --keylog into the export' },
      INCLUDE_BYTES,
      { name: 'layers', help: "put each message's frames first in its tree (frame, link, IP, UDP/TCP fields; Frame N sources)" },
      JOBS,
      PROGRESS_QUIET
    ],
    run: decodeCommand
  },
  {
    name: 'stats',
    brief: 'Summarise a capture: frames, messages per protocol, conversations',
    synopsis: 'CAPTURE [--keylog FILE] [--schema FILE]... [--decode-as CONV=PROTOCOL]... [--ops] [--json] [--jobs N] [-q]',
    summary:
      'Summarise a capture: frames, messages per protocol, conversations (the tree-less index pass); with --ops, requests, responses, unanswered requests and latency per operation.',
    positional: 1,
    options: [
      KEYLOG,
      SCHEMA,
      DECODE_AS,
      { name: 'ops', help: 'per operation, overall and per conversation: requests, responses, unanswered, latency p50/p95/max in ms (decodes in one thread)' },
      JSON_OUT,
      JOBS,
      PROGRESS_QUIET
    ],
    run: statsCommand
  },
  {
    name: 'diff',
    brief: 'Compare two captures of the same scenario, message by message and field by field',
    synopsis: 'A B [--ignore FIELD]... [--no-default-ignores] [--keylog FILE] [--schema FILE]... [--json] [-q]',
    summary:
      'Compare two captures of the same scenario (e.g. a reference server and a reimplementation): conversations paired by protocol and server port (else order), messages aligned per direction by name, then what is only in A, only in B, and the fields that differ in aligned messages, skipping volatile ones (ids, tokens, sequence numbers, ACK and timing fields; see the README). --json writes a gamewire-diff/1 document.',
    positional: 2,
    options: [
      {
        name: 'ignore',
        short: 'i',
        value: true,
        repeat: true,
        arg: 'FIELD',
        help: "a field path not to compare (e.g. payload.RoomId, parameters.249, _id; a leading / anchors it at the value's root, * is any one segment); repeatable"
      },
      { name: 'no-default-ignores', help: 'compare the fields skipped by default too' },
      { name: 'keylog', value: true, arg: 'FILE', help: 'decrypt both captures with the keys in this key file' },
      SCHEMA,
      JSON_OUT,
      PROGRESS_QUIET
    ],
    run: diffCommand
  },
  {
    name: 'rooms',
    brief: 'Photon rooms: actors, master, and the cached events each joiner got vs what Photon replays',
    synopsis: 'CAPTURE [--keylog FILE] [--schema FILE]... [--decode-as CONV=PROTOCOL]... [--json]',
    summary:
      "Rebuild each Photon room from the capture's game-server conversations (actors, master client, properties, the event cache) and compare what every joiner was replayed with what Photon replays, naming each divergence by its rule. --json writes the gamewire-rooms/1 document.",
    positional: 1,
    options: [KEYLOG, SCHEMA, DECODE_AS, { name: 'json', help: 'write the gamewire-rooms/1 JSON document' }],
    run: roomsCommand
  },
  {
    name: 'capture',
    brief: 'Live capture through libpcap, streaming decoded messages as NDJSON',
    synopsis:
      '-i IFACE [-f BPF] [--preset NAME]... [--duration SECONDS] [--count N] [-w FILE.pcapng] [--keylog FILE] [--schema FILE]... [--filter EXPR] [--format ndjson] [--tree full|none] [--decode-as CONV=PROTOCOL]... [--include-bytes] [--snaplen N] [--buffer-size MiB] [--no-promisc] [-q]',
    summary: `Live capture through libpcap, streaming decoded messages as NDJSON until the duration or count is reached or SIGINT/SIGTERM, then the summary line. ${PRESET_NOTE}`,
    positional: 0,
    options: [
      { name: 'interface', short: 'i', value: true, arg: 'IFACE', help: 'the device to capture on (gamewire devices lists them)' },
      { name: 'capture-filter', short: 'f', value: true, arg: 'BPF', help: 'libpcap capture filter' },
      { name: 'preset', value: true, repeat: true, arg: 'NAME', help: 'a capture filter for a protocol or game; repeatable' },
      { name: 'duration', short: 'a', value: true, arg: 'SECONDS', help: 'stop after this long' },
      { name: 'count', short: 'c', value: true, arg: 'N', help: 'stop after N frames' },
      { name: 'write', short: 'w', value: true, arg: 'FILE.pcapng', help: 'save the frames as they arrive' },
      KEYLOG,
      SCHEMA,
      FILTER,
      { name: 'format', short: 'T', value: true, arg: 'ndjson', help: 'ndjson only (a live capture streams)' },
      TREE,
      DECODE_AS,
      INCLUDE_BYTES,
      { name: 'snaplen', short: 's', value: true, arg: 'N', help: 'bytes kept of each frame' },
      { name: 'buffer-size', short: 'B', value: true, arg: 'MiB', help: "libpcap's buffer size" },
      { name: 'no-promisc', short: 'p', help: 'do not put the device in promiscuous mode' },
      { name: 'quiet', short: 'q', help: 'no status lines on stderr (warnings and errors are still written)' }
    ],
    run: captureCommand
  },
  {
    name: 'devices',
    brief: 'List libpcap capture devices',
    synopsis: '[--json]',
    summary: 'List libpcap capture devices.',
    positional: 0,
    options: [JSON_OUT],
    run: devicesCommand
  },
  {
    name: 'serve',
    brief: 'Serve the inspector UI to a browser',
    synopsis: '[CAPTURE] [--port N] [--host H] [--jobs N]',
    summary: "Serve the inspector UI to a browser (keys are added in the UI's Keys panel and persist in ~/.config/gamewire).",
    positional: 1,
    options: [
      { name: 'port', short: 'p', value: true, arg: 'N', help: 'port to listen on (default 7790; 0 picks a free one)' },
      { name: 'host', value: true, arg: 'H', help: 'address to bind (default 127.0.0.1)' },
      JOBS
    ],
    run: (a) => serveCommand(a, one(a, 'jobs') === undefined ? undefined : jobsOption(a))
  },
  {
    name: 'query',
    brief: 'SQL over decoded messages (captures or Parquet directories), run by DuckDB',
    synopsis: 'SOURCE... --sql SQL [--format table|csv|json] [--keylog FILE] [--filter EXPR] [--decode-as CONV=PROTOCOL]... [--schema FILE]... [-q] | --tables',
    summary:
      'Run SQL over the tables messages, fields and conversations (see --tables) with an embedded DuckDB. A SOURCE is a capture file (decoded on the fly) or a directory written by decode --format parquet (partitioned or not); give several of one kind.',
    positional: Number.MAX_SAFE_INTEGER,
    options: [
      { name: 'sql', value: true, arg: 'SQL', help: 'the statement(s) to run; the last one is printed' },
      { name: 'format', short: 'T', value: true, arg: 'table|csv|json', help: 'an aligned table (default), CSV with a header, or a JSON array of row objects' },
      KEYLOG,
      { ...FILTER, help: 'captures: only the messages this display filter matches' },
      DECODE_AS,
      SCHEMA,
      { name: 'tables', help: "print the tables' columns and types, and exit" },
      { name: 'quiet', short: 'q', help: 'no progress line while captures are decoded' }
    ],
    // `gamewire query --schema` alone lists the tables, as the issue spells it; --schema FILE loads a pack.
    rewrite: (argv) => (argv.length === 1 && argv[0] === '--schema' ? ['--tables'] : argv),
    run: queryCommand
  }
]

/** `text` in lines of at most `width` columns, the later ones indented by `indent` spaces. */
function wrap(text: string, width: number, indent: number): string {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  return [...lines, line].join(`\n${' '.repeat(indent)}`)
}

const WIDTH = 100

function commandUsage(c: Command): string {
  const head = `usage: gamewire ${c.name} `
  // Continuation lines line up under the first argument; a bracketed option is never split.
  const parts = c.synopsis.match(/\[[^\]]*\](?:\.\.\.)?|\S+/g) ?? []
  const lines: string[] = []
  let line = head.trimEnd()
  for (const part of parts) {
    if (line.length + 1 + part.length > WIDTH && line.trim() !== head.trim()) {
      lines.push(line)
      line = ' '.repeat(head.length - 1)
    }
    line += ` ${part}`
  }
  return [...lines, line].join('\n')
}

function commandHelp(c: Command): string {
  const opts = [...c.options, HELP].map((o) => {
    const names = `${o.short ? `-${o.short}, ` : '    '}--${o.name}${o.arg ? ` ${o.arg}` : ''}`
    return `  ${names.padEnd(32)} ${wrap(o.help, WIDTH - 35, 35)}`
  })
  return `${commandUsage(c)}\n\n${wrap(c.summary, WIDTH, 0)}\n\noptions:\n${opts.join('\n')}\n`
}

const GENERAL_USAGE = `usage: gamewire <command> [options]
       gamewire <command> --help
       gamewire --version

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(9)} ${c.brief}`).join('\n')}

\`gamewire <command> --help\` (or \`gamewire help <command>\`) lists a command's arguments and options.
`

function version(): string {
  const pkg = JSON.parse(readFileSync(`${appRoot()}/package.json`, 'utf8')) as { version?: string }
  return `gamewire ${pkg.version ?? 'unknown'}`
}

async function runCommand(c: Command, given: string[]): Promise<number> {
  const argv = c.rewrite ? c.rewrite(given) : given
  const specs = [...c.options, HELP]
  if (wantsHelp(argv, specs)) {
    process.stdout.write(commandHelp(c))
    return 0
  }
  try {
    return await c.run(parseArgs(argv, specs, c.positional))
  } catch (e) {
    // The command line's shape was wrong: the mistake, then what the command takes.
    if (e instanceof UsageError && e.showUsage) throw new CliExit(2, `${e.message}\n${commandUsage(c)}`)
    throw e
  }
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  // A reader that stops early (`| head`) is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0)
  })
  try {
    const cmd = COMMANDS.find((c) => c.name === command)
    if (cmd) return await runCommand(cmd, rest)
    switch (command) {
      case '--version':
      case '-V':
        process.stdout.write(version() + '\n')
        return 0
      case 'help':
      case '--help':
      case '-h': {
        // `gamewire help decode` is `gamewire decode --help`.
        const topic = command === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined
        if (command === 'help' && rest[0] !== undefined && !topic) fail(`unknown command '${rest[0]}' (commands: ${COMMANDS.map((c) => c.name).join(', ')})`)
        process.stdout.write(topic ? commandHelp(topic) : GENERAL_USAGE)
        return 0
      }
      case undefined:
        process.stderr.write(GENERAL_USAGE)
        return 2
      default:
        if (command.startsWith('-')) fail(`unknown option ${command}\n${GENERAL_USAGE.split('\n\n')[0]}`)
        fail(`unknown command '${command}' (commands: ${COMMANDS.map((c) => c.name).join(', ')})`)
    }
  } catch (e) {
    if (e instanceof CliExit) {
      process.stderr.write(`gamewire: ${e.message}\n`)
      return e.code
    }
    if (
      e instanceof UsageError ||
      e instanceof KeyFileError ||
      e instanceof DecodeFailure ||
      e instanceof CaptureUnavailable ||
      e instanceof SqlError ||
      e instanceof CaptureFormatError
    ) {
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
