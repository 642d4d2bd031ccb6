// The Electron main process's logic, kept free of the 'electron' import so it can be unit-tested:
// every Electron object it touches comes in as a parameter and is typed structurally.

import { chmodSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  IPC_CHANNELS,
  REQUEST_NAMES,
  requestChannel,
  type ExportRequest,
  type InspectorRequests,
  type MenuAction,
  type RequestName,
  type SessionStatus
} from '../../src-shared/api'
import { MAX_PATH_LENGTH, validateRequest } from '../../src-shared/api-validate'
import type { ExportTarget } from '../host/session-core'

// ---- structural stand-ins for the Electron types used here ----

/** The parts of an IpcMainInvokeEvent the handlers look at. */
export interface InvokeEventLike {
  sender: unknown
  /** The frame that sent the request (null once it navigated away or was destroyed). */
  senderFrame?: { url: string; parent: unknown } | null
}

export type InvokeHandler = (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>

export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => unknown): void
}

/** The parts of WebContents the hardening code touches. */
export interface WebContentsLike {
  on(event: 'will-navigate', listener: (event: { preventDefault(): void }, url: string) => void): unknown
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void
}

// ---- window ----

/** BrowserWindow options: isolated, sandboxed renderer without Node, shown once painted; DevTools only in development. */
export function windowOptions(preloadPath: string, o: { packaged: boolean } = { packaged: true }) {
  return {
    width: 1400,
    height: 880,
    minWidth: 760,
    minHeight: 480,
    show: false,
    title: 'gamewire',
    backgroundColor: '#121418',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      devTools: !o.packaged
    }
  }
}

/**
 * Whether a URL is the app's own page: the built index.html, or in development the dev server's origin
 * (only when not packaged and only a loopback http URL, so an environment variable cannot point a
 * packaged app at a remote page).
 */
