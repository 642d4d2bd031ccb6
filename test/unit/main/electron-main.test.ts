// The Electron main process, preload and handler logic under Node with 'electron' mocked (the Electron
// binary cannot run here) and the host session replaced by a recording double.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { IPC_CHANNELS, REQUEST_NAMES, requestChannel, type InspectorApi, type InspectorEvent } from '../../../src-shared/api'
import {
  MAX_RECENT,
  appPageMatcher,
  RecentFiles,
  buildHandlers,
  commandLineFileArg,
  electronExportTarget,
  handledChannels,
  hardenWebContents,
  menuTemplate,
  resolveInitialCapture,
  windowOptions,
  type MenuItemSpec
} from '../../../src-main/electron/handlers'
import { appRoot, demoCapturePath } from '../../../src-main/host/paths'
import { RENDERER_CSP } from '../../../src-main/host/renderer-files'

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')

const h = vi.hoisted(() => {
  const state = {
    handlers: new Map<string, (...args: any[]) => any>(),
    appListeners: new Map<string, ((...args: any[]) => any)[]>(),
    windows: [] as any[],
    exposed: new Map<string, unknown>(),
    permissionHandler: null as null | ((...args: any[]) => any),
    permissionCheckHandler: null as null | ((...args: any[]) => any),
    headersHandler: null as null | ((...args: any[]) => any),
    menus: [] as any[],
    sessions: [] as any[],
    userData: ''
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
    // biome-ignore lint/complexity/useArrowFunction: the mock is called with `new`, which an arrow function refuses
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
    getPath: vi.fn((name: string) => (name === 'userData' ? state.userData : `/home/user/${name}`)),
    whenReady: vi.fn(() => Promise.resolve()),
    on: vi.fn((event: string, fn: (...args: any[]) => any) => {
      const list = state.appListeners.get(event) ?? []
      list.push(fn)
      state.appListeners.set(event, list)
    }),
    addRecentDocument: vi.fn(),
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
      }),
      setPermissionCheckHandler: vi.fn((fn: (...args: any[]) => any) => {
        state.permissionCheckHandler = fn
      }),
      webRequest: {
        onHeadersReceived: vi.fn((fn: (...args: any[]) => any) => {
          state.headersHandler = fn
        })
      }
    }
  }
  const dialog = {
    showOpenDialog: vi.fn(async () => ({ canceled: false, filePaths: ['/caps/chosen.pcapng'] })),
    showSaveDialog: vi.fn(async (_win: unknown, o: { defaultPath: string }) => ({ canceled: false, filePath: o.defaultPath })),
    showErrorBox: vi.fn()
  }
  const Menu = {
    buildFromTemplate: vi.fn((t: unknown) => ({ template: t })),
    setApplicationMenu: vi.fn((m: unknown) => state.menus.push(m))
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
  const webUtils = { getPathForFile: vi.fn(() => '/dropped/file.pcapng') }

  /** Stands in for InspectorSession: records the options and the calls, answers with canned values. */
  class FakeSession {
    listeners = new Set<(e: unknown) => void>()
    calls: [string, unknown[]][] = []
    constructor(readonly options: any) {
      state.sessions.push(this)
    }
    onEvent(cb: (e: unknown) => void) {
      this.listeners.add(cb)
      return () => this.listeners.delete(cb)
    }
    emit(e: unknown) {
      for (const cb of this.listeners) cb(e)
    }
    close = vi.fn(async () => undefined)
  }
  const fakeStatus = (path?: string) => ({
    phase: 'ready',
    source: path ? { kind: 'file', path, file: path.split('/').pop(), bytes: 1 } : null,
    captureState: { state: 'off' }
  })
  for (const name of [
    'openCapture',
    'getStatus',
    'getConversationPage',
    'getFields',
    'checkFilter',
    'setView',
    'getRows',
    'findRow',
    'getMessage',
    'getSourceBytes',
    'setDecodeAs',
    'listKeys',
    'addKeys',
    'removeKey',
    'exportKeys',
    'getStats',
    'startExport',
    'cancelJob',
    'startCapture',
    'stopCapture'
  ]) {
    ;(FakeSession.prototype as any)[name] = async function (this: FakeSession, ...args: unknown[]) {
      this.calls.push([name, args])
      if (name === 'openCapture') return fakeStatus((args[0] as string | undefined) ?? '/app/resources/demo.pcapng')
      if (name === 'startCapture') throw new Error('live capture is not available in this build')
      return { answer: name }
    }
  }
  return { state, BrowserWindow, app, ipcMain, session, dialog, Menu, contextBridge, ipcRenderer, webUtils, FakeSession, makeWebContents }
})

