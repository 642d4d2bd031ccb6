// Argument checking shared by every runnable script under test/ (test/unit/scripts/help.test.ts checks
// that each one calls it first). Without it the scripts took their first argument as an output path:
// `make-bench-capture.mjs --help` wrote a 51 MB capture named `--help`. So `--help`/`-h` prints the usage
// and exits before any work, and an unknown flag is refused instead of becoming a file name.
import { isMainThread } from 'node:worker_threads'

/**
 * `--help` or `-h`: prints `text` (which starts `usage: node test/...`) to stdout and exits 0. An argument
 * starting with `-` that is not one of `options` (a negative number is not a flag) is refused with
 * `unknown option X` and the usage on stderr, exit 2. Returns the arguments (process.argv after the script).
 * Checks nothing in a worker thread: a worker's process.argv is a copy of its parent's, not its own.
 */
export function usage(text, { options = [] } = {}) {
  if (!isMainThread) return []
  const args = process.argv.slice(2)
  const out = text.endsWith('\n') ? text : `${text}\n`
  if (args.some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(out)
    process.exit(0)
  }
  const unknown = args.find((a) => a.startsWith('-') && !options.includes(a) && !Number.isFinite(Number(a)))
  if (unknown !== undefined) {
    process.stderr.write(`unknown option ${unknown}\n${out}`)
    process.exit(2)
  }
  return args
}