export function appPageMatcher(o: { indexFile: string; devUrl?: string; packaged: boolean }): {
  load: { url: string } | { file: string }
  matches(url: string): boolean
} {
  const dev = !o.packaged && o.devUrl ? loopbackOrigin(o.devUrl) : null
  if (dev) return { load: { url: o.devUrl! }, matches: (url) => loopbackOrigin(url) === dev }
  const own = pathToFileURL(o.indexFile).href
  return { load: { file: o.indexFile }, matches: (url) => url.replace(/[?#].*$/, '') === own }
}

function loopbackOrigin(url: string): string | null {
  try {
    const u = new URL(url)
    return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname) ? u.origin : null
  } catch {
    return null
  }
}

/**
 * A request is trusted when it comes from the app window's own top frame showing the app's own page: the
 * webContents alone is not enough, since a subframe or a page it was navigated to shares it.
 */
export function isOwnPage(event: InvokeEventLike, contents: unknown, matches: (url: string) => boolean): boolean {
  const frame = event.senderFrame
  return contents !== null && event.sender === contents && !!frame && frame.parent === null && matches(frame.url)
}

/** Blocks every navigation away from the loaded page, every window.open and every <webview>. */
export function hardenWebContents(contents: WebContentsLike): void {
  contents.on('will-navigate', (event) => event.preventDefault())
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
}

// ---- IPC ----

export interface HandlerDeps {
  session: InspectorRequests
  /** Only the app's own window may call the API. */
  isTrustedSender?: (event: InvokeEventLike) => boolean
  /** Native open dialog; resolves with a path or null. */
  chooseCaptureFile?: () => Promise<string | null>
  /** Told about every capture opened (Open recent). */
  onOpened?: (path: string) => void
}

/**
 * The handler of every request channel, plus the open dialog. Each checks the sender and validates its
 * arguments (src-shared/api-validate.ts) before anything reaches the session.
 */
export function buildHandlers(deps: HandlerDeps): Record<string, InvokeHandler> {
  const trusted = deps.isTrustedSender ?? (() => true)
  const checkSender = (event: InvokeEventLike, name: string): void => {
    if (!trusted(event)) throw new Error(`${name}: request from an untrusted sender`)
  }
  const table: Record<string, InvokeHandler> = {}
  for (const name of REQUEST_NAMES) {
    table[requestChannel(name)] = async (event, ...args) => {
      checkSender(event, name)
      const valid = validateRequest(name, args) as unknown[]
      const fn = deps.session[name] as (...a: unknown[]) => Promise<unknown>
      const result = await fn.apply(deps.session, valid)
      if (name === 'openCapture') {
        const status = result as SessionStatus
        if (status.source?.kind === 'file') deps.onOpened?.(status.source.path)
      }
      return result
    }
  }
  table[IPC_CHANNELS.chooseCapture] = async (event, ...args) => {
    checkSender(event, 'chooseCapture')
    if (args.length !== 0) throw new TypeError('chooseCapture: expected no arguments')
    const path = await deps.chooseCaptureFile?.()
    if (!path) return null
    const status = await deps.session.openCapture(path)
    deps.onOpened?.(path)
    return status
  }
  return table
}

export function registerHandlers(ipcMain: IpcMainLike, table: Record<string, InvokeHandler>): void {
  for (const [channel, handler] of Object.entries(table)) ipcMain.handle(channel, handler)
}

/** Every channel the main process answers. */
export function handledChannels(): string[] {
  return [...REQUEST_NAMES.map((n: RequestName) => requestChannel(n)), IPC_CHANNELS.chooseCapture]
}

// ---- exports ----

export type SaveDialogLike = (options: {
  title: string
  defaultPath: string
  filters: { name: string; extensions: string[] }[]
}) => Promise<{ canceled: boolean; filePath?: string }>

/** Export destinations in Electron: a native save dialog, in the last folder used. */
export function electronExportTarget(showSaveDialog: SaveDialogLike, defaultDir: () => string) {
  let lastDir: string | undefined
  return async (request: ExportRequest, suggestedName: string): Promise<ExportTarget | null> => {
    const pcapng = request.format === 'pcapng'
    const r = await showSaveDialog({
      title: pcapng ? 'Save frames as pcapng' : 'Export decoded JSON',
      defaultPath: join(lastDir ?? defaultDir(), suggestedName),
      filters: pcapng ? [{ name: 'pcapng capture', extensions: ['pcapng'] }] : [{ name: 'Decoded JSON', extensions: [request.format] }]
    })
    if (r.canceled || !r.filePath) return null
    lastDir = dirname(r.filePath)
    return { path: r.filePath, fileName: basename(r.filePath) }
  }
}

// ---- recent files ----

export const MAX_RECENT = 10

/** "Open recent": the last opened capture files, newest first, kept in a JSON file. */
export class RecentFiles {
  private items: string[] = []

  constructor(private readonly file: string) {
    try {
      const data: unknown = JSON.parse(readFileSync(file, 'utf8'))
      if (Array.isArray(data)) {
        this.items = data.filter((p): p is string => typeof p === 'string' && p.length > 0 && p.length <= MAX_PATH_LENGTH).slice(0, MAX_RECENT)
      }
    } catch {
      // none yet, or unreadable: start empty
    }
  }

  list(): string[] {
    return [...this.items]
  }

  add(path: string): void {
    this.items = [path, ...this.items.filter((p) => p !== path)].slice(0, MAX_RECENT)
    this.save()
  }

  clear(): void {
    this.items = []
    this.save()
  }

  /** Owner-only (0600 in a 0700 folder): the paths say what the user has been looking at. */
  private save(): void {
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 })
      writeFileSync(this.file, JSON.stringify(this.items, null, 1), { mode: 0o600 })
      chmodSync(this.file, 0o600) // a file made by an older version keeps its mode otherwise
    } catch {
      // recent files are a convenience; never fail an open because of them
    }
  }
}

// ---- menu ----

/** What the menu items do; main.ts supplies Electron-backed implementations. */
export interface MenuActions {
  open(): void
  openRecent(path: string): void
  clearRecent(): void
  /** Actions the renderer carries out (it knows the filter and the selection). */
  renderer(action: MenuAction): void
  startCapture(): void
  stopCapture(): void
  quit(): void
}

/** A plain menu template (Menu.buildFromTemplate input) without Electron types. */
export interface MenuItemSpec {
  label?: string
  role?: string
  type?: 'separator' | 'submenu'
  accelerator?: string
  enabled?: boolean
  click?: () => void
  submenu?: MenuItemSpec[]
}

