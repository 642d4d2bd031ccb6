// The timeline as a Wireshark user drives it, in headless Chromium against `gamewire serve`: header clicks
// sort (built-in and added columns: ascending, descending, capture order, aria-sort and the arrow), the
// filter bar rejects unknown names and mistyped values with their position, Shift+click selects a range
// that "export selected" writes exactly, the column picker adds on Enter and lists the capture's own
// fields first, and a filter that needs the field trees shows its progress while the page stays usable.
// The reference for orders and contents is `gamewire decode` on the same capture. Screenshots go to
// test/artifacts/. Needs the build (`npm run build`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { BIN, openPage, ROOT, startServe, exportTo } from './harness'
import { writeGameCapture } from '../../bench/game-traffic'

const PHOTON = join(ROOT, 'test/fixtures/ui/photon-session.pcapng')
const ARTIFACTS = join(ROOT, 'test/artifacts')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-timeline-test-'))

let server: ChildProcess
let browser: Browser
let page: Page
const problems: string[] = []

interface Node {
  key: string
  value?: unknown
  children?: Node[]
}
interface Message {
  id: number
  name: string
  time: number
  tree: Node[]
  sources: { length: number }[]
}

function cli(args: string[]): string {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 256 << 20 })
  if (r.status !== 0) throw new Error(`gamewire ${args.join(' ')} failed: ${r.stderr}`)
  return r.stdout
}

function decode(file: string, filter?: string): Message[] {
  const out = cli(['decode', file, '--format', 'ndjson', ...(filter ? ['--filter', filter] : [])])
  return out
    .trim()
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l) as Message)
}

/** The values of `key` in a message's tree, as the timeline cell shows them (joined with ', '). */
function cell(m: Message, key: string): string {
  const out: string[] = []
  const walk = (nodes: Node[]) => {
    for (const n of nodes) {
      if (n.key === key && n.value !== undefined) out.push(String(n.value))
      if (n.children) walk(n.children)
    }
  }
  walk(m.tree)
  return out.join(', ')
}

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `ui-timeline-${name}.png`) })
const rowIds = async (): Promise<number[]> =>
  await page.locator('[data-testid=timeline-row]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-id'))))
const header = (column: string) => page.locator(`[role=columnheader]:has([data-testid=column-header][data-column="${column}"])`)

async function waitForView(count?: number): Promise<void> {
  await page.waitForFunction((n) => {
    const t = document.querySelector('[data-testid=timeline]')
    return t?.getAttribute('data-view-state') === 'done' && (n === null || t.getAttribute('data-count') === String(n))
  }, count ?? null)
}

async function typeFilter(text: string, apply = true): Promise<void> {
  await page.locator('[data-testid=filter-input] .monaco-editor').waitFor()
  await page.click('[data-testid=filter-input]')
  await page.keyboard.press('Control+A')
  await page.keyboard.press('Backspace')
  if (text) await page.keyboard.type(text, { delay: 5 })
  await page.keyboard.press('Escape')
  await page.waitForFunction((t) => document.querySelector('[data-testid=filter-input]')?.getAttribute('data-value') === t, text)
  if (apply) {
    await page.click('[data-testid=filter-input]')
    await page.keyboard.press('End')
    await page.keyboard.press('Enter')
  }
}

/** Clicks a header and waits for the sorted view's first rows. */
async function clickHeader(column: string, ariaSort: string): Promise<number[]> {
  await page.locator(`[data-testid=column-header][data-column="${column}"]`).click()
  await expect.poll(() => header(column).getAttribute('aria-sort')).toBe(ariaSort)
  await waitForView()
  return rowIds()
}

/** The first `n` ids of `messages` sorted by `key` (ties in capture order), as the host sorts. */
function firstSorted(messages: Message[], key: (m: Message) => string | number, desc: boolean, n: number, cellOrder = false): number[] {
  const cmp = (a: Message, b: Message): number => {
    const x = key(a)
    const y = key(b)
    if (cellOrder) {
      const [xs, ys] = [String(x), String(y)]
      if (xs === '' || ys === '') return xs === ys ? 0 : xs === '' ? -1 : 1
      return Number(xs) - Number(ys)
    }
    return typeof x === 'number' ? x - (y as number) : String(x).localeCompare(String(y))
  }
  return [...messages]
    .sort((a, b) => (desc ? -cmp(a, b) : cmp(a, b)) || a.id - b.id)
    .slice(0, n)
    .map((m) => m.id)
}