vi.mock('electron', () => ({
  app: h.app,
  BrowserWindow: h.BrowserWindow,
  ipcMain: h.ipcMain,
  session: h.session,
  dialog: h.dialog,
  Menu: h.Menu,
  contextBridge: h.contextBridge,
  ipcRenderer: h.ipcRenderer,
  webUtils: h.webUtils
}))

vi.mock('../../../src-main/host/inspector-session', () => ({ InspectorSession: h.FakeSession }))

const tmp = mkdtempSync(join(tmpdir(), 'gamewire-electron-test-'))
const captureFile = join(tmp, 'game.pcapng')
writeFileSync(captureFile, 'not really a capture')
const savedArgv = process.argv
const savedRendererUrl = process.env.ELECTRON_RENDERER_URL

interface FakeWindow {
  options: any
  webContents: ReturnType<typeof h.makeWebContents>
  loadURL: ReturnType<typeof vi.fn>
  loadFile: ReturnType<typeof vi.fn>
}

/** Imports main.ts afresh with the given argv and waits until it has started. */
async function startMain(argv: string[] = ['/usr/bin/electron', '.']): Promise<{ win: FakeWindow; session: InstanceType<typeof h.FakeSession> }> {
  process.argv = argv
  vi.resetModules()
  const main = await import('../../../src-main/electron/main')
  await main.ready
  await new Promise((r) => setTimeout(r, 0))
  expect(h.state.windows).toHaveLength(1)
  expect(h.state.sessions).toHaveLength(1)
  return { win: h.state.windows[0], session: h.state.sessions[0] }
}

/** An IPC event from the window's own top frame showing the page main.ts loaded. */
function own(win: FakeWindow, frame: Partial<{ url: string; parent: unknown }> = {}): { sender: unknown; senderFrame: { url: string; parent: unknown } } {
  const file = (win as any).loadFile.mock.calls[0][0] as string
  return { sender: win.webContents, senderFrame: { url: pathToFileURL(file).href, parent: null, ...frame } }
}

function handler(channel: string): (event: unknown, ...args: unknown[]) => Promise<unknown> {
  const fn = h.state.handlers.get(channel)
  if (!fn) throw new Error(`no handler for ${channel}`)
  return fn
}

function findItem(items: MenuItemSpec[], label: string): MenuItemSpec {
  for (const item of items) {
    if (item.label === label) return item
    const inner = item.submenu ? findItemOrNull(item.submenu, label) : null
    if (inner) return inner
  }
  throw new Error(`no menu item ${label}`)
}
function findItemOrNull(items: MenuItemSpec[], label: string): MenuItemSpec | null {
  try {
    return findItem(items, label)
  } catch {
    return null
  }
}

