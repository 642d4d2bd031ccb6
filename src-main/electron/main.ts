// Electron main process: one hardened window, the InspectorApi over IPC, and the capture given on the
// command line (or the demo capture). The logic lives in ./handlers.ts; this file wires it to Electron.

import { statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { app, BrowserWindow, ipcMain, session } from 'electron'
import { IPC_CHANNELS } from '../../src-shared/api'
import { demoCapturePath } from '../host/paths'
import { summarizeCapture } from '../host/summarize'
import {
  buildHandlers,
  createCaptureController,
  hardenWebContents,
  registerHandlers,
  resolveInitialCapture,
  windowOptions
} from './handlers'

const here = dirname(fileURLToPath(import.meta.url))

let mainWindow: BrowserWindow | null = null

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow(windowOptions(join(here, '../preload/preload.cjs')))
  win.on('ready-to-show', () => win.show())
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null
  })
  const devUrl = process.env.ELECTRON_RENDERER_URL
  const loading = !app.isPackaged && devUrl ? win.loadURL(devUrl) : win.loadFile(join(here, '../renderer/index.html'))
  Promise.resolve(loading).catch((err: unknown) => console.error('gamewire: failed to load the UI:', err))
  return win
}

async function main(): Promise<void> {
  const controller = createCaptureController({
    summarize: summarizeCapture,
    demoCapturePath,
    sendProgress: (p) => mainWindow?.webContents.send(IPC_CHANNELS.progress, p)
  })
  // Only our own window may call the API.
  registerHandlers(
    ipcMain,
    buildHandlers(controller, (event) => mainWindow !== null && event.sender === mainWindow.webContents)
  )

  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents))
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })

  await app.whenReady()

  // The renderer needs no camera, microphone, notifications, geolocation...: refuse every permission
  // request except writing to the clipboard (copy hex / JSON).
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback) =>
    callback(permission === 'clipboard-sanitized-write')
  )

  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow()
  })
  mainWindow = createWindow()

  const initial = resolveInitialCapture(process.argv, { packaged: app.isPackaged, cwd: process.cwd(), isFile })
  if (initial.missing !== undefined) {
    console.warn(`gamewire: no such file: ${initial.missing}; opening the demo capture`)
  }
  controller.open(initial.path).catch((err: unknown) => {
    console.error(`gamewire: could not open ${initial.path ?? 'the demo capture'}:`, err)
  })
}

/** Settles once the window exists and the first capture is being opened (used by the tests). */
export const ready: Promise<void> = main().catch((err: unknown) => {
  console.error('gamewire: startup failed:', err)
  app.exit(1)
})
