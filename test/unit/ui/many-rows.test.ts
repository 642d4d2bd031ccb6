// The timeline with more rows than a browser can lay out as one element (Chromium stops at 33,554,428 px,
// 1,398,101 rows of 24 px): 1,455,900 Photon ACKs, in headless Chromium against `gamewire serve`. The
// scrollbar must reach the last message, the wheel must move by pixels, and the keys must show the row they
// select. The capture is built by construction (its messages are numbered), so the expected rows need no
// gamewire code. Needs the build (`npm run build`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { openPage, startServe } from './harness'
import { ACKS_PER_DATAGRAM, writeManyRowsCapture } from '../helpers/many-rows-capture'

const DATAGRAMS = 21_100
const MESSAGES = DATAGRAMS * ACKS_PER_DATAGRAM // 1,455,900
const ROW = 24
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-many-rows-test-'))
let server: ChildProcess
let browser: Browser
let page: Page
const problems: string[] = []

/** The rows the timeline's viewport shows (partly or whole): their ids, and the first one's offset from the viewport's top. */
async function visible(): Promise<{ ids: number[]; firstTop: number; lastBottom: number }> {
  return page.evaluate(() => {
    const body = document.querySelector('.timeline-body')!.getBoundingClientRect()
    const rows = [...document.querySelectorAll('[data-testid=timeline-row]')]
      .map((r) => ({ id: Number(r.getAttribute('data-id')), rect: r.getBoundingClientRect() }))
      .filter((r) => r.rect.bottom > body.top + 0.5 && r.rect.top < body.bottom - 0.5)
      .sort((a, b) => a.rect.top - b.rect.top)
    return { ids: rows.map((r) => r.id), firstTop: rows[0].rect.top - body.top, lastBottom: rows[rows.length - 1].rect.bottom - body.bottom }
  })
}

/** Moves the scrollbar as a drag of its thumb does, to `fraction` of its range; waits for the rows to arrive. */
async function scrollbarTo(fraction: number): Promise<void> {
  await page.evaluate((f) => {
    const el = document.querySelector('.timeline-body')!
    el.scrollTop = f * (el.scrollHeight - el.clientHeight)
  }, fraction)
  await shown()
}

/** Waits until fetched rows cover the viewport from top to bottom and the view is done. */
async function shown(): Promise<void> {
  await page.waitForFunction(() => {
    const body = document.querySelector('.timeline-body')!.getBoundingClientRect()
    const rows = [...document.querySelectorAll('[data-testid=timeline-row]')].map((r) => r.getBoundingClientRect())
    const covers = (y: number) => rows.some((r) => r.top <= y && r.bottom > y)
    return document.querySelector('[data-testid=timeline]')?.getAttribute('data-view-state') === 'done' && covers(body.top + 1) && covers(body.bottom - 1)
  })
}

beforeAll(async () => {
  const file = join(tmp, 'many.pcapng')
  writeManyRowsCapture(file, DATAGRAMS)
  let url: string
  ;({ server, url } = await startServe([file], join(tmp, 'config')))
  ;({ browser, page } = await openPage(url, problems, { consoleErrors: true }))
  await page.waitForSelector('[data-testid=status-bar][data-phase=ready]', { timeout: 120_000 })
  await page.waitForFunction(
    (n) => {
      const t = document.querySelector('[data-testid=timeline]')
      return t?.getAttribute('data-view-state') === 'done' && t.getAttribute('data-count') === String(n)
    },
    MESSAGES,
    { timeout: 60_000 }
  )
}, 180_000)

afterAll(async () => {
  await browser?.close()
  server?.kill('SIGTERM')
  rmSync(tmp, { recursive: true, force: true })
})

describe('a timeline taller than any element', { timeout: 120_000 }, () => {
  it('the scrollbar reaches the last message, and halfway down shows the middle ones', async () => {
    await scrollbarTo(1)
    let v = await visible()
    expect(v.ids[v.ids.length - 1]).toBe(MESSAGES)
    expect(Math.abs(v.lastBottom)).toBeLessThan(1) // the last row ends at the viewport's bottom
    expect(v.ids).toEqual(Array.from({ length: v.ids.length }, (_, i) => MESSAGES - v.ids.length + 1 + i))
    await scrollbarTo(0.5)
    v = await visible()
    expect(Math.abs(v.ids[0] - MESSAGES / 2)).toBeLessThan(v.ids.length)
    await scrollbarTo(0)
    v = await visible()
    expect(v.ids[0]).toBe(1)
    expect(v.firstTop).toBe(0)
  })

  it('the wheel moves the rows by its pixels, not by the scrollbar’s scale', async () => {
    await scrollbarTo(0.5)
    const before = await visible()
    const box = (await page.locator('.timeline-body').boundingBox())!
    await page.mouse.move(box.x + 200, box.y + 100)
    await page.mouse.wheel(0, 10 * ROW)
    await expect.poll(async () => (await shown(), await visible()).ids[0]).toBe(before.ids[0] + 10)
    await page.mouse.wheel(0, -3 * ROW)
    await expect.poll(async () => (await shown(), await visible()).ids[0]).toBe(before.ids[0] + 7)
    expect((await visible()).firstTop).toBeCloseTo(before.firstTop, 0)
  })

  it('End, Home and the arrows select a row and show it', async () => {
    await scrollbarTo(0.3)
    await page.locator('[data-testid=timeline-row]').nth(5).click()
    const selected = async () => {
      const v = await visible()
      const id = Number(await page.locator('[data-testid=timeline-row][aria-selected=true]').getAttribute('data-id'))
      return { id, shown: v.ids.includes(id) }
    }
    await page.keyboard.press('End')
    await expect.poll(selected).toEqual({ id: MESSAGES, shown: true })
    await page.keyboard.press('ArrowUp')
    await expect.poll(selected).toEqual({ id: MESSAGES - 1, shown: true })
    await page.keyboard.press('Home')
    await expect.poll(selected).toEqual({ id: 1, shown: true })
    await page.keyboard.press('PageDown')
    const afterPage = await selected()
    expect(afterPage.shown).toBe(true)
    expect(afterPage.id).toBeGreaterThan(1)
    // the detail follows the selection to the very last message
    // (its detail replays the one conversation up to it unless the background checkpoints are there yet)
    await page.keyboard.press('End')
    await expect.poll(() => page.locator('[data-testid=detail-tree]').getAttribute('data-message'), { timeout: 30_000 }).toBe(String(MESSAGES))
    expect(await page.locator('[data-testid=detail-tree]').innerText()).toContain(`${MESSAGES - 1}`) // its acked sequence
  })

  it('logged no page errors', () => {
    expect(problems).toEqual([])
  })
})