beforeEach(() => {
  h.state.handlers.clear()
  h.state.appListeners.clear()
  h.state.windows.length = 0
  h.state.exposed.clear()
  h.state.menus.length = 0
  h.state.sessions.length = 0
  h.state.permissionHandler = null
  h.state.headersHandler = null
  h.state.userData = mkdtempSync(join(tmp, 'userdata-'))
  vi.clearAllMocks()
  h.app.isPackaged = false
  delete process.env.ELECTRON_RENDERER_URL
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
    const { win } = await startMain()
    const prefs = win.options.webPreferences
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      webSecurity: true
    })
    expect(prefs.preload.split(sep).slice(-2)).toEqual(['preload', 'preload.cjs'])
    expect(h.app.exit).not.toHaveBeenCalled()
  })

  it('loads the built renderer from disk, or the dev server URL when electron-vite gives one', async () => {
    const { win } = await startMain()
    expect(win.loadURL).not.toHaveBeenCalled()
    expect(win.loadFile.mock.calls[0][0].split(sep).slice(-2)).toEqual(['renderer', 'index.html'])
    h.state.windows.length = 0
    h.state.sessions.length = 0
    process.env.ELECTRON_RENDERER_URL = 'http://localhost:5173'
    const dev = await startMain()
    expect(dev.win.loadURL).toHaveBeenCalledWith('http://localhost:5173')
  })

  it('ignores ELECTRON_RENDERER_URL in a packaged app', async () => {
    h.app.isPackaged = true
    process.env.ELECTRON_RENDERER_URL = 'http://evil.example'
    const { win } = await startMain(['/opt/gamewire/gamewire'])
    expect(win.loadURL).not.toHaveBeenCalled()
    expect(win.loadFile).toHaveBeenCalledOnce()
  })

  it('runs one host session whose keys persist in the user-data folder', async () => {
    const { session } = await startMain()
    expect(session.options.keysDir).toBe(h.state.userData)
    expect(session.options.inProcess).toBeFalsy() // decoding runs on the worker thread
  })

  it('registers a handler for every API request plus the open dialog, and only those', async () => {
    await startMain()
    expect([...h.state.handlers.keys()].sort()).toEqual(handledChannels().sort())
    expect(handledChannels()).toHaveLength(REQUEST_NAMES.length + 1)
  })

  it.each([
    ['openCapture', [42]],
    ['openCapture', ['/tmp/x\0.pcapng']],
    ['openCapture', ['/a', '/b']],
    ['getRows', [1, 0, 1_000_000]],
    ['getRows', [1, -1, 10]],
    ['getMessage', ['7']],
    ['setView', [{ filter: '', sort: null, columns: [], extra: 1 }]],
    ['setView', [{ filter: 'x'.repeat(20_000), sort: null, columns: [] }]],
    ['addKeys', [{ text: 'x' }]],
    ['startExport', [{ format: 'exe', scope: 'all' }]],
    ['getStatus', ['unexpected']]
  ] as const)('rejects %s%j without reaching the session', async (name, args) => {
    const { win, session } = await startMain()
    const before = session.calls.length
    await expect(handler(requestChannel(name))(own(win), ...args)).rejects.toThrow(TypeError)
    expect(session.calls.length).toBe(before)
  })

  it('passes valid requests to the session and returns its answer', async () => {
    const { win, session } = await startMain()
    const sender = own(win)
    expect(await handler(requestChannel('getRows'))(sender, 3, 100, 200)).toEqual({ answer: 'getRows' })
    expect(session.calls.at(-1)).toEqual(['getRows', [3, 100, 200]])
    const spec = { filter: 'photon', sort: { column: 'time', desc: true }, columns: ['photon.op.code'] }
    await handler(requestChannel('setView'))(sender, spec)
    expect(session.calls.at(-1)).toEqual(['setView', [spec]])
    await handler(requestChannel('openCapture'))(sender)
    expect(session.calls.at(-1)).toEqual(['openCapture', []])
  })

  it('refuses requests that do not come from its own window', async () => {
    const { win, session } = await startMain()
    const before = session.calls.length
    const stranger = { sender: h.makeWebContents(), senderFrame: own(win).senderFrame }
    await expect(handler(requestChannel('openCapture'))(stranger, '/caps/a.pcapng')).rejects.toThrow(/untrusted/)
    await expect(handler(IPC_CHANNELS.chooseCapture)(stranger)).rejects.toThrow(/untrusted/)
    expect(session.calls.length).toBe(before)
  })

  it('refuses requests from a subframe, another page in the same window, or a destroyed frame', async () => {
    const { win, session } = await startMain()
    const before = session.calls.length
    const events = [
      own(win, { parent: { url: 'file:///x' } }),
      own(win, { url: 'https://evil.example/' }),
      own(win, { url: 'file:///tmp/other/index.html' }),
      { sender: win.webContents, senderFrame: null },
      { sender: win.webContents }
    ]
    for (const e of events) await expect(handler(requestChannel('listKeys'))(e), JSON.stringify(e.senderFrame)).rejects.toThrow(/untrusted/)
    expect(session.calls.length).toBe(before)
    // the page itself with a hash or query is still the page
    expect(await handler(requestChannel('listKeys'))(own(win, { url: own(win).senderFrame.url + '#x' }))).toEqual({ answer: 'listKeys' })
  })

  it('answers permission checks as it answers requests: only clipboard writes', async () => {
    await startMain()
    expect(h.state.permissionCheckHandler!(null, 'clipboard-sanitized-write')).toBe(true)
    for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read']) expect(h.state.permissionCheckHandler!(null, p)).toBe(false)
  })

  it('opens the file given on the command line, else the demo capture', async () => {
    const withFile = await startMain(['/usr/bin/electron', '.', '--inspect=0', captureFile])
    expect(withFile.session.calls[0]).toEqual(['openCapture', [captureFile]])
    h.state.windows.length = 0
    h.state.sessions.length = 0
    const demo = await startMain(['/usr/bin/electron', '.', '--no-sandbox'])
    expect(demo.session.calls[0]).toEqual(['openCapture', [undefined]])
    expect(demo.session.options.demoCapturePath()).toBe(demoCapturePath())
  })

  it('falls back to the demo capture when the command-line file does not exist', async () => {
    const { session } = await startMain(['/usr/bin/electron', '.', join(tmp, 'missing.pcapng')])
    expect(session.calls[0]).toEqual(['openCapture', [undefined]])
    expect(console.warn).toHaveBeenCalledWith(expect.stringContaining('missing.pcapng'))
  })

  it('forwards every session event to the window', async () => {
    const { win, session } = await startMain()
    const event = { type: 'view', view: { id: 3 } }
    session.emit(event)
    expect(win.webContents.send).toHaveBeenCalledWith(IPC_CHANNELS.event, event)
  })

  it('builds the native menu; its items open files, reach the renderer, and Start Capture opens the capture panel', async () => {
    const { win, session } = await startMain()
    const template = h.Menu.buildFromTemplate.mock.calls.at(-1)![0] as MenuItemSpec[]
    for (const label of ['Open…', 'Open Recent', 'Save Filtered as pcapng…', 'Export Decoded JSON…', 'Start Capture…', 'Stop Capture', 'Keys…'])
      findItem(template, label)
    if (process.platform !== 'darwin') findItem(template, 'Quit').click!()
    if (process.platform !== 'darwin') expect(h.app.quit).toHaveBeenCalled()

    findItem(template, 'Export Decoded JSON…').click!()
    expect(win.webContents.send).toHaveBeenCalledWith(IPC_CHANNELS.event, { type: 'menu', action: 'export-json' } satisfies InspectorEvent)
    findItem(template, 'Save Filtered as pcapng…').click!()
    expect(win.webContents.send).toHaveBeenCalledWith(IPC_CHANNELS.event, { type: 'menu', action: 'export-pcapng' })
    findItem(template, 'Keys…').click!()
    expect(win.webContents.send).toHaveBeenCalledWith(IPC_CHANNELS.event, { type: 'menu', action: 'keys' })

    findItem(template, 'Open…').click!()
    await vi.waitFor(() => expect(session.calls.at(-1)).toEqual(['openCapture', ['/caps/chosen.pcapng']]))
    // the menu is rebuilt with the file under Open Recent
    await vi.waitFor(() => expect(findItemOrNull(h.Menu.buildFromTemplate.mock.calls.at(-1)![0] as MenuItemSpec[], '/caps/chosen.pcapng')).not.toBeNull())
    expect(JSON.parse(readFileSync(join(h.state.userData, 'recent.json'), 'utf8'))).toEqual(['/caps/chosen.pcapng'])

    // Start Capture… opens the renderer's capture panel (device, filter, options) instead of picking a device itself.
    findItem(template, 'Start Capture…').click!()
    expect(win.webContents.send).toHaveBeenCalledWith(IPC_CHANNELS.event, { type: 'menu', action: 'capture' })
    expect(session.calls.some(([name]) => name === 'startCapture')).toBe(false)
  })

  it('chooseCapture shows the open dialog and opens the choice; a cancelled dialog opens nothing', async () => {
    const { win, session } = await startMain()
    expect(await handler(IPC_CHANNELS.chooseCapture)(own(win))).toMatchObject({ source: { path: '/caps/chosen.pcapng' } })
    h.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: [] })
    const before = session.calls.length
    expect(await handler(IPC_CHANNELS.chooseCapture)(own(win))).toBeNull()
    expect(session.calls.length).toBe(before)
  })

  it('asks where to save an export with a native dialog', async () => {
    const { session } = await startMain()
    const target = await session.options.exportTarget({ format: 'pcapng', scope: 'filtered' }, 'game-filtered.pcapng')
    expect(h.dialog.showSaveDialog).toHaveBeenCalled()
    expect(target).toEqual({ path: join('/home/user/documents', 'game-filtered.pcapng'), fileName: 'game-filtered.pcapng' })
  })

  it('sends the strict CSP with every response and closes the session on quit', async () => {
    const { session } = await startMain()
    const callback = vi.fn()
    h.state.headersHandler!({ responseHeaders: { 'X-Other': ['1'] } }, callback)
    expect(callback).toHaveBeenCalledWith({ responseHeaders: { 'X-Other': ['1'], 'Content-Security-Policy': [RENDERER_CSP] } })
    expect(RENDERER_CSP).toMatch(/script-src 'self';/)
    expect(RENDERER_CSP).not.toMatch(/unsafe-eval/)
    h.state.appListeners.get('will-quit')![0]()
    expect(session.close).toHaveBeenCalled()
  })

  it('blocks navigation, window.open and <webview> in every web contents', async () => {
    await startMain()
    const contents = h.makeWebContents()
    h.state.appListeners.get('web-contents-created')![0]({}, contents)
    const navigate = { preventDefault: vi.fn() }
    contents.listeners.get('will-navigate')!(navigate, 'https://example.com/')
    expect(navigate.preventDefault).toHaveBeenCalled()
    const webview = { preventDefault: vi.fn() }
    contents.listeners.get('will-attach-webview')!(webview)
    expect(webview.preventDefault).toHaveBeenCalled()
    expect(contents.setWindowOpenHandler.mock.calls[0][0]({ url: 'https://example.com/' })).toEqual({ action: 'deny' })
  })

  it('denies permission requests other than clipboard writes', async () => {
    await startMain()
    const decide = (permission: string) => {
      const callback = vi.fn()
      h.state.permissionHandler!({}, permission, callback)
      return callback.mock.calls[0][0]
    }
    expect(decide('media')).toBe(false)
    expect(decide('geolocation')).toBe(false)
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
    expect(Object.keys(api).sort()).toEqual([...REQUEST_NAMES, 'shell', 'onEvent', 'chooseCapture', 'pathForFile'].sort())
    expect(api.shell).toBe('electron')
  })

  it('invokes one channel per request with the arguments as given', async () => {
    const api = await loadPreload()
    await api.openCapture()
    expect(h.ipcRenderer.invoke).toHaveBeenLastCalledWith(requestChannel('openCapture'))
    await api.getRows(2, 10, 50)
    expect(h.ipcRenderer.invoke).toHaveBeenLastCalledWith(requestChannel('getRows'), 2, 10, 50)
    await api.chooseCapture!()
    expect(h.ipcRenderer.invoke).toHaveBeenLastCalledWith(IPC_CHANNELS.chooseCapture)
    expect(api.pathForFile!({} as File)).toBe('/dropped/file.pcapng')
  })

  it('delivers events without the IPC event object and unsubscribes the same listener', async () => {
    const api = await loadPreload()
    const cb = vi.fn()
    const off = api.onEvent(cb)
    const [channel, listener] = h.ipcRenderer.on.mock.calls[0]
    expect(channel).toBe(IPC_CHANNELS.event)
    listener({ sender: 'secret' }, { type: 'keys', keys: [] })
    expect(cb).toHaveBeenCalledWith({ type: 'keys', keys: [] })
    expect(cb.mock.calls[0]).toHaveLength(1)
    off()
    expect(h.ipcRenderer.removeListener).toHaveBeenCalledWith(IPC_CHANNELS.event, listener)
  })
})

