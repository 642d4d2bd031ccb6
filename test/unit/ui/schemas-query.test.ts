// The Schemas and Query side panels (issue 17), in headless Chromium against a real `gamewire serve`, on an
// Albion-style Photon capture built with the tests' encoders (helpers/schema-capture.ts: which message
// carries which real code and itemId is scripted). Schemas: import the example pack from a file and see
// the rows renamed; paste a pack naming parameters, filter on `photon.param.itemId` with Enter and see
// exactly the scripted rows; a refused pack shows its JSON path and changes nothing; the packs survive a
// reload and a restart of serve with the same config folder; removing them reverts the names. Query: SQL
// typed in the monaco editor and run with Ctrl+Enter gives the values of `gamewire decode --format ndjson`
// of the same capture with the same packs; an error is one line; a result row selects its message.
// Screenshots go to test/artifacts/. Needs the build.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { BIN, openPage, ROOT, startServe } from './harness'
import { SCRIPT, schemaCapture, TEST_PACK } from '../helpers/schema-capture'

const ARTIFACTS = join(ROOT, 'test/artifacts')
const ALBION = join(ROOT, 'resources/schemas/albion-online.json')
const ALBION_NAME = 'Albion Online (operations, partial)'
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-schemas-ui-'))
const CAPTURE = join(tmp, 'albion-style.pcapng')
const TEST_PACK_FILE = join(tmp, 'test-pack.json')
const configDir = join(tmp, 'config')

/** Message ids of the scripted game messages: the handshake (CONNECT, ACK, VERIFYCONNECT, Init) is 1-4. */
const idOf = (i: number) => i + 5
const ALBION_NAMES: Record<number, string> = { 22: 'Move', 30: 'InventoryMoveItem' }

let server: ChildProcess
let browser: Browser
let page: Page
const problems: string[] = []

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `schemas-query-${name}.png`) })

async function start(): Promise<void> {
  let url: string
  ;({ server, url } = await startServe([CAPTURE], configDir))
  ;({ browser, page } = await openPage(url, problems, { consoleErrors: true }))
  await page.setViewportSize({ width: 1600, height: 1000 })
}

async function stop(): Promise<void> {
  await browser?.close()
  const exited = new Promise((r) => server.once('exit', r))
  server?.kill('SIGTERM')
  await exited
}

async function viewDone(count?: number): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const t = document.querySelector('[data-testid=timeline]')
      return t?.getAttribute('data-view-state') === 'done' && (n === null || t.getAttribute('data-count') === String(n))
    },
    count ?? null,
    { timeout: 30_000 }
  )
}

async function openPanel(name: 'schemas' | 'query'): Promise<void> {
  const tab = page.locator(`[data-testid=panel-${name}]`)
  if ((await tab.getAttribute('aria-pressed')) !== 'true') await tab.click()
}

/** Types a filter in the filter bar and applies it with Enter, as a person does. */
async function applyFilter(text: string): Promise<void> {
  await page.locator('[data-testid=filter-input] .monaco-editor').waitFor()
  await page.click('[data-testid=filter-input]')
  await page.keyboard.press('Control+A')
  await page.keyboard.press('Backspace')
  if (text) await page.keyboard.type(text, { delay: 5 })
  await page.keyboard.press('Escape')
  await page.waitForFunction((t) => document.querySelector('[data-testid=filter-input]')?.getAttribute('data-value') === t, text)
  await page.click('[data-testid=filter-input]')
  await page.keyboard.press('End')
  await page.keyboard.press('Enter')
  await expect.poll(() => page.locator('[data-testid=filter-input]').getAttribute('data-applied')).toBe(text)
}

/** The timeline's rendered rows: id, name, summary. */
async function shownRows(): Promise<{ id: number; name: string; summary: string }[]> {
  return page.$$eval('[data-testid=timeline-row]', (els) =>
    els
      .map((e) => ({
        id: Number(e.getAttribute('data-id')),
        name: e.querySelector('.name')?.textContent ?? '',
        summary: e.querySelector('.summary')?.textContent ?? ''
      }))
      .sort((a, b) => a.id - b.id)
  )
}

/** What the script says a game message is called with the packs in `packs`. */
function expectedName(i: number, packs: { albion: boolean; test: boolean }): string {
  const m = SCRIPT[i]
  if (m.kind === 'event') return packs.test ? 'ItemDropped event' : 'Event 22'
  return packs.albion ? ALBION_NAMES[m.code] : 'Operation 1'
}

