// The InspectorApi over the `gamewire serve` WebSocket (same origin, path /api): requests carry an id,
// answers come back with it, session events arrive as {event}. A dropped connection is re-opened with
// backoff; requests made while it is down wait for it (and fail after a timeout). A request sent waits for
// its answer however long the work takes (comparing two captures of hours takes minutes); the connection
// dropping fails it.

import { REQUEST_NAMES, type InspectorApi, type InspectorEvent, type InspectorRequests, type RequestName } from '../../../src-shared/api'

/** How long a request waits for the connection to come back. */
export const CONNECT_TIMEOUT_MS = 120_000

export class ApiError extends Error {
  constructor(name: string, message: string) {
    super(message)
    this.name = name
  }
}

const TOKEN_KEY = 'gamewire.token'

/**
 * This run's API token: from the page's URL (`gamewire serve` prints it with ?token=…), kept in the tab's
 * session storage so a reload without it still works; null when the page was opened without it.
 */
export function serveToken(): string | null {
  const fromUrl = new URLSearchParams(location.search).get('token')
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl)
    return fromUrl
  }
  return sessionStorage.getItem(TOKEN_KEY)
}

export function createWebSocketApi(
  token: string,
  url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api?token=${encodeURIComponent(token)}`
): InspectorApi {
  const listeners = new Set<(e: InspectorEvent) => void>()
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>()
  let socket: WebSocket | null = null
  let open: Promise<WebSocket> | null = null
  let seq = 0
  let backoff = 250

  const connect = (): Promise<WebSocket> => {
    if (open) return open
    open = new Promise<WebSocket>((resolve) => {
      const ws = new WebSocket(url)
      ws.onopen = () => {
        backoff = 250
        socket = ws
        resolve(ws)
      }
      ws.onmessage = (m) => {
        let msg: { id?: number; result?: unknown; error?: { name: string; message: string }; event?: InspectorEvent }
        try {
          msg = JSON.parse(String(m.data))
        } catch {
          return
        }
        if (msg.event) {
          for (const cb of [...listeners]) cb(msg.event)
          return
        }
        const p = typeof msg.id === 'number' ? pending.get(msg.id) : undefined
        if (!p) return
        pending.delete(msg.id!)
        if (msg.error) p.reject(new ApiError(msg.error.name, msg.error.message))
        else p.resolve(msg.result)
      }
      ws.onclose = () => {
        socket = null
        open = null
        for (const [id, p] of pending) {
          p.reject(new ApiError('ConnectionLost', 'the connection to gamewire was lost'))
          pending.delete(id)
        }
        for (const cb of [...listeners]) cb({ type: 'status', status: disconnectedStatus() })
        // reconnect, with growing pauses
        setTimeout(() => void connect().then(() => resync()), backoff)
        backoff = Math.min(backoff * 2, 5000)
      }
    })
    return open
  }

  /** After a reconnect, fetch the status again so the UI catches up. */
  const resync = (): void => {
    call('getStatus', []).then(
      (status) => {
        for (const cb of [...listeners]) cb({ type: 'status', status: status as never })
      },
      // Lost again before the answer: the next reconnect asks again.
      () => undefined
    )
  }

  /** The open connection, waiting up to CONNECT_TIMEOUT_MS for it to (re)open. */
  const connected = (method: RequestName): Promise<WebSocket> => {
    if (socket) return Promise.resolve(socket)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new ApiError('Timeout', `${method}: no connection to gamewire`)), CONNECT_TIMEOUT_MS)
      void connect().then((ws) => {
        clearTimeout(timer)
        resolve(ws)
      })
    })
  }

  const call = async (method: RequestName, args: unknown[]): Promise<unknown> => {
    const ws = await connected(method)
    const id = ++seq
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject })
      ws.send(JSON.stringify({ id, method, args }))
    })
  }

  const requests = {} as Record<string, (...args: unknown[]) => Promise<unknown>>
  for (const name of REQUEST_NAMES) {
    // JSON has no undefined: drop trailing undefined arguments (openCapture() = the demo capture)
    requests[name] = (...args: unknown[]) => {
      while (args.length && args[args.length - 1] === undefined) args.pop()
      return call(name, args)
    }
  }
  void connect()

  return {
    ...(requests as unknown as InspectorRequests),
    shell: 'browser',
    onEvent(cb) {
      listeners.add(cb)
      return () => {
        listeners.delete(cb)
      }
    }
  }
}

function disconnectedStatus() {
  return {
    generation: -1,
    source: null,
    phase: 'error' as const,
    progress: null,
    frames: 0,
    messages: 0,
    timeOrigin: null,
    errors: 0,
    warned: 0,
    warnings: [],
    linkTypes: [],
    conversations: 0,
    captureState: { state: 'off' as const },
    keys: 0,
    decodeAs: [],
    error: 'Disconnected from gamewire: reconnecting…'
  }
}