// ---- handlers.ts, pure parts ----

describe('buildHandlers', () => {
  it('validates before touching the session and reports opened files', async () => {
    const session = { openCapture: vi.fn(async (p?: string) => ({ source: { kind: 'file', path: p ?? '/demo', file: 'x', bytes: 1 } })) } as any
    const onOpened = vi.fn()
    const table = buildHandlers({ session, onOpened })
    await expect(table[requestChannel('openCapture')]({ sender: null }, 7)).rejects.toThrow(TypeError)
    expect(session.openCapture).not.toHaveBeenCalled()
    await table[requestChannel('openCapture')]({ sender: null }, '/caps/b.pcapng')
    expect(onOpened).toHaveBeenCalledWith('/caps/b.pcapng')
  })
})

describe('RecentFiles', () => {
  it('keeps the newest first, without duplicates, at most MAX_RECENT, across restarts', () => {
    const file = join(tmp, 'recent-a.json')
    const r = new RecentFiles(file)
    for (let i = 0; i < MAX_RECENT + 3; i++) r.add(`/c/${i}.pcap`)
    r.add('/c/5.pcap')
    const again = new RecentFiles(file).list()
    expect(again[0]).toBe('/c/5.pcap')
    expect(again).toHaveLength(MAX_RECENT)
    expect(new Set(again).size).toBe(MAX_RECENT)
  })

  it('writes the file owner-only, even one an older version left readable', () => {
    const dir = join(tmp, 'recent-perm')
    mkdirSync(dir)
    const file = join(dir, 'recent.json')
    writeFileSync(file, '[]', { mode: 0o644 })
    new RecentFiles(file).add('/caps/a.pcapng')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const fresh = join(tmp, 'recent-new', 'sub', 'recent.json')
    new RecentFiles(fresh).add('/caps/a.pcapng')
    expect(statSync(fresh).mode & 0o777).toBe(0o600)
    expect(statSync(dirname(fresh)).mode & 0o777).toBe(0o700)
  })

  it('ignores a corrupt or hostile file', () => {
    const file = join(tmp, 'recent-b.json')
    writeFileSync(file, JSON.stringify([1, null, {}, 'x'.repeat(10_000), '/ok.pcap']))
    expect(new RecentFiles(file).list()).toEqual(['/ok.pcap'])
    writeFileSync(file, '{not json')
    expect(new RecentFiles(file).list()).toEqual([])
  })
})