/** Every rendered game row (ids 5 on) has the name the script and the loaded packs give it. */
async function expectNames(packs: { albion: boolean; test: boolean }): Promise<void> {
  await expect
    .poll(
      async () => {
        const rows = (await shownRows()).filter((r) => r.id >= 5)
        return rows.length >= 10 && rows.every((r) => r.name === expectedName(r.id - 5, packs))
      },
      { timeout: 20_000 }
    )
    .toBe(true)
}

async function schemaNames(): Promise<string[]> {
  return page.locator('[data-testid=schema-item]').evaluateAll((els) => els.map((e) => e.getAttribute('data-name') ?? ''))
}

/** Types SQL into the monaco editor (replacing what is there) and runs it with Ctrl+Enter. */
async function runSql(sql: string): Promise<void> {
  const editor = page.locator('[data-testid=sql-editor] .monaco-editor')
  await editor.waitFor()
  await page.click('[data-testid=sql-editor]')
  await page.keyboard.press('Control+A')
  await page.keyboard.press('Backspace')
  // Monaco auto-closes brackets and quotes: type the statement on one line, then remove what it added after the cursor.
  await page.keyboard.type(sql, { delay: 2 })
  await page.keyboard.press('Shift+Control+End')
  await page.keyboard.press('Delete')
  await page.keyboard.press('Escape')
  await page.keyboard.press('Control+Enter')
}

async function resultRows(): Promise<string[][]> {
  return page.$$eval('[data-testid=query-row]', (els) =>
    els
      .sort((a, b) => Number(a.getAttribute('data-index')) - Number(b.getAttribute('data-index')))
      .map((e) => [...e.querySelectorAll('span')].map((s) => s.textContent ?? ''))
  )
}

function cli(args: string[]): string {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })
  if (r.status !== 0) throw new Error(`gamewire ${args.join(' ')} failed: ${r.stderr}`)
  return r.stdout
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  writeFileSync(CAPTURE, schemaCapture())
  writeFileSync(TEST_PACK_FILE, JSON.stringify(TEST_PACK))
  await start()
  await viewDone(SCRIPT.length + 4)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  server?.kill('SIGTERM')
  rmSync(tmp, { recursive: true, force: true })
})

