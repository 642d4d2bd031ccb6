import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { INVOKE_CHANNELS, IPC_CHANNELS, type CaptureSummary, type InspectorApi } from '../../../src-shared/api'
import {
  buildHandlers,
  commandLineFileArg,
  createCaptureController,
  hardenWebContents,
  resolveInitialCapture,
  type InvokeHandler
} from '../../../src-main/electron/handlers'
import { appRoot, demoCapturePath } from '../../../src-main/host/paths'

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')

// ---- Electron and summarizer doubles (shared across module resets through vi.hoisted) ----

type Listener = (...args: any[]) => any

interface FakeWebContents {
  listeners: Map<string, Listener>
  on: ReturnType<typeof vi.fn>
  setWindowOpenHandler: ReturnType<typeof vi.fn>
  send: ReturnType<typeof vi.fn>
}

interface FakeWindow {
  options: any
  webContents: FakeWebContents
  on: ReturnType<typeof vi.fn>
  show: ReturnType<typeof vi.fn>
  loadURL: ReturnType<typeof vi.fn>
  loadFile: ReturnType<typeof vi.fn>
}

const h = vi.hoisted(() => {
  const state = {
    handlers: new Map<string, (...args: any[]) => any>(),
    appListeners: new Map<string, ((...args: any[]) => any)[]>(),
    windows: [] as any[],
    exposed: new Map<string, unknown>(),
    permissionHandler: null as null | ((...args: any[]) => any)
  }
  const makeWebContents = () => {
    const listeners = new Map<string, (...args: any[]) => any>()
    return {
      listeners,
      on: vi.fn((event: string, fn: (...args: any[]) => any) => {
        listeners.set(event, fn)
      }),
      setWindowOpenHandler: vi.fn(),
      send: vi.fn()
    }
  }
  const BrowserWindow = Object.assign(
    vi.fn(function (options: unknown) {
      const win = {
        options,
        webContents: makeWebContents(),
        on: vi.fn(),
        show: vi.fn(),
        loadURL: vi.fn(() => Promise.resolve()),
        loadFile: vi.fn(() => Promise.resolve())
      }
      state.windows.push(win)
      return win
    }),
    { getAllWindows: () => state.windows }
  )
  const app = {
    isPackaged: false,
    whenReady: vi.fn(() => Promise.resolve()),
    on: vi.fn((event: string, fn: (...args: any[]) => any) => {
      const list = state.appListeners.get(event) ?? []
      list.push(fn)
      state.appListeners.set(event, list)
    }),
    quit: vi.fn(),
    exit: vi.fn()
  }
  const ipcMain = {
    handle: vi.fn((channel: string, fn: (...args: any[]) => any) => {
      state.handlers.set(channel, fn)
    })
  }
  const session = {
    defaultSession: {
      setPermissionRequestHandler: vi.fn((fn: (...args: any[]) => any) => {
        state.permissionHandler = fn
      })
    }
  }
  const contextBridge = {
    exposeInMainWorld: vi.fn((key: string, value: unknown) => {
      state.exposed.set(key, value)
    })
  }
  const ipcRenderer = {
    invoke: vi.fn((..._args: unknown[]) => Promise.resolve('invoked')),
    on: vi.fn(),
    removeListener: vi.fn()
  }
  const summarizeCapture = vi.fn()
  return { state, BrowserWindow, app, ipcMain, session, contextBridge, ipcRenderer, summarizeCapture, makeWebContents }
})

vi.mock('electron', () => ({
  app: h.app,
  BrowserWindow: h.BrowserWindow,
  ipcMain: h.ipcMain,
  session: h.session,
  contextBridge: h.contextBridge,
  ipcRenderer: h.ipcRenderer
}))

vi.mock('../../../src-main/host/summarize', () => ({ summarizeCapture: h.summarizeCapture }))

function fakeSummary(file: string): CaptureSummary {
  return {
    file,
    frames: 3,
    messages: 2,
    conversations: [
      {
        id: 1,
        transport: 'udp',
        client: '10.0.0.2:50000',
        server: '10.0.0.1:5055',
        roleFromHandshake: true,
        protocol: 'photon',
        stack: ['udp', 'photon'],
        frames: 3,
        bytes: 180,
        firstTime: 1,
        lastTime: 2,
        notes: []
      }
    ],
    warnings: []
  }
}

