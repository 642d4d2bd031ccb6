// Every runnable script under test/ answers --help with its usage and refuses unknown flags, before doing
// any work: `make-bench-capture.mjs --help` used to write a 51 MB capture named `--help`. The scripts are
// found, not listed, so a new script that does not call test/script-usage.mjs fails here without being run.
import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = join(__dirname, '../../..')
const USAGE_MODULE = join(ROOT, 'test/script-usage.mjs')
// Also imported as a library (by tests), and run as a script behind its own main guard.
const DUAL = join(ROOT, 'test/bench/make-conversations-capture.mjs')

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue
    const p = join(dir, e.name)
    if (e.isDirectory()) yield* walk(p)
    else yield p
  }
}

/** The relative module specifiers `src` imports (static, re-export, side-effect and dynamic). */
function specifiers(src: string): string[] {
  const out: string[] = []
  for (const re of [
    /(?:^|[\s;])(?:import|export)\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /(?:^|[\s;])import\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g
  ]) {
    for (const m of src.matchAll(re)) if (m[1].startsWith('.')) out.push(m[1])
  }
  return out
}

const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/
const imported = new Set<string>()
for (const top of ['test', 'src-main', 'src-shared']) {
  for (const f of walk(join(ROOT, top))) {
    if (!SOURCE.test(f)) continue
    for (const s of specifiers(readFileSync(f, 'utf8'))) imported.add(resolve(dirname(f), s))
  }
}
const scripts = [...walk(join(ROOT, 'test'))].filter((f) => f.endsWith('.mjs') && (!imported.has(f) || f === DUAL)).sort()
const rel = (f: string) => relative(ROOT, f)

/** What follows the leading comments and import statements: the first statement of the module body. */
function body(src: string): string {
  let rest = src.replace(/^#!.*\n/, '')
  for (;;) {
    const before = rest
    rest = rest
      .replace(/^\s+/, '')
      .replace(/^\/\/.*(?:\n|$)/, '')
      .replace(/^\/\*[\s\S]*?\*\//, '')
      .replace(/^import\s[^'"`;]*?from\s*['"][^'"]+['"];?/, '')
      .replace(/^import\s*['"][^'"]+['"];?/, '')
    if (rest === before) return rest
  }
}

const CALLS_USAGE = /^(?:(?:const|let)\s[^=]+=\s*)?usage\(/

const SKIP = new Set(['.git', 'node_modules', 'out', 'test/artifacts'])
// Every path in the repo, directories too (git does not show an empty .bench/), and git's view of them (a
// committed file rewritten), without what the build and the other test files legitimately write meanwhile.
function repoState(): { paths: Set<string>; git: string } {
  const paths = new Set<string>()
  const visit = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const p = dir ? `${dir}/${e.name}` : e.name
      if (SKIP.has(p)) continue
      paths.add(p)
      if (e.isDirectory()) visit(p)
    }
  }
  visit('')
  const git = execFileSync('git', ['status', '--porcelain', '--ignored', '--untracked-files=all', '--', '.', ':!out', ':!node_modules', ':!test/artifacts'], {
    cwd: ROOT,
    encoding: 'utf8'
  })
  return { paths, git }
}
function expectUnchanged(before: ReturnType<typeof repoState>) {
  const after = repoState()
  expect(
    [...after.paths].filter((p) => !before.paths.has(p)),
    'paths created in the repo'
  ).toEqual([])
  expect(after.git).toBe(before.git)
}

type Run = { code: number | null; stdout: string; stderr: string }
function run(file: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [file, ...args], { cwd, timeout: 20_000, encoding: 'utf8', maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0
      done({ code, stdout, stderr: err?.killed ? `${stderr}\n(killed after 20 s)` : stderr })
    })
  })
}

/** Runs `jobs` at most `width` at a time (two shared cores; several scripts load Vite). */
async function pool<T, R>(items: T[], width: number, job: (t: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++
        results[i] = await job(items[i])
      }
    })
  )
  return results
}

const temps: string[] = []
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'gw-help-test-'))
  temps.push(d)
  return d
}
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true })
})