export function menuTemplate(actions: MenuActions, state: { recent: string[]; capturing: boolean; isMac: boolean; devTools?: boolean }): MenuItemSpec[] {
  const sep: MenuItemSpec = { type: 'separator' }
  const recent: MenuItemSpec[] = state.recent.length
    ? [...state.recent.map((p) => ({ label: p, click: () => actions.openRecent(p) })), sep, { label: 'Clear Recent', click: () => actions.clearRecent() }]
    : [{ label: 'No recent captures', enabled: false }]
  const file: MenuItemSpec = {
    label: 'File',
    submenu: [
      { label: 'Open…', accelerator: 'CmdOrCtrl+O', click: () => actions.open() },
      { label: 'Open Recent', submenu: recent },
      sep,
      { label: 'Save Filtered as pcapng…', accelerator: 'CmdOrCtrl+S', click: () => actions.renderer('export-pcapng') },
      { label: 'Export Decoded JSON…', accelerator: 'CmdOrCtrl+E', click: () => actions.renderer('export-json') },
      sep,
      { label: 'Keys…', accelerator: 'CmdOrCtrl+K', click: () => actions.renderer('keys') },
      sep,
      state.isMac ? { role: 'close' } : { label: 'Quit', accelerator: 'CmdOrCtrl+Q', click: () => actions.quit() }
    ]
  }
  const capture: MenuItemSpec = {
    label: 'Capture',
    submenu: [
      { label: 'Start Capture…', enabled: !state.capturing, click: () => actions.startCapture() },
      { label: 'Stop Capture', enabled: state.capturing, click: () => actions.stopCapture() }
    ]
  }
  const view: MenuItemSpec = {
    label: 'View',
    submenu: [
      { label: 'Focus Filter', accelerator: 'CmdOrCtrl+F', click: () => actions.renderer('focus-filter') },
      { label: 'Conversations', click: () => actions.renderer('conversations') },
      { label: 'Statistics', click: () => actions.renderer('statistics') },
      sep,
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      sep,
      { role: 'togglefullscreen' },
      // Developer tools only in development builds: in a packaged app they would open the keys to anyone at the screen.
      ...(state.devTools ? [sep, { role: 'toggleDevTools' }] : [])
    ]
  }
  const edit: MenuItemSpec = {
    label: 'Edit',
    submenu: [{ role: 'undo' }, { role: 'redo' }, sep, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'selectAll' }]
  }
  const template = [file, edit, view, capture]
  if (state.isMac) template.unshift({ label: 'gamewire', submenu: [{ role: 'about' }, sep, { role: 'quit' }] })
  return template
}

// ---- command line ----

/**
 * The first non-flag argument after the app path: argv is [electron, appPath, ...args] when run
 * through the electron binary, [app, ...args] when packaged. Arguments after a bare `--` are never
 * flags.
 */
export function commandLineFileArg(argv: readonly string[], packaged: boolean): string | undefined {
  let flagsEnded = false
  for (const arg of argv.slice(packaged ? 1 : 2)) {
    if (!flagsEnded && arg === '--') {
      flagsEnded = true
      continue
    }
    if (!flagsEnded && arg.startsWith('-')) continue
    if (arg.length > 0) return arg
  }
  return undefined
}

export interface InitialCapture {
  /** The file to open, or undefined for the demo capture. */
  path: string | undefined
  /** A command-line file argument that was ignored because no such file exists. */
  missing?: string
}

/** What to open at startup: the command-line file if it exists, else the demo capture. */
export function resolveInitialCapture(argv: readonly string[], opts: { packaged: boolean; cwd: string; isFile: (path: string) => boolean }): InitialCapture {
  const arg = commandLineFileArg(argv, opts.packaged)
  if (arg === undefined) return { path: undefined }
  const path = isAbsolute(arg) ? arg : resolve(opts.cwd, arg)
  try {
    validateRequest('openCapture', [path])
    if (opts.isFile(path)) return { path }
  } catch {
    // invalid or unreadable: fall through to the demo capture
  }
  return { path: undefined, missing: arg }
}
