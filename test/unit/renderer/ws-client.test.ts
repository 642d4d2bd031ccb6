// The browser's API client over `gamewire serve`'s WebSocket, against a stand-in socket and fake timers: a
// request sent waits for its answer however long the host works (a diff of two captures of hours takes
// minutes; it used to fail after two minutes while the host went on), a dropped connection fails the
// requests sent on it, and a request made while the connection is down fails after CONNECT_TIMEOUT_MS.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { CONNECT_TIMEOUT_MS, createWebSocketApi } from '../../../src-renderer/src/api/ws-client'

/** A WebSocket that records what is sent and lets the test open, answer and close it. */
class StandInSocket {
  static made: StandInSocket[] = []
  sent: { id: number; method: string; args: unknown[] }[] = []
  onopen: (() => void) | null = null
  onmessage: ((m: { data: string }) => void) | null = null
  onclose: (() => void) | null = null
  constructor(readonly url: string) {
    StandInSocket.made.push(this)
  }
  send(text: string): void {
    this.sent.push(JSON.parse(text))
  }
  answer(id: number, result: unknown): void {
    this.onmessage?.({ data: JSON.stringify({ id, result }) })
  }
}

beforeEach(() => {
  vi.useFakeTimers()
  StandInSocket.made = []
  vi.stubGlobal('WebSocket', StandInSocket)
})
afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

describe('the serve API client', () => {
  it('waits for an answer however long the host works, and fails the requests of a dropped connection', async () => {
    const api = createWebSocketApi('t', 'ws://host/api')
    const socket = StandInSocket.made[0]
    socket.onopen?.()
    const diff = api.diffWith('/b.pcapng')
    let settled: string | null = null
    diff.then(
      () => (settled = 'answered'),
      (e: Error) => (settled = e.message)
    )
    await vi.advanceTimersByTimeAsync(0)
    expect(socket.sent).toEqual([{ id: 1, method: 'diffWith', args: ['/b.pcapng'] }])
    // Twenty minutes of work: still waiting, then the answer.
    await vi.advanceTimersByTimeAsync(20 * 60_000)
    expect(settled).toBe(null)
    socket.answer(1, { pairs: 3 })
    await expect(diff).resolves.toEqual({ pairs: 3 })
    // The connection drops while a request waits: it fails at once.
    const rooms = api.getRooms()
    await vi.advanceTimersByTimeAsync(0)
    socket.onclose?.()
    await expect(rooms).rejects.toThrow(/connection to gamewire was lost/)
  })

  it('a request made while the connection is down waits for it, and fails after the connect timeout', async () => {
    const api = createWebSocketApi('t', 'ws://host/api')
    const first = StandInSocket.made[0]
    first.onopen?.()
    first.onclose?.()
    // Reconnecting: the request waits for the new socket and goes once it opens.
    const status = api.getStatus()
    await vi.advanceTimersByTimeAsync(300)
    const second = StandInSocket.made[1]
    second.onopen?.()
    await vi.advanceTimersByTimeAsync(0)
    const sent = second.sent.find((m) => m.method === 'getStatus')!
    second.answer(sent.id, { phase: 'ready' })
    await expect(status).resolves.toEqual({ phase: 'ready' })
    // Down for good: a request fails after CONNECT_TIMEOUT_MS, not before.
    second.onclose?.()
    const late = api.getRooms()
    let failed: string | null = null
    late.catch((e: Error) => (failed = e.message))
    await vi.advanceTimersByTimeAsync(CONNECT_TIMEOUT_MS - 1000)
    expect(failed).toBe(null)
    await vi.advanceTimersByTimeAsync(2000)
    expect(failed).toBe('getRooms: no connection to gamewire')
  })
})
