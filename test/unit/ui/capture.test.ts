// The capture panel in headless Chromium against a real `gamewire serve` (root, device lo): pick lo,
// a BPF filter for a test port, start, watch rows arrive while Photon traffic is sent, stop, save, and
// read the saved pcapng back with tshark. Runs the build (test/global-build.ts keeps it fresh).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createSocket } from 'node:dgram'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { openPage, startServe } from './harness'
import { pv } from '../protocols/photon/gp-encoder'
import { PhotonPeers } from '../capture-live/photon-traffic'
import { freePort, tsharkFrames } from '../capture-live/runner'

const tmp = mkdtempSync(join(tmpdir(), 'gamewire-capture-ui-'))
let server: ChildProcess
let browser: Browser
let page: Page
const problems: string[] = []

beforeAll(async () => {
  let url: string
  ;({ server, url } = await startServe([], join(tmp, 'config')))
  ;({ browser, page } = await openPage(url, problems))
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.kill('SIGTERM')
  rmSync(tmp, { recursive: true, force: true })
})

const captureState = () => page.locator('[data-testid=capture-state]').innerText()
const rowCount = () => page.locator('[data-testid=timeline]').getAttribute('data-count')

describe('live capture in the browser', { timeout: 60_000 }, () => {
  it('captures on lo from the capture panel: rows arrive while traffic flows; stop, save, tshark reads it', async () => {
    await page.click('[data-testid=capture-button]')
    await page.waitForSelector('[data-testid=capture-panel]')
    await page.waitForSelector('[data-testid=capture-device] option[value="lo"]', { state: 'attached' })
    expect(await page.locator('[data-testid=capture-device] option[value="lo"]').innerText()).toMatch(/loopback/)
    await page.selectOption('[data-testid=capture-device]', 'lo')

    // libpcap's complaint about a bad filter shows inline
    await page.fill('[data-testid=capture-filter]', 'udp port banana')
    await page.click('[data-testid=capture-start]')
    await expect.poll(() => page.locator('[data-testid=capture-filter-error]').innerText(), { timeout: 10_000 }).toMatch(/banana|syntax|filter/i)

    const port = await freePort()
    await page.fill('[data-testid=capture-filter]', `udp port ${port}`)
    await page.click('[data-testid=capture-start]')
    await expect.poll(captureState, { timeout: 10_000 }).toMatch(/Capturing on lo/)
    const peers = await PhotonPeers.open(port)
    try {
      await peers.handshake()
      for (let i = 0; i < 6; i++) await peers.event(100, [[1, pv.int(i)]])
      // 4 handshake datagrams -> CONNECT, VERIFYCONNECT, Init, InitResponse; then 6 events
      await expect.poll(rowCount, { timeout: 10_000 }).toBe('10')
      expect(await captureState()).toMatch(/Capturing on lo/)
      await expect.poll(() => page.locator('[data-testid=timeline-row]').count()).toBe(10)
      expect(await page.locator('[data-testid=timeline-row]').last().innerText()).toContain('100')
      expect(await page.locator('[data-testid=capture-counts]').innerText()).toMatch(/10 frames received · dropped (n\/a|\d+)/)
    } finally {
      peers.close()
    }
    await page.click('[data-testid=capture-stop]')
    await expect.poll(captureState, { timeout: 10_000 }).toBe('Not capturing')
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=capture-save]')])
    const file = join(tmp, 'saved.pcapng')
    await download.saveAs(file)
    expect(download.suggestedFilename()).toMatch(/^capture-lo-.*\.pcapng$/)
    expect(tsharkFrames(file)).toBe(10)
    await expect.poll(() => page.locator('[data-testid=capture-saved]').innerText()).toMatch(/Saved 10 frames/)
    expect(problems).toEqual([])
  })

  it('the conversations panel follows a live capture: frames grow, a new conversation appears', async () => {
    const port = await freePort()
    if (!(await page.locator('[data-testid=capture-panel]').count())) await page.click('[data-testid=capture-button]')
    await page.selectOption('[data-testid=capture-device]', 'lo')
    await page.fill('[data-testid=capture-filter]', `udp port ${port}`)
    await page.click('[data-testid=capture-start]')
    await expect.poll(captureState, { timeout: 10_000 }).toMatch(/Capturing on lo/)
    await page.click('[data-testid=capture-close]')
    const tab = page.locator('[data-testid=panel-conversations]')
    if ((await tab.getAttribute('aria-pressed')) !== 'true') await tab.click()
    const entries = page.locator('[data-testid=conversations] [data-testid=conversation]')
    const frames = (i: number) => entries.nth(i).locator('[data-testid=conv-frames]').innerText()
    const peers = await PhotonPeers.open(port)
    const other = createSocket('udp4')
    try {
      await peers.handshake()
      for (let i = 0; i < 2; i++) await peers.event(100, [[1, pv.int(i)]])
      await expect.poll(() => entries.count(), { timeout: 10_000 }).toBe(1)
      await expect.poll(() => frames(0), { timeout: 10_000 }).toBe('6 frames')
      expect(await entries.first().locator('.proto-badge').innerText()).toBe('photon')
      // more frames on the same conversation: its count follows without a new conversation
      for (let i = 2; i < 5; i++) await peers.event(100, [[1, pv.int(i)]])
      await expect.poll(() => frames(0), { timeout: 10_000 }).toBe('9 frames')
      // another client on the same server port is a second conversation
      await new Promise<void>((r) => other.send(Buffer.from('hello'), port, '127.0.0.1', () => r()))
      await expect.poll(() => page.locator('[data-testid=conversation-count]').innerText(), { timeout: 10_000 }).toBe('2')
      await expect.poll(() => entries.count(), { timeout: 10_000 }).toBe(2)
      expect(await frames(1)).toBe('1 frame')
    } finally {
      other.close()
      peers.close()
    }
    await page.click('[data-testid=capture-button]')
    await page.click('[data-testid=capture-stop]')
    await expect.poll(captureState, { timeout: 10_000 }).toBe('Not capturing')
    expect(problems).toEqual([])
  })
})
