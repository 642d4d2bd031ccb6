// Where the built renderer lives and the Content-Security-Policy both shells serve it with.

import { join } from 'node:path'
import { appRoot } from './paths'

/** out/renderer of the app (electron-vite's renderer build). */
export function rendererDir(): string {
  return join(appRoot(), 'out', 'renderer')
}

/**
 * The renderer's Content-Security-Policy: only its own scripts (no eval: the filter compiler and monaco
 * need none), workers from itself or blob:, and network access to its own origin (the serve WebSocket).
 */
export const RENDERER_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; font-src 'self' data:; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
