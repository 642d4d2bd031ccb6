// The renderer in headless Chromium (playwright-core, /usr/bin/chromium) against a real
// `gamewire serve` process on the generated captures: open, scroll, filter (valid and invalid), select,
// tree -> hex and hex -> tree linking, the JSON view, keyboard navigation, conversations, adding keys
// that decrypt Photon and SFS2X messages, and exports compared with `gamewire decode`. Screenshots go
// to test/artifacts/ (gitignored). Runs the build (test/global-build.ts keeps it fresh).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { BIN, exportTo, openPage, ROOT, startServe } from './harness'
import { withAppKeyLabels } from '../helpers/app-keys'
import { writeBigBodyCapture } from '../helpers/big-capture'
import { CaptureReader } from '../../../src-shared/capture/reader'
import { PHOTON_AES_KEY, PHOTON_KEY_LINE, PHOTON_SECRET_TOKEN, SFS2X_IV, SFS2X_KEY, SFS2X_SECRET_COMMAND } from '../../fixtures/ui/build-captures'

const PHOTON = join(ROOT, 'test/fixtures/ui/photon-session.pcapng')
const SFS2X = join(ROOT, 'test/fixtures/ui/sfs2x-aes.pcapng')
const ARTIFACTS = join(ROOT, 'test/artifacts')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-browser-test-'))
const configDir = join(tmp, 'config')

let server: ChildProcess
let url: string
let browser: Browser
let page: Page
const problems: string[] = []

function cli(args: string[]): string {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })
  if (r.status !== 0) throw new Error(`gamewire ${args.join(' ')} failed: ${r.stderr}`)
  return r.stdout
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `ui-${name}.png`) })
}

const rows = () => page.locator('[data-testid=timeline-row]')
const timeline = () => page.locator('[data-testid=timeline]')

async function waitForView(count: number): Promise<void> {
  await page.waitForFunction((n) => {
    const t = document.querySelector('[data-testid=timeline]')
    return t?.getAttribute('data-view-state') === 'done' && t.getAttribute('data-count') === String(n)
  }, count)
}

async function typeFilter(text: string, apply = true): Promise<void> {
  await page.locator('[data-testid=filter-input] .monaco-editor').waitFor()
  await page.click('[data-testid=filter-input]')
  await page.keyboard.press('Control+A')
  await page.keyboard.press('Backspace')
  if (text) await page.keyboard.type(text, { delay: 5 })
  await page.keyboard.press('Escape') // close the suggestion list, if any, without reverting
  await page.waitForFunction((t) => document.querySelector('[data-testid=filter-input]')?.getAttribute('data-value') === t, text)
  if (apply) {
    await page.click('[data-testid=filter-input]')
    await page.keyboard.press('End')
    await page.keyboard.press('Enter')
  }
}

async function selectRow(id: number): Promise<void> {
  await page.locator(`[data-testid=timeline-row][data-id="${id}"]`).click()
  await page.waitForSelector(`[data-testid=detail-tree][data-message="${id}"] [data-testid=tree-node]`)
}

/** The byte range a tree node covers, from its tooltip ("… bytes 12–15 of source 0"). */
async function nodeRange(key: string): Promise<{ start: number; end: number; source: number }> {
  const title = (await page.locator(`[data-testid=tree-node][data-key="${key}"]`).first().getAttribute('title')) ?? ''
  const m = /bytes (\d+)–(\d+) of source (\d+)/.exec(title)
  if (!m) throw new Error(`node ${key} has no byte range: ${title}`)
  return { start: Number(m[1]), end: Number(m[2]), source: Number(m[3]) }
}

async function selectedBytes(): Promise<{ offset: number; text: string }[]> {
  return page.$$eval('[data-testid=hex-view] .byte[data-selected="true"]', (els) =>
    els.map((e) => ({ offset: Number(e.getAttribute('data-offset')), text: e.textContent ?? '' }))
  )
}

async function openPanel(name: 'conversations' | 'keys' | 'stats'): Promise<void> {
  const tab = page.locator(`[data-testid=panel-${name}]`)
  if ((await tab.getAttribute('aria-pressed')) !== 'true') await tab.click()
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  ;({ server, url } = await startServe([PHOTON], configDir))
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/)
  ;({ browser, page } = await openPage(url, problems, { consoleErrors: true }))
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.kill('SIGTERM')
  rmSync(tmp, { recursive: true, force: true })
})