const tmp = mkdtempSync(join(tmpdir(), 'gamewire-electron-test-'))
const captureFile = join(tmp, 'game.pcapng')
writeFileSync(captureFile, 'not really a capture')

const savedArgv = process.argv
const savedRendererUrl = process.env.ELECTRON_RENDERER_URL

/** Imports main.ts afresh with the given argv and waits until it has started. */
async function startMain(argv: string[] = ['/usr/bin/electron', '.']): Promise<FakeWindow> {
  process.argv = argv
  vi.resetModules()
  const main = await import('../../../src-main/electron/main')
  await main.ready
  expect(h.state.windows).toHaveLength(1)
  return h.state.windows[0] as FakeWindow
}

function handler(channel: string): (event: unknown, ...args: unknown[]) => Promise<unknown> {
  const fn = h.state.handlers.get(channel)
  if (!fn) throw new Error(`no handler for ${channel}`)
  return fn
}

beforeEach(() => {
  h.state.handlers.clear()
  h.state.appListeners.clear()
  h.state.windows.length = 0
  h.state.exposed.clear()
  h.state.permissionHandler = null
  vi.clearAllMocks()
  h.app.isPackaged = false
  delete process.env.ELECTRON_RENDERER_URL
  h.summarizeCapture.mockImplementation(async (path: string) => fakeSummary(path))
  vi.spyOn(console, 'warn').mockImplementation(() => {})
  vi.spyOn(console, 'error').mockImplementation(() => {})
})

afterEach(() => {
  process.argv = savedArgv
  if (savedRendererUrl === undefined) delete process.env.ELECTRON_RENDERER_URL
  else process.env.ELECTRON_RENDERER_URL = savedRendererUrl
  vi.restoreAllMocks()
})

afterAll(() => rmSync(tmp, { recursive: true, force: true }))

// ---- main.ts ----