describe('menuTemplate', () => {
  const actions = { open: vi.fn(), openRecent: vi.fn(), clearRecent: vi.fn(), renderer: vi.fn(), startCapture: vi.fn(), stopCapture: vi.fn(), quit: vi.fn() }
  it('enables Start or Stop capture by state and lists recent files', () => {
    const idle = menuTemplate(actions, { recent: ['/a.pcapng'], capturing: false, isMac: false })
    expect(findItem(idle, 'Start Capture…').enabled).toBe(true)
    expect(findItem(idle, 'Stop Capture').enabled).toBe(false)
    findItem(idle, '/a.pcapng').click!()
    expect(actions.openRecent).toHaveBeenCalledWith('/a.pcapng')
    const busy = menuTemplate(actions, { recent: [], capturing: true, isMac: false })
    expect(findItem(busy, 'Stop Capture').enabled).toBe(true)
    expect(findItem(busy, 'No recent captures').enabled).toBe(false)
  })

  it('offers developer tools only in development builds', () => {
    const roles = (t: MenuItemSpec[]): string[] => t.flatMap((i) => [...(i.role ? [i.role] : []), ...roles(i.submenu ?? [])])
    expect(roles(menuTemplate(actions, { recent: [], capturing: false, isMac: false }))).not.toContain('toggleDevTools')
    expect(roles(menuTemplate(actions, { recent: [], capturing: false, isMac: false, devTools: false }))).not.toContain('toggleDevTools')
    expect(roles(menuTemplate(actions, { recent: [], capturing: false, isMac: false, devTools: true }))).toContain('toggleDevTools')
    expect(windowOptions('/p.cjs', { packaged: true }).webPreferences.devTools).toBe(false)
    expect(windowOptions('/p.cjs', { packaged: false }).webPreferences.devTools).toBe(true)
  })
})

