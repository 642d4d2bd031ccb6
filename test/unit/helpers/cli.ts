// The CLI as users run it: `node bin/gamewire.mjs` on the built output (test/global-build.ts keeps it fresh).
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

export const ROOT = join(__dirname, '../../..')
export const BIN = join(ROOT, 'bin/gamewire.mjs')

/** Runs `gamewire ARGS` from the repo root; its exit code and output. */
export function gw(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}