describe('scripts under test/', () => {
  it('finds the entry points, not the libraries they import', () => {
    const found = scripts.map(rel)
    // The scripts that existed when this test was written; new ones join the list by themselves.
    expect(found).toEqual(
      expect.arrayContaining([
        'test/bench/bench.mjs',
        'test/bench/live-bench.mjs',
        'test/bench/make-bench-capture.mjs',
        'test/bench/make-conversations-capture.mjs',
        'test/bench/make-game-capture.mjs',
        'test/bench/open-session.mjs',
        'test/bench/repeat-capture.mjs',
        'test/fixtures/make-capture-fixtures.mjs',
        'test/fixtures/make-demo.mjs',
        'test/fixtures/make-fixtures.mjs',
        'test/fixtures/make-net-fixtures.mjs',
        'test/fixtures/make-sfs2x-fixtures.mjs',
        'test/fixtures/net-traffic.mjs',
        'test/fixtures/sfs2x/traffic-lastwar.mjs',
        'test/fixtures/sfs2x/traffic-sdk-ws.mjs',
        'test/fixtures/sfs2x/traffic-vanilla-tcp.mjs',
        'test/fixtures/ui/make-ui-fixtures.mjs',
        'test/unit/capture-live/enet-traffic.mjs',
        'test/unit/capture-live/sfs2x-traffic.mjs',
        'test/unit/helpers/time-limit-worker.mjs'
      ])
    )
    for (const lib of ['test/script-usage.mjs', 'test/bench/packets.mjs', 'test/fixtures/loopback.mjs', 'test/fixtures/sfs2x/sfs-lib.mjs'])
      expect(found).not.toContain(lib)
  })

  it.each(scripts.map(rel))('%s imports test/script-usage.mjs and calls usage() before anything else', (name) => {
    const file = join(ROOT, name)
    const src = readFileSync(file, 'utf8')
    expect(specifiers(src).map((s) => resolve(dirname(file), s))).toContain(USAGE_MODULE)
    let first = body(src)
    if (file === DUAL) {
      // A library first: the call opens its main guard.
      const guard = /\nif \(process\.argv\[1\][^\n]*\{\n/.exec(first)
      expect(guard, 'the main guard').not.toBeNull()
      first = first.slice(guard!.index + guard![0].length).trimStart()
    }
    expect(first.slice(0, 80)).toMatch(CALLS_USAGE)
  })

  it('each answers --help with its usage on stdout, exit 0, and writes nothing', async () => {
    const before = repoState()
    const results = await pool(scripts, 4, async (file) => {
      const cwd = tempDir()
      const r = await run(file, ['--help'], cwd)
      return { name: rel(file), ...r, left: readdirSync(cwd) }
    })
    for (const r of results) {
      expect({ name: r.name, code: r.code, stderr: r.stderr }).toEqual({ name: r.name, code: 0, stderr: '' })
      expect(r.stdout.startsWith('usage:'), `${r.name}: ${r.stdout.slice(0, 200)}`).toBe(true)
      expect(r.stdout.split('\n')[0]).toContain(r.name)
      expect(r.left, `${r.name} wrote into its cwd`).toEqual([])
    }
    expectUnchanged(before)
  }, 240_000)

  it('refuses an unknown flag with exit 2 instead of writing a file named after it', async () => {
    const before = repoState()
    const cwd = tempDir()
    const r = await run(join(ROOT, 'test/bench/make-bench-capture.mjs'), ['--bogus'], cwd)
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.split('\n')[0]).toBe('unknown option --bogus')
    expect(r.stderr).toContain('usage: node test/bench/make-bench-capture.mjs OUT.pcap [FRAMES]')
    expect(readdirSync(cwd)).toEqual([])
    expectUnchanged(before)
  }, 30_000)
})

describe('usage()', () => {
  // A script of its own in a temp dir, so the helper is seen exactly as a script sees it.
  const script = (code: string) => {
    const dir = tempDir()
    const file = join(dir, 'script.mjs')
    writeFileSync(file, `import { usage } from ${JSON.stringify(pathToFileURL(USAGE_MODULE).href)}\n${code}\n`)
    return { dir, file }
  }

  it('returns the arguments: declared options and negative numbers pass', async () => {
    const { dir, file } = script(`console.log(JSON.stringify(usage('usage: x', { options: ['--n'] })))`)
    const r = await run(file, ['out.pcap', '--n', '-5', '-0.5', '3'], dir)
    expect(r).toEqual({ code: 0, stdout: JSON.stringify(['out.pcap', '--n', '-5', '-0.5', '3']) + '\n', stderr: '' })
  })

  it('-h prints the usage, even after other arguments; a short unknown flag is refused', async () => {
    const { dir, file } = script(`usage('usage: x OUT'); console.log('ran')`)
    expect(await run(file, ['out', '-h'], dir)).toEqual({ code: 0, stdout: 'usage: x OUT\n', stderr: '' })
    expect(await run(file, ['-x', 'out'], dir)).toEqual({ code: 2, stdout: '', stderr: 'unknown option -x\nusage: x OUT\n' })
    expect(await run(file, ['--', 'out'], dir)).toEqual({ code: 2, stdout: '', stderr: 'unknown option --\nusage: x OUT\n' })
  })

  it("checks nothing in a worker thread, whose process.argv is its parent's", async () => {
    const { dir, file: worker } = script(`import { parentPort } from 'node:worker_threads'\nparentPort.postMessage(usage('usage: worker'))`)
    const main = join(dir, 'main.mjs')
    writeFileSync(
      main,
      `import { Worker } from 'node:worker_threads'\nnew Worker(${JSON.stringify(worker)}).on('message', (m) => console.log(JSON.stringify(m)))\n`
    )
    expect(await run(main, ['--bogus', '--help'], dir)).toEqual({ code: 0, stdout: '[]\n', stderr: '' })
  })
})