describe('the Schemas panel', { timeout: 90_000 }, () => {
  it('imports the example pack from a file: the rows take its names', async () => {
    await expectNames({ albion: false, test: false })
    await openPanel('schemas')
    await page.locator('[data-testid=schema-import]').setInputFiles(ALBION)
    await expect.poll(schemaNames).toEqual([ALBION_NAME])
    const item = page.locator('[data-testid=schema-item]')
    expect(await item.innerText()).toMatch(/photon · all conversations[\s\S]*28 operations[\s\S]*applies to conversation 1/)
    await expectNames({ albion: true, test: false })
    await shot('01-albion')
  })

  it('a pasted pack names parameters: a filter on photon.param.itemId, applied with Enter, keeps exactly the scripted rows', async () => {
    await page.locator('[data-testid=schema-text]').fill(JSON.stringify(TEST_PACK, null, 2))
    await page.click('[data-testid=schema-add]')
    await expect.poll(schemaNames).toEqual([ALBION_NAME, 'Test items'])
    await expectNames({ albion: true, test: true })
    // the pack's names complete in the filter bar: after `schema.code == Inv` its code's name is offered
    await page.click('[data-testid=filter-input]')
    await page.keyboard.type('schema.code == Inv', { delay: 5 })
    await expect.poll(() => page.locator('.suggest-widget.visible .monaco-list-row').allInnerTexts()).toEqual([expect.stringMatching(/^InventoryMoveItem/)])
    await page.keyboard.press('Escape')

    await applyFilter('photon.param.itemId == 7')
    const sevens = SCRIPT.flatMap((m, i) => (m.itemId === 7 ? [i] : []))
    expect(sevens.length).toBeGreaterThan(1)
    await viewDone(sevens.length)
    expect(await shownRows()).toEqual(
      sevens.map((i) => ({
        id: idOf(i),
        name: expectedName(i, { albion: true, test: true }),
        summary: `${expectedName(i, { albion: true, test: true })} itemId=7 slot=${SCRIPT[i].slot}`
      }))
    )
    // a named value of the pack in a filter: the rows of one real code
    await applyFilter('schema.code == InventoryMoveItem')
    const moves = SCRIPT.flatMap((m, i) => (m.kind === 'request' && m.code === 30 ? [idOf(i)] : []))
    await viewDone(moves.length)
    expect((await shownRows()).map((r) => r.id)).toEqual(moves)
    await shot('02-filter')
    await applyFilter('')
    await viewDone(SCRIPT.length + 4)
  })

  it('a pack that does not validate is refused with its JSON path and why, and nothing changes', async () => {
    const bad = { ...TEST_PACK, name: 'Broken', photon: { events: [{ code: 300, name: 'TooBig' }] } }
    await page.locator('[data-testid=schema-text]').fill(JSON.stringify(bad))
    await page.click('[data-testid=schema-add]')
    const error = page.locator('[data-testid=schema-error]')
    await error.waitFor()
    expect(await error.innerText()).toMatch(/^Refused: \$\.photon\.events\[0\]\.code: .+/)
    expect(await schemaNames()).toEqual([ALBION_NAME, 'Test items'])
    // the text stays for the user to fix
    expect(await page.locator('[data-testid=schema-text]').inputValue()).toContain('TooBig')
    await expectNames({ albion: true, test: true })
    await shot('03-refused')
    await page.locator('[data-testid=schema-text]').fill('{"format": "gamewire-schema/1", "name": "x", "photon": {}, "extra": 1}')
    await page.click('[data-testid=schema-add]')
    await expect.poll(() => error.innerText()).toMatch(/^Refused: \$(\.extra)?: /)
    await page.locator('[data-testid=schema-text]').fill('')
  })

  it('the packs are saved in the config folder (0600) and are there after a reload and after restarting serve', async () => {
    const file = join(configDir, 'schemas.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(file, 'utf8')).map((p: { name: string }) => p.name)).toEqual([ALBION_NAME, 'Test items'])
    await page.reload()
    await viewDone(SCRIPT.length + 4)
    await openPanel('schemas')
    await expect.poll(schemaNames).toEqual([ALBION_NAME, 'Test items'])
    await expectNames({ albion: true, test: true })
    await stop()
    await start()
    await viewDone(SCRIPT.length + 4)
    await openPanel('schemas')
    await expect.poll(schemaNames).toEqual([ALBION_NAME, 'Test items'])
    await expectNames({ albion: true, test: true })
    await applyFilter('photon.param.itemId == 7')
    await viewDone(SCRIPT.filter((m) => m.itemId === 7).length)
    await applyFilter('')
    await viewDone(SCRIPT.length + 4)
  })

  it('removing the packs reverts the names, and the named parameter is no longer a filter field', async () => {
    await openPanel('schemas')
    await page.locator('[data-testid=schema-item][data-name="Test items"] [data-testid=schema-remove]').click()
    await expect.poll(schemaNames).toEqual([ALBION_NAME])
    await expectNames({ albion: true, test: false })
    await page.locator(`[data-testid=schema-item] [data-testid=schema-remove]`).click()
    await expect.poll(schemaNames).toEqual([])
    await expectNames({ albion: false, test: false })
    await page.click('[data-testid=filter-input]')
    await page.keyboard.press('Control+A')
    await page.keyboard.type('photon.param.itemId == 7', { delay: 5 })
    await page.keyboard.press('Escape')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.locator('[data-testid=filter-input]').getAttribute('data-state')).toBe('invalid')
    expect(await page.locator('[data-testid=filter-input]').getAttribute('data-applied')).toBe('')
    await page.keyboard.press('Control+A')
    await page.keyboard.press('Backspace')
    expect(JSON.parse(readFileSync(join(configDir, 'schemas.json'), 'utf8'))).toEqual([])
  })
})