describe('Electron main process', () => {
  it('creates one window with an isolated, sandboxed renderer without Node', async () => {
    const win = await startMain()
    const prefs = win.options.webPreferences
    expect(prefs.contextIsolation).toBe(true)
    expect(prefs.sandbox).toBe(true)
    expect(prefs.nodeIntegration).toBe(false)
    expect(prefs.nodeIntegrationInWorker).toBe(false)
    expect(prefs.webviewTag).toBe(false)
    expect(prefs.preload.split(sep).slice(-2)).toEqual(['preload', 'preload.cjs'])
    expect(h.app.exit).not.toHaveBeenCalled()
  })

  it('loads the built renderer from disk, or the dev server URL when electron-vite gives one', async () => {
    const win = await startMain()
    expect(win.loadURL).not.toHaveBeenCalled()
    expect(win.loadFile).toHaveBeenCalledOnce()
    expect(win.loadFile.mock.calls[0][0].split(sep).slice(-2)).toEqual(['renderer', 'index.html'])

    h.state.windows.length = 0
    process.env.ELECTRON_RENDERER_URL = 'http://localhost:5173'
    const dev = await startMain()
    expect(dev.loadURL).toHaveBeenCalledWith('http://localhost:5173')
    expect(dev.loadFile).not.toHaveBeenCalled()
  })

  it('ignores ELECTRON_RENDERER_URL in a packaged app', async () => {
    h.app.isPackaged = true
    process.env.ELECTRON_RENDERER_URL = 'http://evil.example'
    const win = await startMain(['/opt/gamewire/gamewire'])
    expect(win.loadURL).not.toHaveBeenCalled()
    expect(win.loadFile).toHaveBeenCalledOnce()
  })

  it('registers an ipcMain.handle handler for every invoke channel, and only those', async () => {
    await startMain()
    expect([...h.state.handlers.keys()].sort()).toEqual([...INVOKE_CHANNELS].sort())
    expect(h.ipcMain.handle).toHaveBeenCalledTimes(INVOKE_CHANNELS.length)
  })

  it.each([
    ['a number', [42]],
    ['an object', [{ path: '/tmp/x.pcapng' }]],
    ['a string with a NUL byte', ['/tmp/x.pcapng\0']],
    ['an empty string', ['']],
    ['null', [null]],
    ['two paths', ['/tmp/a', '/tmp/b']]
  ])('rejects openCapture with %s without calling summarizeCapture', async (_name, args) => {
    const win = await startMain()
    h.summarizeCapture.mockClear()
    await expect(handler(IPC_CHANNELS.openCapture)({ sender: win.webContents }, ...args)).rejects.toThrow(TypeError)
    expect(h.summarizeCapture).not.toHaveBeenCalled()
  })

  it('rejects getSummary with arguments', async () => {
    const win = await startMain()
    await expect(handler(IPC_CHANNELS.getSummary)({ sender: win.webContents }, 'x')).rejects.toThrow(TypeError)
  })

  it('passes a valid path to summarizeCapture and returns its summary', async () => {
    const win = await startMain()
    h.summarizeCapture.mockClear()
    const result = await handler(IPC_CHANNELS.openCapture)({ sender: win.webContents }, '/caps/match.pcapng')
    expect(h.summarizeCapture).toHaveBeenCalledOnce()
    expect(h.summarizeCapture.mock.calls[0][0]).toBe('/caps/match.pcapng')
    expect(typeof h.summarizeCapture.mock.calls[0][1]).toBe('function')
    expect(result).toEqual(fakeSummary('/caps/match.pcapng'))
    // ...and getSummary now returns it
    expect(await handler(IPC_CHANNELS.getSummary)({ sender: win.webContents })).toEqual(result)
  })

  it('opens the demo capture when openCapture gets no path', async () => {
    const win = await startMain()
    h.summarizeCapture.mockClear()
    await handler(IPC_CHANNELS.openCapture)({ sender: win.webContents })
    expect(h.summarizeCapture.mock.calls[0][0]).toBe(demoCapturePath())
  })

  it('refuses requests that do not come from its own window', async () => {
    await startMain()
    h.summarizeCapture.mockClear()
    const stranger = { sender: h.makeWebContents() }
    await expect(handler(IPC_CHANNELS.openCapture)(stranger, '/caps/a.pcapng')).rejects.toThrow(/untrusted/)
    await expect(handler(IPC_CHANNELS.getSummary)(stranger)).rejects.toThrow(/untrusted/)
    expect(h.summarizeCapture).not.toHaveBeenCalled()
  })

  it('opens the file given on the command line', async () => {
    const win = await startMain(['/usr/bin/electron', '.', '--inspect=0', captureFile])
    expect(h.summarizeCapture).toHaveBeenCalledOnce()
    expect(h.summarizeCapture.mock.calls[0][0]).toBe(captureFile)
    expect(await handler(IPC_CHANNELS.getSummary)({ sender: win.webContents })).toEqual(fakeSummary(captureFile))
  })

  it('opens the command-line file in a packaged app, where argv has no app path', async () => {
    h.app.isPackaged = true
    await startMain(['/opt/gamewire/gamewire', captureFile])
    expect(h.summarizeCapture.mock.calls[0][0]).toBe(captureFile)
  })

  it('opens the demo capture without a command-line file', async () => {
    await startMain(['/usr/bin/electron', '.', '--no-sandbox'])
    expect(h.summarizeCapture).toHaveBeenCalledOnce()
    expect(h.summarizeCapture.mock.calls[0][0]).toBe(demoCapturePath())
  })

  it('falls back to the demo capture when the command-line file does not exist', async () => {
    await startMain(['/usr/bin/electron', '.', join(tmp, 'missing.pcapng')])
    expect(h.summarizeCapture.mock.calls[0][0]).toBe(demoCapturePath())
    expect(console.warn).toHaveBeenCalledWith(expect.stringContaining('missing.pcapng'))
  })

  it('getSummary waits for the startup open, and reports its failure', async () => {
    h.summarizeCapture.mockImplementation(async () => {
      throw new Error('not implemented yet')
    })
    const win = await startMain()
    await expect(handler(IPC_CHANNELS.getSummary)({ sender: win.webContents })).rejects.toThrow('not implemented yet')
    expect(h.app.exit).not.toHaveBeenCalled()
  })

  it('forwards read progress to the window', async () => {
    h.summarizeCapture.mockImplementation(async (path: string, onProgress?: (p: unknown) => void) => {
      onProgress?.({ bytes: 10, total: 100 })
      return fakeSummary(path)
    })
    const win = await startMain()
    await handler(IPC_CHANNELS.getSummary)({ sender: win.webContents })
    expect(win.webContents.send).toHaveBeenCalledWith(IPC_CHANNELS.progress, { bytes: 10, total: 100 })
  })

  it('blocks navigation, window.open and <webview> in every web contents', async () => {
    await startMain()
    const created = h.state.appListeners.get('web-contents-created')
    expect(created).toHaveLength(1)
    const contents = h.makeWebContents()
    created![0]({}, contents)

    const navigate = { preventDefault: vi.fn() }
    contents.listeners.get('will-navigate')!(navigate, 'https://example.com/')
    expect(navigate.preventDefault).toHaveBeenCalled()
    const webview = { preventDefault: vi.fn() }
    contents.listeners.get('will-attach-webview')!(webview)
    expect(webview.preventDefault).toHaveBeenCalled()
    const openHandler = contents.setWindowOpenHandler.mock.calls[0][0]
    expect(openHandler({ url: 'https://example.com/' })).toEqual({ action: 'deny' })
  })

  it('denies permission requests other than clipboard writes', async () => {
    await startMain()
    const permissions = h.state.permissionHandler!
    const decide = (permission: string) => {
      const callback = vi.fn()
      permissions({}, permission, callback)
      return callback.mock.calls[0][0]
    }
    expect(decide('media')).toBe(false)
    expect(decide('geolocation')).toBe(false)
    expect(decide('notifications')).toBe(false)
    expect(decide('clipboard-sanitized-write')).toBe(true)
  })

  it('quits when the window is closed (except on macOS)', async () => {
    await startMain()
    h.state.appListeners.get('window-all-closed')![0]()
    if (process.platform === 'darwin') expect(h.app.quit).not.toHaveBeenCalled()
    else expect(h.app.quit).toHaveBeenCalledOnce()
  })
})

