// App state: which capture is open and how far opening it got. Talks to the engine only through
// the InspectorApi passed to start() (window.api in Electron; undefined in a plain browser).

import { create } from 'zustand'
import type { CaptureProgress, CaptureSummary, InspectorApi } from '../../src-shared/api'

export type Status = 'idle' | 'no-engine' | 'loading' | 'ready' | 'error'

export interface InspectorState {
  status: Status
  summary: CaptureSummary | null
  progress: CaptureProgress | null
  error: string | null
  /** Connects to the engine: shows the capture already open, or opens the demo capture. Runs once. */
  start(api: InspectorApi | undefined): Promise<void>
  /** Opens a capture file (the demo capture without a path). */
  open(path?: string): Promise<void>
}

/** Electron prefixes errors thrown in the main process; keep only the message. */
export function errorMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err)
  return text.replace(/^Error invoking remote method '[^']*': (?:\w*Error: )?/, '')
}

export const useInspector = create<InspectorState>()((set, get) => {
  let api: InspectorApi | undefined

  const load = async (request: () => Promise<CaptureSummary | null>): Promise<void> => {
    set({ status: 'loading', progress: null, error: null })
    try {
      const summary = await request()
      set({ status: 'ready', summary, progress: null })
    } catch (err) {
      set({ status: 'error', error: errorMessage(err), progress: null })
    }
  }

  return {
    status: 'idle',
    summary: null,
    progress: null,
    error: null,

    async start(engine) {
      if (get().status !== 'idle') return
      if (!engine) {
        set({ status: 'no-engine' })
        return
      }
      api = engine
      engine.onProgress((progress) => {
        if (get().status === 'loading') set({ progress })
      })
      await load(async () => (await engine.getSummary()) ?? (await engine.openCapture()))
    },

    async open(path) {
      const engine = api
      if (!engine) return
      await load(() => engine.openCapture(path))
    }
  }
})
