// Electron main process: one hardened window, the native menu, the InspectorApi over IPC backed by the
// host session (decoding on a worker thread), keys persisted in the user-data folder, and the capture
// given on the command line (or the demo capture). The logic lives in ./handlers.ts; this file wires it.

import { statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { app, BrowserWindow, dialog, ipcMain, Menu, session } from 'electron'
import { IPC_CHANNELS, type InspectorEvent, type MenuAction } from '../../src-shared/api'
import { InspectorSession } from '../host/inspector-session'
import { demoCapturePath } from '../host/paths'
import { RENDERER_CSP } from '../host/renderer-files'
import {
  RecentFiles,
  appPageMatcher,
  buildHandlers,
  isOwnPage,
  electronExportTarget,
  hardenWebContents,
  menuTemplate,
  registerHandlers,
  resolveInitialCapture,
  windowOptions
} from './handlers'

const here = dirname(fileURLToPath(import.meta.url))

let mainWindow: BrowserWindow | null = null
let capturing = false

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

const CAPTURE_FILTERS = [
  { name: 'Captures', extensions: ['pcapng', 'pcap', 'cap'] },
  { name: 'All files', extensions: ['*'] }
]

/** The page the window shows, and how IPC recognises it. */
const appPage = appPageMatcher({ indexFile: join(here, '../renderer/index.html'), devUrl: process.env.ELECTRON_RENDERER_URL, packaged: app.isPackaged })

function createWindow(): BrowserWindow {
  const win = new BrowserWindow(windowOptions(join(here, '../preload/preload.cjs'), { packaged: app.isPackaged }))
  win.on('ready-to-show', () => win.show())
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null
  })
  const loading = 'url' in appPage.load ? win.loadURL(appPage.load.url) : win.loadFile(appPage.load.file)
  Promise.resolve(loading).catch((err: unknown) => console.error('gamewire: failed to load the UI:', err))
  return win
}

function send(event: InspectorEvent): void {
  mainWindow?.webContents.send(IPC_CHANNELS.event, event)
}

async function main(): Promise<void> {
  const userData = app.getPath('userData')
  const recent = new RecentFiles(join(userData, 'recent.json'))
  const inspector = new InspectorSession({
    keysDir: userData,
    demoCapturePath,
    exportTarget: electronExportTarget(
      (options) => (mainWindow ? dialog.showSaveDialog(mainWindow, options) : dialog.showSaveDialog(options)),
      () => app.getPath('documents')
    )
  })
  inspector.onEvent((e) => {
    if (e.type === 'status') {
      const now = e.status.captureState.state === 'capturing'
      if (now !== capturing) {
        capturing = now
        buildMenu()
      }
    }
    send(e)
  })

  const chooseCaptureFile = async (): Promise<string | null> => {
    const options = { title: 'Open capture', properties: ['openFile' as const], filters: CAPTURE_FILTERS }
    const r = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options)
    return r.canceled ? null : (r.filePaths[0] ?? null)
  }
  const opened = (path: string): void => {
    recent.add(path)
    buildMenu()
    app.addRecentDocument?.(path)
  }
  const openAndReport = (path: string): void => {
    inspector.openCapture(path).then(
      () => opened(path),
      (err: Error) => dialog.showErrorBox('Could not open the capture', err.message)
    )
  }
  const menuAction = (action: MenuAction): void => send({ type: 'menu', action })

  function buildMenu(): void {
    const template = menuTemplate(
      {
        open: () => void chooseCaptureFile().then((p) => p && openAndReport(p)),
        openRecent: openAndReport,
        clearRecent: () => {
          recent.clear()
          buildMenu()
        },
        renderer: menuAction,
        // The renderer's capture panel picks the device, filter and options.
        startCapture: () => menuAction('capture'),
        stopCapture: () => void inspector.stopCapture().catch((e: Error) => dialog.showErrorBox('Live capture', e.message)),
        quit: () => app.quit()
      },
      { recent: recent.list(), capturing, isMac: process.platform === 'darwin', devTools: !app.isPackaged }
    )
    Menu.setApplicationMenu(Menu.buildFromTemplate(template as Parameters<typeof Menu.buildFromTemplate>[0]))
  }

  registerHandlers(
    ipcMain,
    buildHandlers({
      session: inspector,
      isTrustedSender: (event) => isOwnPage(event, mainWindow?.webContents ?? null, appPage.matches),
      chooseCaptureFile,
      onOpened: opened
    })
  )

  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents))
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })
  app.on('will-quit', () => void inspector.close())

  await app.whenReady()

  // The renderer needs no camera, microphone, notifications, geolocation...: refuse every permission
  // request except writing to the clipboard (copy value / copy as filter).
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback) => callback(permission === 'clipboard-sanitized-write'))
  // Checks (navigator.permissions.query, some APIs before asking) get the same answer as requests.
  session.defaultSession.setPermissionCheckHandler?.((_contents, permission) => permission === 'clipboard-sanitized-write')
  session.defaultSession.webRequest?.onHeadersReceived((details, callback) =>
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [RENDERER_CSP] } })
  )

  buildMenu()
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow()
  })
  mainWindow = createWindow()

  const initial = resolveInitialCapture(process.argv, { packaged: app.isPackaged, cwd: process.cwd(), isFile })
  if (initial.missing !== undefined) console.warn(`gamewire: no such file: ${initial.missing}; opening the demo capture`)
  inspector.openCapture(initial.path).then(
    () => initial.path && opened(initial.path),
    (err: unknown) => console.error(`gamewire: could not open ${initial.path ?? 'the demo capture'}:`, err)
  )
}

/** Settles once the window exists and the first capture is being opened (used by the tests). */
export const ready: Promise<void> = main().catch((err: unknown) => {
  console.error('gamewire: startup failed:', err)
  app.exit(1)
})