// ---- preload.ts ----

describe('preload', () => {
  async function loadPreload(): Promise<InspectorApi> {
    vi.resetModules()
    await import('../../../src-main/electron/preload')
    expect(h.contextBridge.exposeInMainWorld).toHaveBeenCalledOnce()
    expect(h.contextBridge.exposeInMainWorld.mock.calls[0][0]).toBe('api')
    return h.state.exposed.get('api') as InspectorApi
  }

  it('exposes exactly the InspectorApi as window.api', async () => {
    const api = await loadPreload()
    expect(Object.keys(api).sort()).toEqual(['getSummary', 'onProgress', 'openCapture'])
  })

  it('invokes the IPC channels', async () => {
    const api = await loadPreload()
    await api.openCapture()
    expect(h.ipcRenderer.invoke).toHaveBeenLastCalledWith(IPC_CHANNELS.openCapture)
    await api.openCapture('/caps/a.pcapng')
    expect(h.ipcRenderer.invoke).toHaveBeenLastCalledWith(IPC_CHANNELS.openCapture, '/caps/a.pcapng')
    await api.getSummary()
    expect(h.ipcRenderer.invoke).toHaveBeenLastCalledWith(IPC_CHANNELS.getSummary)
  })

  it('delivers progress without the IPC event and unsubscribes the same listener', async () => {
    const api = await loadPreload()
    const cb = vi.fn()
    const off = api.onProgress(cb)
    expect(h.ipcRenderer.on).toHaveBeenCalledOnce()
    const [channel, listener] = h.ipcRenderer.on.mock.calls[0]
    expect(channel).toBe(IPC_CHANNELS.progress)
    listener({ sender: 'secret' }, { bytes: 1, total: 2 })
    expect(cb).toHaveBeenCalledWith({ bytes: 1, total: 2 })
    expect(cb.mock.calls[0]).toHaveLength(1)
    off()
    expect(h.ipcRenderer.removeListener).toHaveBeenCalledWith(IPC_CHANNELS.progress, listener)
  })
})

// ---- handlers.ts, pure parts ----

describe('commandLineFileArg', () => {
  it('takes the first non-flag argument after the app path', () => {
    expect(commandLineFileArg(['electron', '.', 'a.pcapng', 'b.pcapng'], false)).toBe('a.pcapng')
    expect(commandLineFileArg(['electron', '.', '--flag', '-x', 'a.pcapng'], false)).toBe('a.pcapng')
    expect(commandLineFileArg(['electron', '.'], false)).toBeUndefined()
    expect(commandLineFileArg(['electron', '.', '--only-flags'], false)).toBeUndefined()
  })

  it('does not skip an app path in a packaged app', () => {
    expect(commandLineFileArg(['gamewire', 'a.pcapng'], true)).toBe('a.pcapng')
    expect(commandLineFileArg(['gamewire'], true)).toBeUndefined()
  })

  it('treats everything after -- as files', () => {
    expect(commandLineFileArg(['electron', '.', '--', '-odd-name.pcap'], false)).toBe('-odd-name.pcap')
  })
})