type Exported = {
  direction: string
  frames: number[]
  value: { msgType: number; code: number; encrypted: boolean; reliableSeq: number; parameters: Record<string, { type: string; value: unknown }> }
}
type HashEntry = { key: { type: string; value: number }; value: { type: string; value: unknown; decoded?: { x: number; y: number; z: number } } }

/** What photonFrames() sent: 150 RaiseEvent (op 253) requests and their code-1 events, the encrypted Authenticate and its reply, the fragmented event 200. */
function expectPhotonSessionExport(doc: { format: string; messages: Exported[] }): void {
  expect(doc.format).toBe('gamewire/1')
  const ms = doc.messages
  const is = (m: Exported, dir: string, msgType: number, code: number) => m.direction === dir && m.value?.msgType === msgType && m.value.code === code
  const raise = ms.filter((m) => is(m, 'c2s', 2, 253))
  const events = ms.filter((m) => is(m, 's2c', 4, 1))
  expect([raise.length, events.length]).toEqual([150, 150])
  for (let i = 0; i < 150; i++) {
    // the script's position: x = round(sin(i/9)·1000)/100, z = round(cos(i/9)·1000)/100, sent as float32 (the event mirrors x)
    const x = Math.round(Math.sin(i / 9) * 1000) / 100
    const z = Math.round(Math.cos(i / 9) * 1000) / 100
    const r = raise[i].value
    expect(r.reliableSeq).toBe(6 + i) // five reliable client messages before the first RaiseEvent
    expect(r.parameters['244']).toEqual({ type: 'Byte', value: 1 })
    const h = r.parameters['245'].value as HashEntry[]
    expect(h.map((e) => [e.key.value, e.value.type])).toEqual([
      [0, 'Custom'],
      [1, 'Int32']
    ])
    expect(h[0].value.decoded).toEqual({ x: Math.fround(x), y: 0, z: Math.fround(z) })
    expect(h[1].value.value).toBe(i)
    const e = events[i].value
    expect(e.reliableSeq).toBe(10 + i) // six reliable server messages and three fragments before
    expect((e.parameters['245'].value as HashEntry[])[0].value.decoded).toEqual({ x: Math.fround(-x) + 0, y: 0, z: Math.fround(z) })
    expect(e.parameters['254']).toEqual({ type: 'Int32', value: 2 })
  }
  const auth = ms.filter((m) => is(m, 'c2s', 2, 230))
  expect(auth.map((m) => [m.value.encrypted, m.value.parameters])).toEqual([
    [true, { 221: { type: 'String', value: PHOTON_SECRET_TOKEN }, 224: { type: 'String', value: 'demo-app' } }]
  ])
  expect(ms.filter((m) => m.direction === 's2c' && m.value?.msgType === 3 && m.value.code === 230).map((m) => m.value.parameters)).toEqual([
    { 225: { type: 'String', value: 'user-42' } }
  ])
  const blob = ms.filter((m) => is(m, 's2c', 4, 200))
  expect(blob).toHaveLength(1)
  expect(blob[0].frames).toHaveLength(3) // 3000 bytes of map blob in 1152-byte fragments
  // pattern(3000, 4) of build-captures.ts
  const pattern = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 73 + 4 * 29 + 11) & 0xff)).toString('hex')
  expect(blob[0].value.parameters['245']).toEqual({ type: 'ByteArray', value: pattern })
}

