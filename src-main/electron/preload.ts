// Preload (built as CommonJS so it runs with sandbox: true). Exposes exactly the InspectorApi as
// `window.api`; the renderer never sees ipcRenderer or IPC events. Every request is one invoke channel,
// validated again in the main process.

import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron'
import { IPC_CHANNELS, REQUEST_NAMES, requestChannel, type InspectorApi, type InspectorEvent, type InspectorRequests } from '../../src-shared/api'

const requests = {} as Record<string, (...args: unknown[]) => Promise<unknown>>
for (const name of REQUEST_NAMES) {
  requests[name] = (...args: unknown[]) => ipcRenderer.invoke(requestChannel(name), ...args)
}

const api: InspectorApi = {
  ...(requests as unknown as InspectorRequests),
  shell: 'electron',
  onEvent: (cb) => {
    const listener = (_event: IpcRendererEvent, e: InspectorEvent): void => cb(e)
    ipcRenderer.on(IPC_CHANNELS.event, listener)
    return () => {
      ipcRenderer.removeListener(IPC_CHANNELS.event, listener)
    }
  },
  chooseCapture: () => ipcRenderer.invoke(IPC_CHANNELS.chooseCapture),
  pathForFile: (file) => webUtils.getPathForFile(file as File) // the renderer hands over the dropped DOM File itself
}

contextBridge.exposeInMainWorld('api', api)