describe('resolveInitialCapture', () => {
  const isFile = (p: string) => p === '/work/caps/a.pcapng'

  it('resolves a relative command-line file against the working directory', () => {
    expect(resolveInitialCapture(['electron', '.', 'caps/a.pcapng'], { packaged: false, cwd: '/work', isFile })).toEqual({
      path: '/work/caps/a.pcapng'
    })
  })

  it('reports a missing file and falls back to the demo capture', () => {
    expect(resolveInitialCapture(['electron', '.', 'nope.pcap'], { packaged: false, cwd: '/work', isFile })).toEqual({
      path: undefined,
      missing: 'nope.pcap'
    })
    expect(resolveInitialCapture(['electron', '.'], { packaged: false, cwd: '/work', isFile })).toEqual({ path: undefined })
  })
})

describe('createCaptureController', () => {
  it('keeps the newest open when opens overlap', async () => {
    const resolvers: Array<() => void> = []
    const summarize = vi.fn(
      (path: string) => new Promise<CaptureSummary>((done) => resolvers.push(() => done(fakeSummary(path))))
    )
    const controller = createCaptureController({ summarize, demoCapturePath: () => '/demo.pcapng' })
    const first = controller.open('/a.pcapng')
    const second = controller.open('/b.pcapng')
    resolvers[1]()
    await second
    resolvers[0]()
    await first
    expect((await controller.summary())?.file).toBe('/b.pcapng')
  })

  it('reports the failure of the newest open until a later open succeeds', async () => {
    const summarize = vi.fn(async (path: string) => {
      if (path.includes('bad')) throw new Error(`cannot read ${path}`)
      return fakeSummary(path)
    })
    const controller = createCaptureController({ summarize, demoCapturePath: () => '/demo.pcapng' })
    await expect(controller.open('/bad.pcapng')).rejects.toThrow('cannot read /bad.pcapng')
    await expect(controller.summary()).rejects.toThrow('cannot read /bad.pcapng')
    await controller.open()
    expect((await controller.summary())?.file).toBe('/demo.pcapng')
  })

  it('returns null before anything was opened', async () => {
    const controller = createCaptureController({ summarize: vi.fn(), demoCapturePath: () => '/demo.pcapng' })
    expect(await controller.summary()).toBeNull()
  })

  it('builds handlers that validate before touching the controller', async () => {
    const controller = { open: vi.fn(), summary: vi.fn() }
    const table: Record<string, InvokeHandler> = buildHandlers(controller)
    await expect(table[IPC_CHANNELS.openCapture]({ sender: null }, 7)).rejects.toThrow(TypeError)
    expect(controller.open).not.toHaveBeenCalled()
  })

  it('hardenWebContents denies window.open', () => {
    const contents = h.makeWebContents()
    hardenWebContents(contents as never)
    expect(contents.setWindowOpenHandler.mock.calls[0][0]({ url: 'x' })).toEqual({ action: 'deny' })
  })
})

// ---- paths.ts and the import boundary ----

describe('demoCapturePath', () => {
  it('resolves resources/demo.pcapng under the repo root from the source tree', () => {
    expect(demoCapturePath()).toBe(join(repoRoot, 'resources', 'demo.pcapng'))
  })

  it('finds the same root from the built out/main/ files and chunks', () => {
    for (const built of ['out/main/index.js', 'out/main/chunks/shared-abc123.js']) {
      expect(appRoot(pathToFileURL(join(repoRoot, built)).href)).toBe(repoRoot)
    }
  })
})

describe("the 'electron' import boundary", () => {
  function sourceFiles(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) return sourceFiles(path)
      return /\.(ts|tsx|mts|cts)$/.test(name) ? [path] : []
    })
  }

  it('only src-main/electron/ imports electron', () => {
    const offenders = ['src-main', 'src-shared', 'src-renderer']
      .flatMap((dir) => sourceFiles(join(repoRoot, dir)))
      .filter((file) => !relative(repoRoot, file).split(sep).join('/').startsWith('src-main/electron/'))
      .filter((file) => /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"]electron(?:\/[^'"]*)?['"]/.test(readFileSync(file, 'utf8')))
    expect(offenders.map((f) => relative(repoRoot, f))).toEqual([])
  })
})
