// The detail checkpoints are taken in the background: between its slices, that work waits until no
// foreground work (a request from the app; a filter, an export or a re-decode yielding between its slices)
// has run for IDLE_MS.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { foregroundActivity, IDLE_MS, idleTick, tick } from '../../../src-main/host/session/cancel'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate', 'performance'] })
})
afterEach(() => {
  vi.useRealTimers()
})

describe('idleTick', () => {
  it('waits while foreground work keeps running, and goes on IDLE_MS after it stopped', async () => {
    const step = Math.floor(IDLE_MS / 2)
    let resumed = false
    void tick() // long foreground work yields
    void idleTick().then(() => (resumed = true))
    for (let i = 0; i < 10; i++) {
      await vi.advanceTimersByTimeAsync(step)
      if (i % 2) void tick()
      else foregroundActivity() // a request from the app
      expect(resumed).toBe(false)
    }
    await vi.advanceTimersByTimeAsync(step)
    expect(resumed).toBe(false) // half of IDLE_MS since the last foreground work
    await vi.advanceTimersByTimeAsync(IDLE_MS + step)
    expect(resumed).toBe(true)
  })

  it('goes on at once when no foreground work has run lately', async () => {
    await vi.advanceTimersByTimeAsync(10 * IDLE_MS)
    let resumed = false
    void idleTick().then(() => (resumed = true))
    await vi.advanceTimersByTimeAsync(1)
    expect(resumed).toBe(true)
  })
})