describe('the Query panel', { timeout: 90_000 }, () => {
  it('runs SQL typed in the editor with Ctrl+Enter: the rows equal `gamewire decode --format ndjson` with the same packs', async () => {
    await openPanel('schemas')
    await page.locator('[data-testid=schema-import]').setInputFiles(ALBION)
    await page.locator('[data-testid=schema-import]').setInputFiles(TEST_PACK_FILE)
    await expect.poll(schemaNames).toEqual([ALBION_NAME, 'Test items'])
    await openPanel('query')
    await expect.poll(() => page.locator('[data-testid=query-tables] li').count()).toBeGreaterThan(30)
    await runSql("SELECT id, name, summary FROM messages WHERE name LIKE 'I%' AND id >= 5 ORDER BY id")
    const status = page.locator('[data-testid=query-status]')
    await status.waitFor()
    const ndjson = cli(['decode', CAPTURE, '--format', 'ndjson', '--tree', 'none', '--schema', ALBION, '--schema', TEST_PACK_FILE])
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((m) => typeof m.id === 'number')
    const expected = ndjson.filter((m) => m.name.startsWith('I') && m.id >= 5).map((m) => [String(m.id), m.name, m.summary])
    // and the script agrees: the InventoryMoveItem requests and the ItemDropped events
    expect(expected.map((r) => Number(r[0]))).toEqual(SCRIPT.flatMap((m, i) => (m.kind === 'event' || m.code === 30 ? [idOf(i)] : [])))
    expect(await page.locator('[data-testid=query-column]').allInnerTexts()).toEqual(['id', 'name', 'summary'])
    await expect.poll(resultRows).toEqual(expected)
    expect(await status.getAttribute('data-truncated')).toBe('false')
    expect(await status.innerText()).toMatch(new RegExp(`^${expected.length} rows`))
    await shot('04-query')
  })

  it('an SQL error is shown in one line', async () => {
    await runSql('SELECT nope FROM messages')
    const error = page.locator('[data-testid=query-error]')
    await error.waitFor()
    const text = await error.innerText()
    expect(text).toMatch(/nope/)
    expect(text).not.toContain('\n')
    const box = (await error.boundingBox())!
    expect(box.height).toBeLessThan(30)
  })

  it('a result over the row limit says it is cut', async () => {
    await runSql('SELECT range AS n FROM range(10050)')
    const status = page.locator('[data-testid=query-status]')
    await expect.poll(() => status.getAttribute('data-truncated')).toBe('true')
    expect(await status.getAttribute('data-rows')).toBe('10000')
    expect(await status.innerText()).toMatch(/first 10,000 rows shown/)
    // the table renders only what is in view
    expect(await page.locator('[data-testid=query-row]').count()).toBeLessThan(200)
  })

  it('clicking a result row with a message id selects that message in the timeline', async () => {
    const target = SCRIPT.findIndex((m) => m.kind === 'request' && m.code === 22 && m.itemId === 7)
    expect(target).toBeGreaterThanOrEqual(0)
    await runSql(`SELECT id, name FROM messages WHERE name = 'Move' AND (value->>'$.parameters."1".value')::INTEGER = 7`)
    await expect.poll(resultRows).toEqual([[String(idOf(target)), 'Move']])
    await page.locator('[data-testid=query-row]').first().click()
    await page.waitForSelector(`[data-testid=detail-tree][data-message="${idOf(target)}"] [data-testid=tree-node]`)
    await expect.poll(() => page.locator(`[data-testid=timeline-row][data-id="${idOf(target)}"]`).getAttribute('aria-selected')).toBe('true')
    await shot('05-selected')
    expect(problems).toEqual([])
  })

  it('the results take the keyboard: arrows, End, Page Up and Home move through the rows and select their messages, in view', async () => {
    // Many rows (each message twenty times), so that End and Page Up scroll; the CLI runs the same SQL.
    const sql = 'SELECT m.id, r.range AS copy FROM messages m, range(20) r ORDER BY m.id DESC, copy'
    const ids = (JSON.parse(cli(['query', CAPTURE, '--sql', sql, '--format', 'json'])) as { id: number }[]).map((r) => r.id)
    expect(ids.length).toBeGreaterThan(200)
    await runSql(sql)
    await expect.poll(() => page.locator('[data-testid=query-status]').getAttribute('data-rows')).toBe(String(ids.length))
    const results = page.locator('[data-testid=query-results]')
    const cursor = page.locator('[data-testid=query-row][aria-selected="true"]')
    const detail = () => page.locator('[data-testid=detail-tree]').getAttribute('data-message')
    // where the cursor is, that it is inside the results' box, and the message the timeline selected
    const at = async (index: number) => {
      await expect.poll(() => cursor.getAttribute('data-index')).toBe(String(index))
      await expect.poll(detail).toBe(String(ids[index]))
      const box = (await cursor.boundingBox())!
      const view = (await results.boundingBox())!
      expect(box.y).toBeGreaterThanOrEqual(view.y)
      expect(box.y + box.height).toBeLessThanOrEqual(view.y + view.height + 1)
    }
    await results.focus()
    await page.keyboard.press('ArrowDown')
    await at(0)
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')
    await at(2)
    await page.keyboard.press('End')
    await at(ids.length - 1)
    await page.keyboard.press('PageUp')
    const up = Number(await cursor.getAttribute('data-index'))
    expect(up).toBeLessThan(ids.length - 5)
    await at(up)
    await page.keyboard.press('Home')
    await at(0)
    expect(problems).toEqual([])
  })
})
