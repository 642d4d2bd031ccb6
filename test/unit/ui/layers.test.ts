// The frame under the message in the browser UI (`gamewire serve` + headless Chromium): a summary's
// "→ frame N" is a link that moves the selection to the message frame N carries; the detail tree starts
// with the frame group and the hex view with its Frame N tab, and a layer field marks its bytes there;
// the column chooser offers the frame numbers. Needs the build (`npm test` builds first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { BIN, openPage, ROOT, startServe } from './harness'

const ENET = join(ROOT, 'test/fixtures/enet/enet-fignet-loopback.pcapng')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-layers-ui-'))

let server: ChildProcess
let browser: Browser
let page: Page
const problems: string[] = []

/** The messages as `gamewire decode --layers` gives them (the independent reference for what the UI shows). */
function decoded(): { id: number; frames: number[]; summary: string; tree: any[]; sources: { name: string }[] }[] {
  const r = spawnSync(process.execPath, [BIN, 'decode', ENET, '--format', 'ndjson', '--layers', '--jobs', '1'], { encoding: 'utf8', maxBuffer: 256 << 20 })
  expect(r.status).toBe(0)
  return r.stdout
    .trim()
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l))
}

const selectedRow = () => page.locator('[data-testid=timeline-row][aria-selected="true"]').getAttribute('data-id')
const detailId = () => page.locator('[data-testid=detail-tree]').getAttribute('data-message')

beforeAll(async () => {
  ;({ server } = await startServe([ENET], join(tmp, 'config')).then(async (s) => {
    ;({ browser, page } = await openPage(s.url, problems, { consoleErrors: true }))
    return s
  }))
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.kill('SIGTERM')
  rmSync(tmp, { recursive: true, force: true })
})

describe('frames in the browser UI', { timeout: 60_000 }, () => {
  const messages = decoded()

  it('a "→ frame N" link in a summary selects the message frame N carries', async () => {
    await page.waitForSelector('[data-testid=timeline-row][data-id="9"] [data-testid=frame-link]')
    // Message 9 is "ACK ch0 seq=1 → frame 7": it acknowledges the command sent in frame 7.
    const ack = messages[8]
    expect(ack.summary).toMatch(/→ frame 7\b/)
    const target = messages.find((m) => m.frames[0] === 7 || m.frames.at(-1) === 7)!
    expect(target.id).not.toBe(9)
    await page.locator('[data-testid=timeline-row][data-id="1"]').click()
    await expect.poll(selectedRow).toBe('1')
    await page.locator('[data-testid=timeline-row][data-id="9"] [data-testid=frame-link][data-frame="7"]').click()
    await expect.poll(selectedRow).toBe(String(target.id))
    await expect.poll(detailId).toBe(String(target.id))
    // And a second link moves it again.
    const later = messages.find((m) => m.id > 9 && /→ frame \d+/.test(m.summary))!
    const n = Number(/→ frame (\d+)/.exec(later.summary)![1])
    const carried = messages.find((m) => m.frames[0] === n || m.frames.at(-1) === n)!
    await page.locator(`[data-testid=timeline-row][data-id="${later.id}"] [data-testid=frame-link][data-frame="${n}"]`).click()
    await expect.poll(selectedRow).toBe(String(carried.id))
  })

  it('the tree starts with the frame group, the hex view with its Frame N tab; a layer field marks its bytes', async () => {
    const m = messages[2]
    await page.locator(`[data-testid=timeline-row][data-id="${m.id}"]`).click()
    await page.waitForSelector(`[data-testid=detail-tree][data-message="${m.id}"] [data-testid=tree-node]`)
    const first = page.locator('[data-testid=tree-node]').first()
    expect(await first.getAttribute('data-key')).toBe('frame')
    expect(await first.innerText()).toContain(`Frame ${m.frames[0]}:`)
    const tabs = await page.locator('[data-testid=hex-tab]').allInnerTexts()
    expect(tabs.map((t) => t.split(' ').slice(0, 2).join(' '))).toEqual(m.sources.map((s) => s.name))
    expect(tabs[0]).toMatch(new RegExp(`^Frame ${m.frames[0]}\\b`))
    // Open the frame group, then its IPv4 header, and pick the TTL: one byte, marked in the Frame tab.
    await first.locator('.twisty').click()
    const ipNode = page.locator('[data-testid=tree-node][data-key="ip"]')
    await ipNode.locator('.twisty').click()
    await page.locator('[data-testid=tree-node][data-key="ip.ttl"]').click()
    const ip = m.tree[0].children.find((n: any) => n.key === 'ip')
    const ttl = ip.children.find((n: any) => n.key === 'ip.ttl')
    await expect.poll(() => page.locator('[data-testid=hex-view]').getAttribute('data-source')).toBe('0')
    const sel = await page.$$eval('[data-testid=hex-view] .byte[data-selected="true"]', (els) =>
      els.map((e) => [Number(e.getAttribute('data-offset')), e.textContent])
    )
    expect(sel).toEqual([[ttl.start, ttl.value.toString(16).padStart(2, '0')]])
    // Clicking the protocol's own field switches to its payload tab.
    const own = page.locator('[data-testid=tree-node][data-path="1"]')
    expect(await own.getAttribute('data-key')).toBe(m.tree[1].key)
    await own.click()
    await expect.poll(() => page.locator('[data-testid=hex-view]').getAttribute('data-source')).toBe(String(m.tree[1].source))
    expect(m.tree[1].source).toBe(m.frames.length)
  })

  it('the column chooser offers the frame numbers first', async () => {
    await page.locator('.th-add button').click()
    const firstField = page.locator('.column-picker li button').first()
    expect(await firstField.locator('.mono').innerText()).toBe('frame.number')
    await firstField.click()
    await page.waitForSelector('[role=columnheader]:has-text("frame.number")')
    const cell = await page.locator('[data-testid=timeline-row][data-id="1"] .td.extra').innerText()
    expect(cell).toBe(messages[0].frames.join(', '))
  })

  it('logged no page errors', () => {
    expect(problems).toEqual([])
  })
})
