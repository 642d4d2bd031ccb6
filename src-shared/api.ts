// The typed API the renderer talks to. The Electron preload implements it over IPC now; a WebSocket
// client for `gamewire serve` will implement the same interface later. Only plain, structured-clone
// friendly data crosses it.

import type { ConversationInfo } from './model/types'

/** What opening a capture produced: the whole-file numbers and one row per conversation. */
export interface CaptureSummary {
  /** Path of the capture file that was opened. */
  file: string
  frames: number
  messages: number
  conversations: ConversationInfo[]
  warnings: string[]
}

/** Progress of reading a capture file, in bytes. */
export interface CaptureProgress {
  bytes: number
  total: number
}

export interface InspectorApi {
  /** Opens and summarizes a capture file. Without a path, opens the bundled demo capture. */
  openCapture(path?: string): Promise<CaptureSummary>
  /** The summary of the capture currently open (waiting for one being opened), or null if none. */
  getSummary(): Promise<CaptureSummary | null>
  /** Subscribes to read progress of the capture being opened. Returns the unsubscribe function. */
  onProgress(cb: (progress: CaptureProgress) => void): () => void
}

/** IPC channel names shared by the Electron main process and the preload. */
export const IPC_CHANNELS = {
  openCapture: 'gamewire:open-capture',
  getSummary: 'gamewire:get-summary',
  /** main -> renderer event carrying a CaptureProgress. */
  progress: 'gamewire:progress'
} as const

/** The channels the main process answers with `ipcMain.handle` (renderer -> main requests). */
export const INVOKE_CHANNELS = [IPC_CHANNELS.openCapture, IPC_CHANNELS.getSummary] as const

export type InvokeChannel = (typeof INVOKE_CHANNELS)[number]

export const MAX_PATH_LENGTH = 4096

/**
 * Validates the arguments of `openCapture` as received from the untrusted side of the API.
 * Accepts no argument, a single `undefined`, or a single non-empty string of at most
 * MAX_PATH_LENGTH characters without NUL bytes. Throws on anything else.
 */
export function validateOpenCaptureArgs(args: unknown[]): { path?: string } {
  if (!Array.isArray(args)) throw new TypeError('openCapture: arguments must be an array')
  if (args.length > 1) throw new TypeError(`openCapture: expected at most 1 argument, got ${args.length}`)
  const path = args[0]
  if (path === undefined) return {}
  if (typeof path !== 'string') throw new TypeError(`openCapture: path must be a string, got ${describe(path)}`)
  if (path.length === 0) throw new TypeError('openCapture: path must not be empty')
  if (path.length > MAX_PATH_LENGTH) throw new TypeError(`openCapture: path longer than ${MAX_PATH_LENGTH} characters`)
  if (path.includes('\0')) throw new TypeError('openCapture: path must not contain NUL bytes')
  return { path }
}

/** Validates that a request which takes no arguments got none. Throws otherwise. */
export function validateNoArgs(name: string, args: unknown[]): void {
  if (!Array.isArray(args) || args.length !== 0) {
    throw new TypeError(`${name}: expected no arguments`)
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}