describe('appPageMatcher', () => {
  it('uses the dev server only in development and only on loopback', () => {
    const index = '/app/out/renderer/index.html'
    expect(appPageMatcher({ indexFile: index, devUrl: 'http://localhost:5173/', packaged: false }).load).toEqual({ url: 'http://localhost:5173/' })
    expect(appPageMatcher({ indexFile: index, devUrl: 'http://localhost:5173/', packaged: true }).load).toEqual({ file: index })
    expect(appPageMatcher({ indexFile: index, devUrl: 'https://evil.example/', packaged: false }).load).toEqual({ file: index })
    const dev = appPageMatcher({ indexFile: index, devUrl: 'http://localhost:5173/', packaged: false })
    expect(dev.matches('http://localhost:5173/index.html')).toBe(true)
    expect(dev.matches('http://localhost:5174/')).toBe(false)
    const built = appPageMatcher({ indexFile: index, packaged: true })
    expect(built.matches('file:///app/out/renderer/index.html')).toBe(true)
    expect(built.matches('file:///app/out/renderer/other.html')).toBe(false)
    expect(built.matches('http://localhost:5173/')).toBe(false)
  })
})

describe('electronExportTarget', () => {
  it('offers a pcapng or JSON filter and remembers the folder; cancel gives null', async () => {
    const dialog = vi.fn(async (o: { defaultPath: string }) => ({ canceled: false, filePath: `/out/${o.defaultPath.split('/').pop()}` }))
    const target = electronExportTarget(dialog as never, () => '/docs')
    expect(await target({ format: 'json', scope: 'all' }, 'a.json')).toEqual({ path: '/out/a.json', fileName: 'a.json' })
    expect(dialog.mock.calls[0][0]).toMatchObject({ defaultPath: '/docs/a.json', filters: [{ extensions: ['json'] }] })
    await target({ format: 'pcapng', scope: 'all' }, 'b.pcapng')
    expect(dialog.mock.calls[1][0]).toMatchObject({ defaultPath: '/out/b.pcapng', filters: [{ extensions: ['pcapng'] }] })
    dialog.mockResolvedValueOnce({ canceled: true } as never)
    expect(await target({ format: 'json', scope: 'all' }, 'c.json')).toBeNull()
  })
})

