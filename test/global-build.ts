// vitest globalSetup: the CLI, live-capture, session-worker and UI tests run the built out/, so the suite
// builds it once, before any test, whenever a source or the build config is newer than the build (or there
// is none). One rule for every test; no test builds on its own. `npm test` builds first, so out/ is fresh
// and this does nothing there.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const ROOT = join(import.meta.dirname, '..')
export const SOURCES = ['src-main', 'src-shared', 'src-renderer', 'bin', 'electron.vite.config.ts', 'package.json']

/** Every file under `p` (or `p` itself) with its mtime. */
function* files(p: string): Generator<[string, number]> {
  if (!existsSync(p)) return
  const st = statSync(p)
  if (!st.isDirectory()) {
    yield [p, st.mtimeMs]
    return
  }
  for (const e of readdirSync(p)) yield* files(join(p, e))
}

/** Why out/ must be rebuilt, or null when it is up to date. Its age is its oldest file's (a build rewrites all of out/). */
export function staleReason(root = ROOT): string | null {
  let built = Infinity
  let count = 0
  for (const [, t] of files(join(root, 'out'))) {
    built = Math.min(built, t)
    count++
  }
  if (!count) return 'out/ is missing'
  for (const s of SOURCES) {
    for (const [f, t] of files(join(root, s))) if (t > built) return `${relative(root, f)} is newer than out/`
  }
  return null
}

export default function setup(): void {
  const why = staleReason()
  if (!why) return
  process.stderr.write(`[global-build] ${why}: npm run build\n`)
  try {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 })
  } catch (e) {
    const err = e as { stdout?: Buffer; stderr?: Buffer }
    throw new Error(`npm run build failed before the tests:\n${String(err.stderr ?? '').slice(-4000)}${String(err.stdout ?? '').slice(-4000)}`)
  }
  const still = staleReason()
  if (still) throw new Error(`out/ is still stale after npm run build (${still})`)
}