describe('the inspector in a browser', { timeout: 60_000 }, () => {
  it('opens the capture: rows stream in and the status bar shows the totals', async () => {
    await waitForView(485)
    await expect.poll(() => page.locator('[data-testid=status-bar]').innerText()).toMatch(/photon-session\.pcapng[\s\S]*323 frames[\s\S]*485 messages/)
    expect(await rows().first().getAttribute('data-id')).toBe('1')
    expect(await rows().first().innerText()).toContain('CONNECT')
    await shot('01-open')
  })

  it('scrolls a virtualized timeline to the last message', async () => {
    const rendered = await rows().count()
    expect(rendered).toBeGreaterThan(5)
    expect(rendered).toBeLessThan(120) // only the visible rows (plus overscan) are in the DOM
    await page.locator('.timeline-body').evaluate((el) => (el.scrollTop = el.scrollHeight))
    await page.waitForSelector('[data-testid=timeline-row][data-id="485"]')
    expect(await page.locator('[data-testid=timeline-row][data-id="1"]').count()).toBe(0)
    await shot('02-scrolled')
    await page.locator('.timeline-body').evaluate((el) => (el.scrollTop = 0))
    await page.waitForSelector('[data-testid=timeline-row][data-id="1"]')
  })

  it('filters with a valid expression, shows an invalid one inline, and clears', async () => {
    await typeFilter('photon.op.code == 253')
    await waitForView(150)
    const names = await rows().evaluateAll((els) => els.map((e) => e.querySelector('.name')?.textContent))
    expect(names.length).toBeGreaterThan(5)
    expect(new Set(names)).toEqual(new Set(['RaiseEvent']))
    expect(await page.locator('[data-testid=filter-input]').getAttribute('data-applied')).toBe('photon.op.code == 253')
    await shot('03-filtered')

    await typeFilter('photon.op.code ==', false)
    await page.waitForSelector('[data-testid=filter-error]')
    expect(await page.locator('[data-testid=filter-input]').getAttribute('data-state')).toBe('invalid')
    expect(await page.locator('[data-testid=filter-error]').innerText()).toMatch(/expected|value|end/i)
    await page.waitForSelector('[data-testid=filter-input] .squiggly-error')
    await shot('04-invalid-filter')
    // Enter does not apply it: the applied filter, the rows and the history stay as they were
    await page.click('[data-testid=filter-input]')
    await page.keyboard.press('End')
    await page.keyboard.press('Enter')
    await new Promise((r) => setTimeout(r, 400))
    expect(await page.locator('[data-testid=filter-input]').getAttribute('data-applied')).toBe('photon.op.code == 253')
    expect(await page.locator('[data-testid=timeline]').getAttribute('data-view-state')).toBe('done')
    expect(await rows().count()).toBeGreaterThan(5)
    await page.click('button[title="Filter history"]')
    expect(await page.locator('.history-list').innerText()).not.toContain('photon.op.code ==\n')
    expect(await page.locator('.history-list li').allInnerTexts()).not.toContain('photon.op.code ==')
    await page.click('button[title="Filter history"]')

    await typeFilter('')
    await waitForView(485)
  })

  it('Enter applies what is typed even with suggestions open; arrow keys then Enter, or Tab, take a suggestion', async () => {
    const input = page.locator('[data-testid=filter-input]')
    const clearAndType = async (text: string) => {
      await page.click('[data-testid=filter-input]')
      await page.keyboard.press('Control+A')
      await page.keyboard.press('Backspace')
      await page.keyboard.type(text, { delay: 30 })
    }
    // typed straight through and Enter: no Escape first, as a person types
    await clearAndType('photon.op.code == 253')
    await page.keyboard.press('Enter')
    await expect.poll(() => input.getAttribute('data-applied')).toBe('photon.op.code == 253')
    await clearAndType('photon.op.code == 253 && !photon.param.255')
    await page.keyboard.press('Enter')
    await expect.poll(() => input.getAttribute('data-applied')).toBe('photon.op.code == 253 && !photon.param.255')
    // after `==` the list offers the field's values: direction words here
    await clearAndType('gamewire.direction == ')
    await page.locator('.suggest-widget.visible').waitFor()
    expect(await page.locator('.suggest-widget.visible .monaco-list-row').allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringContaining('c2s'), expect.stringContaining('s2c')])
    )
    // Tab takes the highlighted suggestion
    await clearAndType('photon.op.cod')
    await page.locator('.suggest-widget.visible').waitFor()
    await page.keyboard.press('Tab')
    await expect.poll(() => input.getAttribute('data-value')).toBe('photon.op.code')
    // moving into the list with the arrow keys makes Enter take the suggestion, not apply
    await clearAndType('gamewire.direction == ')
    await page.locator('.suggest-widget.visible').waitFor()
    const applied = await input.getAttribute('data-applied')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await expect.poll(() => input.getAttribute('data-value')).toMatch(/^gamewire\.direction == [a-z0-9]{3}$/)
    expect(await input.getAttribute('data-applied')).toBe(applied)
    await page.keyboard.press('Enter')
    await expect.poll(() => input.getAttribute('data-applied')).toMatch(/^gamewire\.direction == [a-z0-9]{3}$/)
    await typeFilter('')
    await waitForView(485)
  })

  it('selects a row: the tree shows its fields and tree -> hex marks the node bytes', async () => {
    await selectRow(16)
    expect(await page.locator('[data-testid=detail-tree]').innerText()).toContain('JoinGame')
    await page.locator('[data-testid=tree-node][data-key="photon.op.code"]').click()
    const opRange = await nodeRange('photon.op.code')
    const sel = await selectedBytes()
    // JoinGame is operation 226 = 0xe2, one byte
    expect(sel).toEqual([{ offset: opRange.start, text: 'e2' }])
    expect(await page.locator('[data-testid=tree-node][data-selected="true"]').getAttribute('data-key')).toBe('photon.op.code')

    await page.locator('[data-testid=tree-node][data-key="photon.param.255"]').click()
    const room = await nodeRange('photon.param.255')
    const roomBytes = await selectedBytes()
    expect(roomBytes.map((b) => b.offset)).toEqual(Array.from({ length: room.end - room.start + 1 }, (_, i) => room.start + i))
    // the last 7 bytes are the room name
    expect(
      Buffer.from(
        roomBytes
          .slice(-7)
          .map((b) => b.text)
          .join(''),
        'hex'
      ).toString()
    ).toBe('arena-1')
    await shot('05-tree-to-hex')
  })

  it('hex -> tree: clicking a byte selects the deepest node that holds it', async () => {
    const room = await nodeRange('photon.param.255')
    await page.locator(`[data-testid=hex-view] .byte[data-offset="${room.end}"]`).click()
    await expect.poll(() => page.locator('[data-testid=tree-node][data-selected="true"]').getAttribute('data-key')).toBe('photon.param.255')
    // the datagram's first byte is inside the header's peer id field
    await page.locator('[data-testid=hex-view] .byte[data-offset="0"]').click()
    await expect.poll(() => page.locator('[data-testid=tree-node][data-selected="true"]').getAttribute('data-key')).toBe('photon.peer_id')
    expect((await selectedBytes()).map((b) => b.offset)).toEqual([0, 1])
    await shot('06-hex-to-tree')
  })

  it('shows the typed value in the JSON view', async () => {
    await page.click('[data-testid=tab-json]')
    await page.waitForSelector('[data-testid=json-view] .monaco-editor .view-lines')
    await expect.poll(() => page.locator('[data-testid=json-view] .view-lines').innerText()).toContain('arena-1')
    expect(await page.locator('[data-testid=json-view] .view-lines').innerText()).toMatch(/"codeName":\s*"JoinGame"/)
    await shot('07-json')
    await page.click('[data-testid=tab-hex]')
  })

  it('moves the selection with the keyboard', async () => {
    await page.locator('[data-testid=timeline-row][data-id="16"]').click()
    await page.keyboard.press('ArrowDown')
    await page.waitForSelector('[data-testid=detail-tree][data-message="17"]')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowUp')
    await page.waitForSelector('[data-testid=detail-tree][data-message="17"]')
    expect(await page.locator('[data-testid=timeline-row][aria-selected="true"]').getAttribute('data-id')).toBe('17')
  })

  it('lists conversations; clicking one filters the timeline to it', async () => {
    await openPanel('conversations')
    const conv = page.locator('[data-testid=conversations] [data-testid=conversation]')
    await expect.poll(() => conv.count()).toBe(1)
    expect(await conv.first().innerText()).toMatch(/photon[\s\S]*10\.0\.0\.1:50123[\s\S]*10\.0\.0\.2:5056[\s\S]*323 frames/)
    await conv.first().click()
    await expect.poll(() => page.locator('[data-testid=filter-input]').getAttribute('data-applied')).toBe('gamewire.conversation == 1')
    await waitForView(485)
    await conv.first().click() // again: back to no filter
    await expect.poll(() => page.locator('[data-testid=filter-input]').getAttribute('data-applied')).toBe('')
    // by keyboard: the entry takes the focus; Enter filters, Space clears
    await conv.first().focus()
    expect(await conv.first().evaluate((e) => e === document.activeElement)).toBe(true)
    await page.keyboard.press('Enter')
    await expect.poll(() => page.locator('[data-testid=filter-input]').getAttribute('data-applied')).toBe('gamewire.conversation == 1')
    await page.keyboard.press(' ')
    await expect.poll(() => page.locator('[data-testid=filter-input]').getAttribute('data-applied')).toBe('')
    // Enter in the entry's protocol menu is the menu's: the entry does not filter
    await conv.first().locator('select').focus()
    await page.keyboard.press('Enter')
    await page.keyboard.press('Escape')
    await page.waitForTimeout(300)
    expect(await page.locator('[data-testid=filter-input]').getAttribute('data-applied')).toBe('')
    expect(await conv.first().locator('select').inputValue()).toBe('auto')
  })

  it('adding a Photon key (base64) decrypts the encrypted request at once, and the key persists', async () => {
    const before = page.locator('[data-testid=timeline-row][data-id="11"]')
    expect(await before.innerText()).toMatch(/OperationRequest[\s\S]*no key/)
    await openPanel('keys')
    const panel = page.locator('[data-testid=key-panel]')
    await panel.locator('[data-testid=key-type]').selectOption('PHOTON_AES_KEY')
    await panel.locator('[data-testid=key-conversation]').selectOption('10.0.0.1:50123-10.0.0.2:5056')
    await panel.locator('[data-testid=key-value]').fill(Buffer.from(PHOTON_AES_KEY).toString('base64'))
    await panel.locator('[data-testid=key-add]').click()
    await panel.locator('[data-testid=key-item]').waitFor()
    expect(await panel.locator('[data-testid=key-item]').innerText()).toMatch(/PHOTON_AES_KEY[\s\S]*covers conversation 1/)
    await expect.poll(() => page.locator('[data-testid=timeline-row][data-id="11"] .name').innerText()).toBe('Authenticate')
    await selectRow(11)
    expect(await page.locator('[data-testid=detail-tree]').innerText()).toContain(PHOTON_SECRET_TOKEN)
    expect(await page.locator('[data-testid=hex-tab]').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('Decrypted body')]))
    await shot('08-photon-key')
    await expect.poll(() => readFileSync(join(configDir, 'keys.txt'), 'utf8')).toContain(PHOTON_KEY_LINE)
  })

  it('exports all messages as JSON identical to `gamewire decode` with the same key', async () => {
    const saved = join(tmp, 'export.json')
    const download = await exportTo(page, 'json', 'all', saved)
    expect(download.suggestedFilename()).toBe('photon-session.json')
    const keyFile = join(tmp, 'photon.keys')
    writeFileSync(keyFile, PHOTON_KEY_LINE + '\n')
    // The key was typed in the key panel: the export's trees name it as added in the app, as the detail does.
    expect(readFileSync(saved, 'utf8')).toBe(withAppKeyLabels(cli(['decode', PHOTON, '--keylog', keyFile])))
    // The UI and the CLI run the same code, so also check the export against what the capture's traffic
    // script (test/fixtures/ui/build-captures.ts, photonFrames) put on the wire: independent expectations.
    expectPhotonSessionExport(JSON.parse(readFileSync(saved, 'utf8')))
    await page.waitForSelector('[data-testid=export-done]')
    await shot('09-export')
    await page.keyboard.press('Escape')
    await page.locator('.modal-backdrop').click({ position: { x: 5, y: 5 } })
  })

  it('exports NDJSON without field trees when they are unticked, identical to `gamewire decode --tree none`', async () => {
    const saved = join(tmp, 'export-no-trees.ndjson')
    await exportTo(page, 'ndjson', 'all', saved, async () => {
      expect(await page.isChecked('[data-testid=export-trees]')).toBe(true)
      await page.click('[data-testid=export-trees]')
    })
    const keyFile = join(tmp, 'photon.keys')
    writeFileSync(keyFile, PHOTON_KEY_LINE + '\n')
    expect(readFileSync(saved, 'utf8')).toBe(withAppKeyLabels(cli(['decode', PHOTON, '--keylog', keyFile, '--format', 'ndjson', '--tree', 'none'])))
    await page.waitForSelector('[data-testid=export-done]')
    await page.locator('.modal-backdrop').click({ position: { x: 5, y: 5 } })
  })

  it('exports the filtered frames as pcapng: exactly the frames of the matching messages', async () => {
    await typeFilter('photon.op.code == 226')
    await waitForView(2)
    const saved = join(tmp, 'filtered.pcapng')
    await exportTo(page, 'pcapng', 'filtered', saved)
    await page.locator('.modal-backdrop').click({ position: { x: 5, y: 5 } })
    const frames: number[] = []
    const r = new CaptureReader({ onFrame: (f) => frames.push(f.data.length) })
    r.push(new Uint8Array(readFileSync(saved)))
    r.end()
    const expected = cli(['decode', PHOTON, '--format', 'ndjson', '--filter', 'photon.op.code == 226']).trim().split('\n').slice(0, -1)
    const wanted = new Set(expected.flatMap((l) => JSON.parse(l).frames as number[]))
    expect(frames.length).toBe(wanted.size)
    await typeFilter('')
    await waitForView(485)
  })

  it('opens another capture by path and decrypts SFS2X with a key and IV typed in hex', async () => {
    await page.click('button:has-text("Open…")')
    await page.locator('.modal input').fill(SFS2X)
    await page.locator('.modal button[type=submit]').click()
    await waitForView(18)
    await expect.poll(() => page.locator('[data-testid=status-bar]').innerText()).toContain('sfs2x-aes.pcapng')
    expect(await page.locator('[data-testid=timeline-row][data-id="5"] .name').innerText()).toBe('Encrypted')
    await openPanel('keys')
    const panel = page.locator('[data-testid=key-panel]')
    await panel.locator('[data-testid=key-type]').selectOption('SFS2X_AES')
    await panel.locator('[data-testid=key-conversation]').selectOption('10.0.0.3:40100-10.0.0.4:9933')
    await panel.locator('[data-testid=key-value]').fill(Buffer.from(SFS2X_KEY).toString('hex').toUpperCase())
    await panel.locator('[data-testid=key-iv]').fill(Buffer.from(SFS2X_IV).toString('hex').replace(/(..)/g, '$1:').slice(0, -1))
    await panel.locator('[data-testid=key-add]').click()
    await expect.poll(() => page.locator('[data-testid=timeline-row][data-id="5"] .name').innerText()).toBe('CallExtension')
    expect(await page.locator('[data-testid=timeline-row][data-id="5"]').innerText()).toContain(SFS2X_SECRET_COMMAND)
    await selectRow(5)
    await page.locator('[data-testid=tree-node][data-key="sfs2x.cmd"]').click()
    const sel = await selectedBytes()
    expect(Buffer.from(sel.map((b) => b.text).join(''), 'hex').toString()).toContain(SFS2X_SECRET_COMMAND)
    expect(await page.locator('[data-testid=hex-view]').getAttribute('data-source')).not.toBe('0') // the decrypted body
    await shot('10-sfs2x-key')
  })

  it('shows statistics and the light theme', async () => {
    await openPanel('stats')
    await page.waitForSelector('[data-testid=rate-chart] rect.bar')
    // six extension requests and their six responses (named as responses since the SYN gives the roles)
    const statistics = await page.locator('[data-testid=statistics]').innerText()
    expect(statistics).toMatch(/CallExtension\s*6(?!\d)/)
    expect(statistics).toMatch(/ExtensionResponse\s*6(?!\d)/)
    // brush across the chart: the timeline is filtered to that time range
    const box = (await page.locator('[data-testid=rate-chart]').boundingBox())!
    await page.mouse.move(box.x + box.width * 0.05, box.y + box.height / 2)
    await page.mouse.down()
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 5 })
    await page.mouse.up()
    await expect
      .poll(() => page.locator('[data-testid=filter-input]').getAttribute('data-applied'))
      .toMatch(/^frame\.time_epoch >= [\d.]+ && frame\.time_epoch < [\d.]+$/)
    await page.waitForFunction(() => document.querySelector('[data-testid=timeline]')?.getAttribute('data-view-state') === 'done')
    const inRange = Number(await timeline().getAttribute('data-count'))
    expect(inRange).toBeGreaterThan(0)
    expect(inRange).toBeLessThan(18)
    await page.click('[data-testid=theme-toggle]')
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light')
    await page.waitForTimeout(250) // colour transitions
    await shot('11-stats-light')
    await page.click('[data-testid=theme-toggle]')
    await typeFilter('')
    await waitForView(18)
  })

  it('decode as…: forcing a conversation to unknown re-decodes it, auto restores it', async () => {
    await openPanel('conversations')
    const select = page.locator('[data-testid=conversations] [data-testid=conversation] select').first()
    await select.selectOption('unknown')
    await expect.poll(() => page.locator('[data-testid=timeline-row][data-id="1"] .proto-badge').innerText()).toBe('unknown')
    await select.selectOption('auto')
    await expect.poll(() => page.locator('[data-testid=timeline-row][data-id="5"] .name').innerText()).toBe('CallExtension')
  })

  it('opens the bundled demo with all three protocols', async () => {
    await page.click('button:has-text("Open…")')
    await page.click('.modal button:has-text("Open the demo")')
    await page.locator('[data-testid=status-bar]').filter({ hasText: 'demo.pcapng' }).waitFor()
    await page.waitForFunction(() => document.querySelector('[data-testid=timeline]')?.getAttribute('data-view-state') === 'done')
    await openPanel('conversations')
    // the panel's entries come from the host once it shows
    const badges = () => page.locator('[data-testid=conversations] .proto-badge').allInnerTexts()
    await expect.poll(badges, { timeout: 10_000 }).toEqual(expect.arrayContaining(['photon', 'sfs2x', 'fignet']))
    await shot('12-demo')
  })

  it('a page opened without the token says to open the printed URL and never reaches the API', async () => {
    const bare = await page.context().newPage()
    try {
      const sockets: string[] = []
      bare.on('websocket', (ws) => sockets.push(ws.url()))
      await bare.goto(url.replace(/\?token=.*$/, ''))
      await expect.poll(() => bare.locator('[role=alert]').innerText()).toMatch(/address that gamewire serve printed/)
      expect(sockets).toEqual([])
      // and the API itself refuses a socket without the token (401), as a page script would see it
      const refused = await bare.evaluate(
        () =>
          new Promise<boolean>((resolve) => {
            const ws = new WebSocket(`ws://${location.host}/api`)
            ws.onopen = () => resolve(false)
            ws.onerror = () => resolve(true)
          })
      )
      expect(refused).toBe(true)
    } finally {
      await bare.close()
    }
  })

  it('shows an 8 MB decompressed body: the hex view fetches the bytes it scrolls to', async () => {
    const big = join(tmp, 'big-body.pcapng')
    const body = writeBigBodyCapture(big)
    await page.click('button:has-text("Open…")')
    await page.locator('.modal input').fill(big)
    await page.locator('.modal button[type=submit]').click()
    await waitForView(1)
    await selectRow(1)
    const tab = page.locator('[data-testid=hex-tab]').filter({ hasText: 'Decompressed' })
    expect(await tab.innerText()).toContain(`${body.length} B`)
    await tab.click()
    const hex = page.locator('[data-testid=hex-view] .hex-body')
    // the last row: offset of the last 16-byte line, its bytes once they have arrived
    await hex.evaluate((el) => (el.scrollTop = el.scrollHeight))
    const last = Math.floor((body.length - 1) / 16) * 16
    const cells = page.locator(`[data-testid=hex-view] .byte[data-offset="${last}"]`)
    await cells.waitFor()
    await expect.poll(() => cells.innerText(), { timeout: 20_000 }).not.toBe('··')
    const shown = await page
      .locator('[data-testid=hex-view] .byte')
      .evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-offset')), e.textContent]))
    const tail = shown.filter(([o]) => (o as number) >= last)
    expect(tail.length).toBe(body.length - last)
    for (const [o, text] of tail) expect(text).toBe(body[o as number].toString(16).padStart(2, '0'))
    await shot('13-big-body-hex')
  })

  it('logged no page errors', () => {
    expect(problems).toEqual([])
  })
})
