// The Electron main process's logic, kept free of the 'electron' import so it can be unit-tested:
// every Electron object it touches comes in as a parameter and is typed structurally.

import { isAbsolute, resolve } from 'node:path'
import {
  IPC_CHANNELS,
  validateNoArgs,
  validateOpenCaptureArgs,
  type CaptureProgress,
  type CaptureSummary,
  type InvokeChannel
} from '../../src-shared/api'

// ---- structural stand-ins for the Electron types used here ----

/** The parts of an IpcMainInvokeEvent the handlers look at. */
export interface InvokeEventLike {
  sender: unknown
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

/** BrowserWindow options: isolated, sandboxed renderer without Node, shown once painted. */
export function windowOptions(preloadPath: string) {
  return {
    width: 1280,
    height: 800,
    minWidth: 640,
    minHeight: 400,
    show: false,
    title: 'gamewire',
    backgroundColor: '#15171c',
    autoHideMenuBar: true,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false
    }
  }
}

/** Blocks every navigation away from the loaded page, every window.open and every <webview>. */
export function hardenWebContents(contents: WebContentsLike): void {
  contents.on('will-navigate', (event) => event.preventDefault())
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
}

// ---- capture state ----

export interface CaptureControllerDeps {
  summarize: (path: string, onProgress?: (p: CaptureProgress) => void) => Promise<CaptureSummary>
  demoCapturePath: () => string
  /** Forwards read progress of the newest open to the renderer. */
  sendProgress?: (p: CaptureProgress) => void
}

export interface CaptureController {
  /** Opens `path`, or the demo capture without one. The newest open wins. */
  open(path?: string): Promise<CaptureSummary>
  /**
   * The summary of the newest open: waits for it if it is in flight, rejects with its error if it
   * failed, null if nothing was opened yet.
   */
  summary(): Promise<CaptureSummary | null>
}

export function createCaptureController(deps: CaptureControllerDeps): CaptureController {
  let current: CaptureSummary | null = null
  let failure: { error: unknown } | null = null
  let pending: Promise<CaptureSummary> | null = null
  let latest = 0

  return {
    open(path) {
      const id = ++latest
      const target = path ?? deps.demoCapturePath()
      const onProgress = (p: CaptureProgress): void => {
        if (id === latest) deps.sendProgress?.({ bytes: p.bytes, total: p.total })
      }
      const run = deps.summarize(target, onProgress).then(
        (summary) => {
          if (id === latest) {
            current = summary
            failure = null
          }
          return summary
        },
        (error: unknown) => {
          if (id === latest) {
            current = null
            failure = { error }
          }
          throw error
        }
      )
      pending = run
      const settle = (): void => {
        if (pending === run) pending = null
      }
      run.then(settle, settle)
      return run
    },

    async summary() {
      if (pending) await pending
      if (failure) throw failure.error
      return current
    }
  }
}

// ---- IPC ----

/**
 * The handler for every invoke channel. Each checks the sender (when a check is given) and validates
 * its arguments before anything reaches the capture controller.
 */
export function buildHandlers(
  controller: CaptureController,
  isTrustedSender: (event: InvokeEventLike) => boolean = () => true
): Record<InvokeChannel, InvokeHandler> {
  const checkSender = (event: InvokeEventLike, name: string): void => {
    if (!isTrustedSender(event)) throw new Error(`${name}: request from an untrusted sender`)
  }
  return {
    [IPC_CHANNELS.openCapture]: async (event, ...args) => {
      checkSender(event, 'openCapture')
      const { path } = validateOpenCaptureArgs(args)
      return controller.open(path)
    },
    [IPC_CHANNELS.getSummary]: async (event, ...args) => {
      checkSender(event, 'getSummary')
      validateNoArgs('getSummary', args)
      return controller.summary()
    }
  }
}

export function registerHandlers(ipcMain: IpcMainLike, table: Record<InvokeChannel, InvokeHandler>): void {
  for (const [channel, handler] of Object.entries(table)) ipcMain.handle(channel, handler)
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
export function resolveInitialCapture(
  argv: readonly string[],
  opts: { packaged: boolean; cwd: string; isFile: (path: string) => boolean }
): InitialCapture {
  const arg = commandLineFileArg(argv, opts.packaged)
  if (arg === undefined) return { path: undefined }
  const path = isAbsolute(arg) ? arg : resolve(opts.cwd, arg)
  try {
    validateOpenCaptureArgs([path])
    if (opts.isFile(path)) return { path }
  } catch {
    // invalid or unreadable: fall through to the demo capture
  }
  return { path: undefined, missing: arg }
}