describe('commandLineFileArg', () => {
  it('takes the first non-flag argument after the app path', () => {
    expect(commandLineFileArg(['electron', '.', 'a.pcapng', 'b.pcapng'], false)).toBe('a.pcapng')
    expect(commandLineFileArg(['electron', '.', '--flag', '-x', 'a.pcapng'], false)).toBe('a.pcapng')
    expect(commandLineFileArg(['electron', '.'], false)).toBeUndefined()
  })

  it('does not skip an app path in a packaged app, and treats everything after -- as files', () => {
    expect(commandLineFileArg(['gamewire', 'a.pcapng'], true)).toBe('a.pcapng')
    expect(commandLineFileArg(['electron', '.', '--', '-odd-name.pcap'], false)).toBe('-odd-name.pcap')
  })
})

describe('resolveInitialCapture', () => {
  const isFile = (p: string) => p === '/work/caps/a.pcapng'
  it('resolves a relative file against the working directory; a missing one falls back to the demo', () => {
    expect(resolveInitialCapture(['electron', '.', 'caps/a.pcapng'], { packaged: false, cwd: '/work', isFile })).toEqual({ path: '/work/caps/a.pcapng' })
    expect(resolveInitialCapture(['electron', '.', 'nope.pcap'], { packaged: false, cwd: '/work', isFile })).toEqual({ path: undefined, missing: 'nope.pcap' })
    expect(resolveInitialCapture(['electron', '.'], { packaged: false, cwd: '/work', isFile })).toEqual({ path: undefined })
  })
})

describe('hardenWebContents', () => {
  it('denies window.open', () => {
    const contents = h.makeWebContents()
    hardenWebContents(contents as never)
    expect(contents.setWindowOpenHandler.mock.calls[0][0]({ url: 'x' })).toEqual({ action: 'deny' })
  })
})

// ---- paths.ts and the import boundary ----

describe('demoCapturePath', () => {
  it('resolves resources/demo.pcapng under the repo root, from the source tree and from the build', () => {
    expect(demoCapturePath()).toBe(join(repoRoot, 'resources', 'demo.pcapng'))
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
