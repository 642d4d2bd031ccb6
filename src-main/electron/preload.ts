// Preload (built as CommonJS so it runs with sandbox: true). Exposes exactly the InspectorApi as
// `window.api`; the renderer never sees ipcRenderer or IPC events.

import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { IPC_CHANNELS, type CaptureProgress, type InspectorApi } from '../../src-shared/api'

const api: InspectorApi = {
  openCapture: (path) =>
    path === undefined ? ipcRenderer.invoke(IPC_CHANNELS.openCapture) : ipcRenderer.invoke(IPC_CHANNELS.openCapture, path),
  getSummary: () => ipcRenderer.invoke(IPC_CHANNELS.getSummary),
  onProgress: (cb) => {
    const listener = (_event: IpcRendererEvent, progress: CaptureProgress): void => cb(progress)
    ipcRenderer.on(IPC_CHANNELS.progress, listener)
    return () => {
      ipcRenderer.removeListener(IPC_CHANNELS.progress, listener)
    }
  }
}

contextBridge.exposeInMainWorld('api', api)