let all: Message[]

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  all = decode(PHOTON)
  let url: string
  ;({ server, url } = await startServe([PHOTON], join(tmp, 'config')))
  ;({ browser, page } = await openPage(url, problems, { consoleErrors: true }))
  await waitForView(all.length)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.kill('SIGTERM')
  rmSync(tmp, { recursive: true, force: true })
})

describe('the timeline in a browser', { timeout: 90_000 }, () => {
  it('sorts a built-in column: ascending, descending, then capture order, with aria-sort and the arrow', async () => {
    expect(await header('name').getAttribute('aria-sort')).toBe('none')
    const shown = (await rowIds()).length
    expect(shown).toBeGreaterThan(10)
    const asc = await clickHeader('name', 'ascending')
    expect(asc).toEqual(firstSorted(all, (m) => m.name, false, asc.length))
    expect(asc.length).toBe(shown)
    expect(await header('name').locator('.sort-mark').innerText()).toBe('▲')
    await shot('sort-name-asc')
    const desc = await clickHeader('name', 'descending')
    expect(desc).toEqual(firstSorted(all, (m) => m.name, true, desc.length))
    expect(desc).not.toEqual(asc)
    expect(await header('name').locator('.sort-mark').innerText()).toBe('▼')
    const back = await clickHeader('name', 'none')
    expect(back).toEqual(all.slice(0, back.length).map((m) => m.id))
    expect(await header('name').locator('.sort-mark').count()).toBe(0)
    // another column: length, as numbers
    const byLength = await clickHeader('length', 'ascending')
    expect(byLength).toEqual(firstSorted(all, (m) => m.sources[0]?.length ?? 0, false, byLength.length))
    expect(await header('name').getAttribute('aria-sort')).toBe('none')
    await clickHeader('length', 'descending')
    await clickHeader('length', 'none')
  })

  it("the Time header's rel/abs button shows seconds since the first message or clock time, by click and by keyboard, without sorting", async () => {
    const mode = page.locator('[data-testid=time-mode]')
    expect(await mode.innerText()).toBe('REL') // upper case by style; the default is relative
    const timeCells = async () =>
      await page
        .locator('[data-testid=timeline-row]')
        .evaluateAll((els) => els.slice(0, 6).map((e) => [Number(e.getAttribute('data-id')), e.querySelectorAll('[role=gridcell]')[1]?.textContent]))
    const byId = new Map(all.map((m) => [m.id, m.time]))
    const first = Math.min(...all.map((m) => m.time))
    // The app's clock format, in this machine's time zone (Chromium's too): HH:MM:SS.mmm.
    const clock = (t: number) => {
      const d = new Date(t * 1000)
      const p = (v: number, n = 2) => String(v).padStart(n, '0')
      return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`
    }
    const relative = await timeCells()
    expect(relative.length).toBe(6)
    expect(relative).toEqual(relative.map(([id]) => [id, (byId.get(id as number)! - first).toFixed(6)]))
    await mode.click()
    await expect.poll(() => mode.innerText()).toBe('ABS')
    const absolute = await timeCells()
    expect(absolute).toEqual(relative.map(([id]) => [id, clock(byId.get(id as number)!)]))
    expect(absolute).not.toEqual(relative)
    // the click did not sort by time
    expect(await header('time').getAttribute('aria-sort')).toBe('none')
    expect(absolute.map(([id]) => id)).toEqual(all.slice(0, 6).map((m) => m.id))
    // Tab from the Time header reaches the button; Enter switches back
    await page.locator('[data-testid=column-header][data-column="time"]').focus()
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('time-mode')
    await page.keyboard.press('Enter')
    await expect.poll(() => mode.innerText()).toBe('REL')
    expect(await timeCells()).toEqual(relative)
    expect(await header('time').getAttribute('aria-sort')).toBe('none')
  })

  it('resizes a column by dragging its header edge: the header and its cells follow; a double-click restores it', async () => {
    const name = header('name')
    const headers = await page
      .locator('[role=columnheader]')
      .evaluateAll((els) => els.map((e) => e.querySelector('[data-testid=column-header]')?.getAttribute('data-column')))
    const column = headers.indexOf('name')
    expect(column).toBeGreaterThan(0)
    const cellWidth = () =>
      page
        .locator('[data-testid=timeline-row]')
        .first()
        .locator('[role=gridcell]')
        .nth(column)
        .evaluate((e) => e.getBoundingClientRect().width)
    const before = (await name.boundingBox())!
    const handle = (await name.locator('.resizer').boundingBox())!
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2)
    await page.mouse.down()
    await page.mouse.move(handle.x + handle.width / 2 + 40, handle.y + handle.height / 2, { steps: 4 })
    await page.mouse.move(handle.x + handle.width / 2 + 90, handle.y + handle.height / 2, { steps: 4 })
    await page.mouse.up()
    const after = (await name.boundingBox())!
    expect(after.width).toBeGreaterThan(before.width + 80)
    expect(after.width).toBeLessThan(before.width + 100)
    // the Message cells are as wide as their header
    expect(Math.abs((await cellWidth()) - after.width)).toBeLessThan(2)
    await name.locator('.resizer').dblclick()
    await expect.poll(async () => Math.round((await name.boundingBox())!.width)).toBe(Math.round(before.width))
  })

  it("the column picker lists the capture's fields first and adds the typed field on Enter", async () => {
    await page.click('button[title="Add a column from any field"]')
    const options = page.locator('[data-testid=column-picker] [role=option]')
    await options.first().waitFor()
    const present = await options.evaluateAll((els) => els.map((e) => e.getAttribute('data-present') === 'true'))
    // every present field comes before every other one, and a Photon field is present, an SFS2X one is not
    expect(present.indexOf(false)).toBeGreaterThan(0)
    expect(present.slice(present.indexOf(false))).not.toContain(true)
    const keys = await options.evaluateAll((els) => els.map((e) => e.getAttribute('data-key')))
    expect(keys.slice(0, present.indexOf(false))).toEqual(expect.arrayContaining(['photon.ev.code', 'udp.port']))
    expect(keys.slice(0, present.indexOf(false)).some((k) => k!.startsWith('sfs2x.'))).toBe(false)
    await shot('column-picker')
    await page.locator('[data-testid=column-picker-input]').fill('photon.ev.code')
    await page.keyboard.press('Enter')
    await header('photon.ev.code').waitFor()
    expect(await page.locator('[data-testid=column-picker]').count()).toBe(0)
    // arrows move the highlight; Enter adds the highlighted one
    await page.click('button[title="Add a column from any field"]')
    await page.locator('[data-testid=column-picker-input]').fill('udp.')
    const first = await options.nth(0).getAttribute('data-key')
    const second = await options.nth(1).getAttribute('data-key')
    expect(first).not.toBe(second)
    await page.keyboard.press('ArrowDown')
    await expect.poll(() => options.nth(1).getAttribute('aria-selected')).toBe('true')
    await page.keyboard.press('Enter')
    await header(second!).waitFor()
    expect(await header(first!).count()).toBe(0)
    await page.locator(`[role=columnheader]:has([data-column="${second}"]) .th-remove`).click()
    await expect.poll(() => header(second!).count()).toBe(0)
  })

  it('sorts an added column: ascending, descending, then capture order', async () => {
    await waitForView(all.length)
    const ev = (m: Message) => cell(m, 'photon.ev.code')
    expect(new Set(all.map(ev)).size).toBeGreaterThan(2)
    const asc = await clickHeader('photon.ev.code', 'ascending')
    expect(asc).toEqual(firstSorted(all, ev, false, asc.length, true))
    const desc = await clickHeader('photon.ev.code', 'descending')
    expect(desc).toEqual(firstSorted(all, ev, true, desc.length, true))
    // the cells shown are the values sorted on
    const cells = await page.locator('[data-testid=timeline-row] .extra').allInnerTexts()
    expect(cells.slice(0, 3)).toEqual(desc.slice(0, 3).map((id) => ev(all[id - 1])))
    await shot('sort-added-desc')
    const back = await clickHeader('photon.ev.code', 'none')
    expect(back).toEqual(all.slice(0, back.length).map((m) => m.id))
  })

  it('rejects an unknown field and a mistyped value with their position; a dynamic key works', async () => {
    const input = page.locator('[data-testid=filter-input]')
    for (const [text, message] of [
      ['photon.nosuch == 1', "'photon.nosuch' at 0 is neither a field nor a protocol"],
      ['frame.number > "abc"', 'frame.number (u32) cannot be compared with the string "abc" at 15']
    ]) {
      await typeFilter(text, false)
      await expect.poll(() => page.locator('[data-testid=filter-error]').innerText()).toBe(message)
      expect(await input.getAttribute('data-state')).toBe('invalid')
      await page.waitForSelector('[data-testid=filter-input] .squiggly-error')
      await page.click('[data-testid=filter-input]')
      await page.keyboard.press('End')
      await page.keyboard.press('Enter')
      await new Promise((r) => setTimeout(r, 300))
      expect(await input.getAttribute('data-applied')).toBe('')
    }
    await shot('unknown-field')
    const want = decode(PHOTON, 'photon.param.255')
    expect(want.length).toBeGreaterThan(0)
    await typeFilter('photon.param.255')
    await waitForView(want.length)
    expect(await input.getAttribute('data-applied')).toBe('photon.param.255')
    expect(await rowIds()).toEqual(want.slice(0, (await rowIds()).length).map((m) => m.id))
    await typeFilter('')
    await waitForView(all.length)
  })

  it('Shift+click selects a range in view order; export "selected" writes exactly those messages', async () => {
    await clickHeader('name', 'ascending')
    const order = await rowIds()
    await page.locator('[data-testid=timeline-row]').nth(2).click()
    await page
      .locator('[data-testid=timeline-row]')
      .nth(7)
      .click({ modifiers: ['Shift'] })
    const range = order.slice(2, 8)
    await expect.poll(() => page.locator('[data-testid=selected-count]').innerText()).toMatch(/^6 selected/)
    const marked = await page
      .locator('[data-testid=timeline-row].picked, [data-testid=timeline-row].selected')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-id'))))
    expect(marked.sort((a, b) => a - b)).toEqual([...range].sort((a, b) => a - b))
    // Ctrl+click takes one out
    await page
      .locator('[data-testid=timeline-row]')
      .nth(4)
      .click({ modifiers: ['Control'] })
    await expect.poll(() => page.locator('[data-testid=selected-count]').innerText()).toMatch(/^5 selected/)
    const chosen = range.filter((id) => id !== order[4])
    await shot('range-selected')
    const saved = join(tmp, 'selected.json')
    await exportTo(page, 'json', 'selected', saved)
    await page.locator('.modal-backdrop').click({ position: { x: 5, y: 5 } })
    const doc = JSON.parse(readFileSync(saved, 'utf8')) as { messages: Message[] }
    expect(doc.messages.map((m) => m.id)).toEqual([...chosen].sort((a, b) => a - b))
    // the same messages as the CLI decodes them
    for (const m of doc.messages) expect(m.name).toBe(all[m.id - 1].name)
    await clickHeader('name', 'descending')
    await clickHeader('name', 'none')
  })

  it('logged no page errors', () => {
    expect(problems).toEqual([])
  })
})

describe('a filter that needs the field trees on a bigger capture', { timeout: 180_000 }, () => {
  it('shows its progress while the page stays usable, then the rows of the CLI filter', async () => {
    const file = join(tmp, 'game.pcapng')
    writeGameCapture(file, join(tmp, 'game.keys'), { frames: 30_000, seed: 3 })
    // The event data's length: its values, which only the trees hold (the index keeps whether a message has it)
    const filter = 'len(photon.param.245) > 0 && udp'
    const want = decode(file, filter).map((m) => m.id)
    expect(want.length).toBeGreaterThan(1000)
    await page.click('button:has-text("Open…")')
    await page.locator('.modal input').fill(file)
    await page.locator('.modal button[type=submit]').click()
    await expect.poll(() => page.locator('[data-testid=status-bar]').innerText(), { timeout: 60_000 }).toContain('game.pcapng')
    await waitForView()
    await typeFilter(filter)
    // while it runs: the timeline says so and the filter bar counts up
    await page.waitForFunction(() => document.querySelector('[data-testid=timeline]')?.getAttribute('data-view-state') === 'running')
    const progress = page.locator('[data-testid=filter-progress]')
    await progress.waitFor()
    expect(await progress.innerText()).toMatch(/^filtering \d{1,3}%$/)
    // the page answers meanwhile: the column picker opens and closes
    await page.click('button[title="Add a column from any field"]')
    await page.locator('[data-testid=column-picker]').waitFor()
    await page.keyboard.press('Escape')
    await shot('filter-progress')
    const seen = new Set<string>()
    while ((await page.locator('[data-testid=timeline]').getAttribute('data-view-state')) === 'running') {
      const t = await progress.innerText().catch(() => '')
      if (t) seen.add(t)
      await new Promise((r) => setTimeout(r, 50))
    }
    // it counted up while it ran
    const percents = [...seen].map((t) => Number(/(\d+)%/.exec(t)?.[1]))
    expect(Math.max(...percents), [...seen].join(' ')).toBeGreaterThan(0)
    await waitForView(want.length)
    expect(await rowIds()).toEqual(want.slice(0, (await rowIds()).length))
    expect(await progress.count()).toBe(0)
  })

  it('logged no page errors', () => {
    expect(problems).toEqual([])
  })
})
