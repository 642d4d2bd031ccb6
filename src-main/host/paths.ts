// Filesystem locations of the app's own files. Works from the source tree (src-main/host/paths.ts)
// and from the build output (out/main/index.js, or a shared chunk under out/main/chunks/).

import { existsSync } from 'node:fs'
import { basename, dirname, join, parse } from 'node:path'
import { fileURLToPath } from 'node:url'

const MAX_LEVELS_UP = 6

/**
 * The app root: the nearest folder above this module that holds a package.json (the repo root in
 * development, the app folder or asar archive when packaged). Falls back to two levels up, which is
 * the root for both src-main/host/ and out/main/.
 */
export function appRoot(moduleUrl: string = import.meta.url): string {
  const start = dirname(fileURLToPath(moduleUrl))
  let dir = start
  for (let i = 0; i < MAX_LEVELS_UP; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir
    const parent = dirname(dir)
    if (parent === dir || dir === parse(dir).root) break
    dir = parent
  }
  return join(start, '..', '..')
}

/** The bundled demo capture opened when no file is given. */
export function demoCapturePath(): string {
  return join(appRoot(), 'resources', 'demo.pcapng')
}

/** The demo capture's own key file, next to it: resources/demo.pcapng → resources/demo-keys.txt. */
export function demoKeysPath(capture: string): string {
  return join(dirname(capture), `${basename(capture).replace(/\.pcapng$/, '')}-keys.txt`)
}
