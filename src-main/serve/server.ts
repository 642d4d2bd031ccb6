// `gamewire serve`: the built renderer over HTTP and the InspectorApi over a WebSocket (/api) on the same
// port, bound to 127.0.0.1 unless told otherwise. Requests whose Host is not this server (DNS rebinding)
// and WebSocket upgrades from any other Origin are refused. The API also needs this run's random token:
// the printed URL carries it (?token=…) and the page presents it on /api, so no other local process or
// user (who can reach 127.0.0.1 too, and need send no Origin) can read keys or open files. Exports are
// written to a private temporary folder and fetched from /download/<random id>/<file name>.

import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createReadStream, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { homedir, networkInterfaces, tmpdir } from 'node:os'
import { extname, join, normalize, sep } from 'node:path'
import type { Duplex } from 'node:stream'
import type { InspectorEvent, RequestName } from '../../src-shared/api'
import { isRequestName, validateRequest } from '../../src-shared/api-validate'
import { InspectorSession } from '../host/inspector-session'
import { RENDERER_CSP, rendererDir } from '../host/renderer-files'
import { checkUpgrade, CLOSE_POLICY, WebSocketConnection } from './websocket'

export const DEFAULT_PORT = 7790
export const API_PATH = '/api'
/** Requests one browser may have in flight at once. */
const MAX_IN_FLIGHT = 64
/**
 * A client that never reads must not grow the server: one that leaves more than MAX_UNREAD_BYTES unread
 * and takes none of it for UNREAD_STALL_MS is dropped, and none may leave more than MAX_QUEUED_BYTES. Replies
 * asked together may be larger than the first (30 pages of 5,000 conversations are 34 MB of JSON): dropping
 * a client that is reading them made the page reconnect, ask again and be dropped again, forever.
 */
export const MAX_UNREAD_BYTES = 32 << 20
export const UNREAD_STALL_MS = 5_000
const MAX_QUEUED_BYTES = 1 << 30
/** Prefix of the private export folders; the pid after it lets a later run remove a crashed run's folder. */
const EXPORT_DIR_PREFIX = 'gamewire-serve-'

export interface ServeOptions {
  host?: string
  /** 0 picks a free port. */
  port?: number
  /** Capture to open at start (the demo capture when absent). */
  capture?: string
  /** Folder of the built renderer (default: out/renderer). */
  rendererDir?: string
  /** Where keys persist (default: $GAMEWIRE_CONFIG_DIR or ~/.config/gamewire). */
  keysDir?: string
  /** Shard workers that decode a capture being opened (default: cores - 1). */
  jobs?: number
  /** Run the session on this thread (tests only). */
  inProcess?: boolean
  log?: (line: string) => void
}

export interface RunningServer {
  /** The page's URL, with the API token. */
  url: string
  /** The API token of this run (in `url`). */
  token: string
  host: string
  port: number
  session: InspectorSession
  /** Resolves with the result of the first open (rejects if the capture cannot be opened). */
  opened: Promise<unknown>
  close(): Promise<void>
}

/** Keys live here unless a folder is given: $GAMEWIRE_CONFIG_DIR (tests), else ~/.config/gamewire. */
export function defaultKeysDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.GAMEWIRE_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'gamewire')
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8'
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])

function hostWithPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`
}

const ANY = new Set(['0.0.0.0', '::', '[::]'])

/**
 * The Host header values this server answers to: its own address (and loopback's names), and when bound
 * to every address (0.0.0.0, ::) the machine's own interface addresses, so the honest LAN URL works while a
 * forged Host (DNS rebinding) is still refused.
 */
export function allowedHosts(host: string, port: number, interfaces = networkInterfaces()): Set<string> {
  const out = new Set([hostWithPort(host, port).toLowerCase()])
  if (LOOPBACK.has(host) || ANY.has(host)) for (const h of ['127.0.0.1', 'localhost', '[::1]']) out.add(`${h}:${port}`)
  if (ANY.has(host)) {
    for (const list of Object.values(interfaces)) {
      for (const a of list ?? []) if (a.family === 'IPv4' || host !== '0.0.0.0') out.add(hostWithPort(a.address.split('%')[0], port).toLowerCase())
    }
  }
  return out
}

/** Whether `given` is the token, in constant time. */
function tokenMatches(given: string | null, token: string): boolean {
  if (given === null) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Removes export folders left by serve processes that are no longer running (a crash skips the clean-up). */
export function removeStaleExportDirs(dir = tmpdir()): string[] {
  const removed: string[] = []
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return removed
  }
  for (const name of names) {
    const m = new RegExp(`^${EXPORT_DIR_PREFIX}(\\d+)-`).exec(name)
    if (!m || Number(m[1]) === process.pid) continue
    try {
      process.kill(Number(m[1]), 0)
      continue // still running
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') continue // alive, another user's
    }
    try {
      rmSync(join(dir, name), { recursive: true, force: true })
      removed.push(name)
    } catch {
      // not ours to remove
    }
  }
  return removed
}

function securityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', RENDERER_CSP)
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Referrer-Policy', 'no-referrer')
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin')
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin')
  res.setHeader('X-Frame-Options', 'DENY')
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' })
  res.end(text + '\n')
}

/** A file name safe for Content-Disposition. */
function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120) || 'export'
}

export async function startServer(opts: ServeOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1'
  const log = opts.log ?? (() => undefined)
  const root = opts.rendererDir ?? rendererDir()
  try {
    statSync(join(root, 'index.html'))
  } catch {
    throw new Error(`the UI is not built (no ${join(root, 'index.html')}): run \`npm run build\``)
  }
  removeStaleExportDirs()
  const exportDir = mkdtempSync(join(tmpdir(), `${EXPORT_DIR_PREFIX}${process.pid}-`))
  // Removed at close, and on any exit that skips close; a crash is caught by the next run.
  const removeExportDir = () => rmSync(exportDir, { recursive: true, force: true })
  process.once('exit', removeExportDir)
  const token = randomBytes(24).toString('base64url')
  const downloads = new Map<string, { path: string; fileName: string }>()
  const sockets = new Set<WebSocketConnection>()
  let allowed = new Set<string>()
  let origins = new Set<string>()

  const session = new InspectorSession({
    keysDir: opts.keysDir ?? defaultKeysDir(),
    inProcess: opts.inProcess,
    jobs: opts.jobs,
    exportTarget: async (_req, suggestedName) => {
      const token = randomBytes(16).toString('hex')
      const fileName = safeName(suggestedName)
      const path = join(exportDir, `${token}-${fileName}`)
      downloads.set(token, { path, fileName })
      return { path, fileName, downloadUrl: `/download/${token}/${encodeURIComponent(fileName)}` }
    }
  })
  /** Sends, unless the client has left far too much unread; a client that stops reading is dropped, freeing what it held. */
  const sendTo = (ws: WebSocketConnection, text: string): void => {
    if (ws.unreadBytes > MAX_QUEUED_BYTES) return ws.drop(CLOSE_POLICY, 'too much unread output')
    ws.send(text)
    ws.watchUnread(MAX_UNREAD_BYTES, UNREAD_STALL_MS, 'too much unread output: the client is not reading')
  }
  session.onEvent((event: InspectorEvent) => {
    const text = JSON.stringify({ event })
    for (const ws of sockets) sendTo(ws, text)
  })

  const hostAllowed = (req: IncomingMessage): boolean => allowed.has((req.headers.host ?? '').toLowerCase())

  const serveStatic = (req: IncomingMessage, res: ServerResponse, pathname: string): void => {
    let rel: string
    try {
      rel = pathname === '/' ? 'index.html' : decodeURIComponent(pathname).replace(/^\/+/, '')
    } catch {
      return plain(res, 400, 'bad request: malformed percent-encoding')
    }
    const file = normalize(join(root, rel))
    if (!file.startsWith(root.endsWith(sep) ? root : root + sep) || rel.includes('\0')) return plain(res, 403, 'forbidden')
    let size: number
    try {
      const st = statSync(file)
      if (!st.isFile()) return plain(res, 404, 'not found')
      size = st.size
    } catch {
      return plain(res, 404, 'not found')
    }
    res.writeHead(200, {
      'Content-Type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': size,
      'Cache-Control': rel === 'index.html' ? 'no-cache' : 'public, max-age=3600'
    })
    if (req.method === 'HEAD') return void res.end()
    createReadStream(file).pipe(res)
  }

  const serveDownload = (res: ServerResponse, token: string): void => {
    const d = downloads.get(token)
    if (!d) return plain(res, 404, 'no such download')
    let size: number
    try {
      size = statSync(d.path).size
    } catch {
      return plain(res, 404, 'the export is not ready')
    }
    res.writeHead(200, {
      'Content-Type': d.fileName.endsWith('.pcapng') ? 'application/octet-stream' : 'application/json; charset=utf-8',
      'Content-Length': size,
      'Content-Disposition': `attachment; filename="${d.fileName}"`,
      'Cache-Control': 'no-store'
    })
    createReadStream(d.path).pipe(res)
  }

  /** The request target's path and query, or null when it does not parse (a 400, never an exception). */
  const target = (req: IncomingMessage): URL | null => {
    try {
      return new URL(req.url ?? '/', 'http://x')
    } catch {
      return null
    }
  }

  const server: Server = createServer((req, res) => {
    try {
      handle(req, res)
    } catch (e) {
      // Nothing a request sends may reach the process: answer 500 and keep serving.
      log(`gamewire: request failed: ${(e as Error).message}`)
      if (!res.headersSent) plain(res, 500, 'internal error')
      else res.destroy()
    }
  })

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    securityHeaders(res)
    if (!hostAllowed(req)) return plain(res, 403, 'forbidden host')
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'method not allowed')
    const url = target(req)
    if (!url) return plain(res, 400, 'bad request target')
    const pathname = url.pathname
    const dl = /^\/download\/([0-9a-f]{32})\/[^/]*$/.exec(pathname)
    if (dl) return serveDownload(res, dl[1])
    if (pathname === API_PATH) return plain(res, 426, 'WebSocket only')
    serveStatic(req, res, pathname)
  }

  const refuse = (socket: Duplex, status: string, why: string): void => {
    socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${why.length + 1}\r\n\r\n${why}\n`)
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy())
    try {
      upgrade(req, socket)
    } catch (e) {
      log(`gamewire: upgrade failed: ${(e as Error).message}`)
      socket.destroy()
    }
  })

  const upgrade = (req: IncomingMessage, socket: Duplex): void => {
    const url = target(req)
    if (!url) return refuse(socket, '400 Bad Request', 'bad request target')
    if (url.pathname !== API_PATH) return refuse(socket, '404 Not Found', 'not found')
    if (!hostAllowed(req)) return refuse(socket, '403 Forbidden', 'forbidden host')
    // Browsers always send Origin on WebSocket requests: it must be this server's own page.
    const origin = req.headers.origin
    if (origin !== undefined && !origins.has(origin.toLowerCase())) return refuse(socket, '403 Forbidden', 'forbidden origin')
    if (!tokenMatches(url.searchParams.get('token'), token))
      return refuse(socket, '401 Unauthorized', 'missing or wrong token: open the URL that gamewire serve printed')
    const check = checkUpgrade(req)
    if ('error' in check) return refuse(socket, '400 Bad Request', check.error)
    let inFlight = 0
    const ws = WebSocketConnection.accept(socket, check.key, {
      message: (text) => {
        let msg: { id?: unknown; method?: unknown; args?: unknown }
        try {
          msg = JSON.parse(text)
        } catch {
          return ws.send(JSON.stringify({ id: null, error: { name: 'ApiArgumentError', message: 'request is not JSON' } }))
        }
        const id = typeof msg?.id === 'number' && Number.isSafeInteger(msg.id) ? msg.id : null
        const reply = (body: Record<string, unknown>) => sendTo(ws, JSON.stringify({ id, ...body }))
        if (id === null) return reply({ error: { name: 'ApiArgumentError', message: 'request needs a numeric id' } })
        if (inFlight >= MAX_IN_FLIGHT) return reply({ error: { name: 'Busy', message: 'too many requests in flight' } })
        let args: unknown[]
        let method: RequestName
        try {
          if (!isRequestName(msg.method))
            throw Object.assign(new TypeError(`unknown request '${String(msg.method).slice(0, 40)}'`), { name: 'ApiArgumentError' })
          method = msg.method
          args = validateRequest(method, msg.args ?? []) as unknown[]
        } catch (e) {
          return reply({ error: { name: (e as Error).name, message: (e as Error).message } })
        }
        inFlight++
        const fn = session[method] as (...a: unknown[]) => Promise<unknown>
        Promise.resolve()
          .then(() => fn.apply(session, args))
          .then(
            (result) => reply({ result: result === undefined ? null : result }),
            (e: Error) => reply({ error: { name: e?.name ?? 'Error', message: e?.message ?? String(e) } })
          )
          .finally(() => inFlight--)
      },
      close: () => sockets.delete(ws)
    })
    sockets.add(ws)
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? DEFAULT_PORT, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? DEFAULT_PORT)
  allowed = allowedHosts(host, port)
  origins = new Set([...allowed].map((h) => `http://${h}`))
  const url = `http://${hostWithPort(ANY.has(host) ? '127.0.0.1' : host, port)}/?token=${token}`
  log(`gamewire: serving on ${url}`)
  if (!LOOPBACK.has(host))
    log(
      `gamewire: warning: the inspector is exposed to other machines on this network (bound to ${host}); anyone with the URL's token can read its keys and captures`
    )

  const opened = session.openCapture(opts.capture)
  opened.catch((e: Error) => log(`gamewire: could not open ${opts.capture ?? 'the demo capture'}: ${e.message}`))

  return {
    url,
    token,
    host,
    port,
    session,
    opened,
    async close() {
      for (const ws of sockets) ws.close(1001, 'server shutting down')
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections?.()
      })
      await session.close()
      removeExportDir()
      process.off('exit', removeExportDir)
    }
  }
}
