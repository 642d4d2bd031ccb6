// Counts the machine instructions a gamewire command runs, with valgrind's cachegrind, and splits them into
// where they go (V8's optimizing compiler, JIT code, inline caches, GC, …). Wall times on a shared machine
// move by 10–40 % from run to run; this count moves by 0.1–0.4 %, so a change of a few per cent in the
// decoders can be measured. Node runs with --single-threaded: the compiler and GC work on the main thread,
// so the count is deterministic and includes them (in normal runs they use other threads).
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { usage } from '../script-usage.mjs'

const args = usage(`usage: node test/bench/count-instructions.mjs CAPTURE
Runs \`gamewire stats --jobs 1 CAPTURE\` under valgrind's
cachegrind and prints the instructions it ran, in all and by where they went: V8's optimizing compiler
(TurboFan), baseline compilers, JIT code, inline-cache and other V8 builtins, GC, parsing, libc.
About 60x slower than a normal run: the 50,000-frame game capture takes about a minute.
Needs valgrind (apt-get install valgrind) and a built out/ (npm run build).
Environment: GAMEWIRE_ARGS, the command before CAPTURE instead of "stats --jobs 1" (e.g.
"decode --tree none -o /dev/null"); NODE_FLAGS, more flags for node (V8 flags to try).`)
if (args.length !== 1) {
  process.stderr.write('count-instructions: give one capture file (--help for usage)\n')
  process.exit(2)
}
const [capture] = args
const command = (process.env.GAMEWIRE_ARGS ?? 'stats --jobs 1').split(' ').filter(Boolean)
const bin = fileURLToPath(new URL('../../bin/gamewire.mjs', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'gamewire-cachegrind-'))
try {
  const out = join(dir, 'cachegrind.out')
  const run = spawnSync(
    'valgrind',
    [
      '--tool=cachegrind',
      '--cache-sim=no',
      `--cachegrind-out-file=${out}`,
      // V8 writes and runs its own machine code
      '--smc-check=all-non-file',
      process.execPath,
      '--single-threaded',
      ...(process.env.NODE_FLAGS ? process.env.NODE_FLAGS.split(' ') : []),
      bin,
      ...command,
      capture
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20 }
  )
  if (run.error) throw new Error(`valgrind could not run: ${run.error.message} (apt-get install valgrind)`)
  const total = /I\s+refs:\s+([\d,]+)/.exec(run.stderr)
  if (run.status !== 0 || !total) throw new Error(`valgrind ended with code ${run.status}:\n${run.stderr.slice(-2000)}`)
  const report = execFileSync('cg_annotate', ['--threshold=0', out], { encoding: 'utf8', maxBuffer: 256 << 20 })
  const parts = new Map()
  let sum = 0
  for (const line of report.slice(report.indexOf('file:function')).split('\n')) {
    const m = /^\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*)$/.exec(line)
    if (!m || m[2].includes('PROGRAM TOTALS')) continue
    const n = Number(m[1].replaceAll(',', ''))
    const part = partOf(m[2])
    parts.set(part, (parts.get(part) ?? 0) + n)
    sum += n
  }
  console.log(`${command.join(' ')} ${capture}: ${total[1]} instructions`)
  for (const [part, n] of [...parts].sort((a, b) => b[1] - a[1])) {
    console.log(`${((100 * n) / sum).toFixed(1).padStart(6)} %  ${(n / 1e9).toFixed(2).padStart(6)} G  ${part}`)
  }
} catch (e) {
  process.stderr.write(`count-instructions: ${e.message}\n`)
  process.exitCode = 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}

/** Where a function's instructions count: V8's C++ and builtins have symbols, JIT code has none. */
function partOf(fn) {
  if (fn.includes('compiler::')) return "V8's optimizing compiler (TurboFan)"
  if (/maglev|baseline::|Baseline/.test(fn)) return 'baseline compilers (Sparkplug)'
  if (fn.includes('???:???')) return 'JIT code (the decoders and the engine, compiled)'
  if (/Builtins_\w*IC/.test(fn)) return 'inline caches (property loads and stores; Megamorphic: many shapes)'
  if (fn.includes('Builtins_')) return 'other V8 builtins (Map, typed arrays, strings, arrays)'
  if (/Heap|Scaveng|MarkCompact|Marking|Sweep|Evacuat|heap::|Minor/.test(fn)) return 'garbage collection'
  if (/Parser|Scanner|interpreter::|Bytecode/.test(fn)) return 'parsing and bytecode'
  if (/malloc|free|mem(cpy|set|move)/.test(fn)) return 'libc memory'
  return 'other (V8 runtime, libuv, node)'
}
