// The Rooms and Diff panels in headless Chromium against a real `gamewire serve` (issue 16). Rooms: a
// capture of the room scenario whose server ignored a RemoveFromRoomCache (test/unit/analysis/helpers/
// photon-room-sessions.ts) shows the removal-ignored divergence at Cy's join with the script's frames;
// its frame link selects the message that frame carries (found with `gamewire decode`, a separate
// process). Diff: the scripted reference session against the reimplementation's shows exactly the
// only-in-A, only-in-B and changed lines the CLI test expects (test/fixtures/analysis/diff-pair.ts), an
// ignore list makes the changes disappear, and a click on an A message selects it in the timeline.
// Screenshots go to test/artifacts/. Needs the build.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { BIN, openPage, ROOT, startServe } from './harness'
import { removalIgnored } from '../analysis/helpers/photon-room-sessions'
import { scriptedCapture } from '../../fixtures/analysis/scripted-session'
import { EXPECTED, REFERENCE_B_OPTIONS } from '../../fixtures/analysis/diff-pair'
import type { DiffReport } from '../../../src-shared/analysis/diff'
import { writeGameCapture } from '../../bench/game-traffic'
import { writeConversationsCapture } from '../../bench/make-conversations-capture.mjs'
import { DIFF_PAIRS_PAGE } from '../../../src-shared/api'
import { DIFF_LINES_PAGE } from '../../../src-shared/api'

const ARTIFACTS = join(ROOT, 'test/artifacts')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-rooms-diff-ui-'))
const ROOMS = join(tmp, 'removal-ignored.pcapng')
const A = join(tmp, 'reference.pcapng')
const B = join(tmp, 'reimplementation.pcapng')
const scenario = removalIgnored()

let server: ChildProcess
let browser: Browser
let page: Page
const problems: string[] = []

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `rooms-diff-${name}.png`) })
const selectedRow = () => page.locator('[data-testid=timeline-row][aria-selected="true"]').getAttribute('data-id')
const detailId = () => page.locator('[data-testid=detail-tree]').getAttribute('data-message')

/** `gamewire decode` of a capture: the messages' ids, frames and names (the reference for what a frame link selects). */
function decoded(file: string): { id: number; frames: number[]; protocol: string; name: string }[] {
  const r = spawnSync(process.execPath, [BIN, 'decode', file, '--format', 'ndjson', '--tree', 'none', '--jobs', '1'], {
    encoding: 'utf8',
    maxBuffer: 256 << 20
  })
  expect(r.status).toBe(0)
  return r.stdout
    .trim()
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l))
}

async function viewDone(): Promise<void> {
  await page.waitForFunction(() => document.querySelector('[data-testid=timeline]')?.getAttribute('data-view-state') === 'done', null, { timeout: 30_000 })
}

async function openFile(path: string): Promise<void> {
  await page.click('button:has-text("Open…")')
  await page.locator('.modal input').fill(path)
  await page.locator('.modal button[type=submit]').click()
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  writeFileSync(ROOMS, scenario.s.pcapng())
  writeFileSync(A, scriptedCapture())
  writeFileSync(B, scriptedCapture(REFERENCE_B_OPTIONS))
  let url: string
  ;({ server, url } = await startServe([ROOMS], join(tmp, 'config')))
  ;({ browser, page } = await openPage(url, problems, { consoleErrors: true }))
  await page.setViewportSize({ width: 1600, height: 1000 })
}, 120_000)

afterAll(async () => {
  await browser?.close()
  server?.kill('SIGTERM')
  rmSync(tmp, { recursive: true, force: true })
})

describe('Rooms and Diff panels in a browser', { timeout: 90_000 }, () => {
  it('the Rooms tab shows the seeded bug at the join it hit, with its rule and frames', async () => {
    await viewDone()
    await page.click('[data-testid=panel-rooms]')
    await page.waitForSelector('[data-testid=rooms][data-state=done]')
    const room = page.locator('[data-testid=room]')
    expect(await room.count()).toBe(1)
    expect(await room.getAttribute('data-name')).toBe('arena-7')
    expect(await room.locator('[data-testid=room-actor]').evaluateAll((els) => els.map((e) => e.getAttribute('data-actor')))).toEqual(['1', '2', '3'])
    const want = `${scenario.frames.removal},${scenario.frames.replay}`
    const roomLevel = room.locator('[data-testid=room-divergences] [data-testid=divergence]')
    expect(await roomLevel.evaluateAll((els) => els.map((e) => [e.getAttribute('data-rule'), e.getAttribute('data-frames')]))).toEqual([
      ['removal-ignored', want]
    ])
    // the join it hit: Cy's (actor 3) diverges; the first two are as Photon replays
    const joins = room.locator('[data-testid=room-join]')
    expect(await joins.evaluateAll((els) => els.map((e) => [e.getAttribute('data-actor'), e.getAttribute('data-verdict')]))).toEqual([
      ['1', 'ok'],
      ['2', 'ok'],
      ['3', 'diverges']
    ])
    const cy = joins.nth(2)
    const divergence = cy.locator('[data-testid=join-divergences] [data-testid=divergence]')
    expect(await divergence.getAttribute('data-rule')).toBe('removal-ignored')
    expect(await divergence.innerText()).toMatch(/removal-ignored events that the RemoveFromRoomCache of actor 2 matched were replayed/)
    // expected (nothing: the removal emptied the cache) beside received (the global 22, as actor 0)
    const lines = cy.locator('[data-testid=replay-line]')
    expect(await lines.count()).toBe(1)
    expect((await lines.first().locator('td').allInnerTexts()).map((t) => t.trim())).toEqual(['', '', '', '22', '0', String(scenario.frames.replay)])
    await shot('01-rooms')
  })

  it("a divergence's frame links select the messages the analysis read in those frames", async () => {
    const messages = decoded(ROOMS)
    const carried = (frame: number) => messages.filter((m) => m.frames[0] === frame || m.frames.at(-1) === frame)
    // the replayed event's frame
    const replay = carried(scenario.frames.replay)
    expect(replay.map((m) => m.name)).toContain('Event 22')
    await page.locator('[data-testid=timeline-row][data-id="1"]').click()
    await expect.poll(selectedRow).toBe('1')
    const links = '[data-testid=room-join][data-actor="3"] [data-testid=join-divergences] [data-testid=frame-link]'
    await page.locator(`${links}[data-frame="${scenario.frames.replay}"]`).click()
    const event = replay.find((m) => m.name === 'Event 22')!
    await expect.poll(selectedRow).toBe(String(event.id))
    await expect.poll(detailId).toBe(String(event.id))
    // the removal's frame carries ACKs first, then the RaiseEvent with cache option 6: the link means the RaiseEvent
    const removal = carried(scenario.frames.removal)
    expect(removal.map((m) => m.name)).toEqual(['ACK', 'ACK', 'ACK', 'RaiseEvent'])
    await page.locator(`${links}[data-frame="${scenario.frames.removal}"]`).click()
    await expect.poll(selectedRow).toBe(String(removal[3].id))
    await expect.poll(detailId).toBe(String(removal[3].id))
    expect(await page.locator('[data-testid=timeline-row][aria-selected="true"]').innerText()).toMatch(/RaiseEvent/)
    await shot('02-rooms-frame-link')
    // By keyboard: the replay's link takes the focus, and Enter follows it as the click did.
    const replayLink = page.locator(`${links}[data-frame="${scenario.frames.replay}"]`)
    await replayLink.focus()
    expect(await replayLink.evaluate((e) => e === document.activeElement)).toBe(true)
    await page.keyboard.press('Enter')
    await expect.poll(selectedRow).toBe(String(event.id))
    await expect.poll(detailId).toBe(String(event.id))
  })

  it('Diff: the reference against the reimplementation shows exactly what is only in A, only in B, and changed', async () => {
    await openFile(A)
    await page.locator('[data-testid=status-bar]').filter({ hasText: 'reference.pcapng' }).waitFor()
    await viewDone()
    await page.click('[data-testid=panel-diff]')
    await page.fill('[data-testid=diff-path]', B)
    await page.click('[data-testid=diff-run]')
    await page.waitForSelector('[data-testid=diff][data-state=done]')
    expect(await seen()).toEqual(EXPECTED)
    const totals = page.locator('[data-testid=diff-totals]')
    expect([await totals.getAttribute('data-changed'), await totals.getAttribute('data-only-a'), await totals.getAttribute('data-only-b')]).toEqual([
      '2',
      '1',
      '1'
    ])
    // lone lines have an empty cell on the other side
    const onlyA = page.locator('[data-testid=diff-row][data-kind=only-a]')
    expect(await onlyA.locator('[data-testid=diff-b]').innerText()).toBe('')
    const onlyB = page.locator('[data-testid=diff-row][data-kind=only-b]')
    expect(await onlyB.locator('[data-testid=diff-a]').innerText()).toBe('')
    // the per-operation summary: the Leave response is A's alone
    const leave = page.locator('[data-testid=diff-op][data-name="Leave response"] td')
    expect((await leave.allInnerTexts()).slice(1).map((t) => t.trim())).toEqual(['1', '0', '0', '0', '1', '0'])
    await shot('03-diff')
  })

  it('an ignore list compares again and the ignored changes are gone', async () => {
    await page.fill('[data-testid=diff-ignore]', 'gold, /parameters.248')
    await page.press('[data-testid=diff-ignore]', 'Enter')
    await expect.poll(() => page.locator('[data-testid=diff-totals]').getAttribute('data-changed')).toBe('0')
    await page.waitForSelector('[data-testid=diff][data-state=done]')
    const expected = EXPECTED.map((c) => ({ ...c, changed: c.changed.filter((x) => x.reordered).map((x) => ({ ...x, fields: [] })) }))
    expect(await seen()).toEqual(expected)
    expect(await page.locator('[data-testid=diff-row][data-kind=changed]').count()).toBe(0)
    expect(await page.locator('[data-testid=diff-ignored]').innerText()).toContain('gold, /parameters.248')
  })

  it('clicking an A message selects it in the timeline', async () => {
    const cli = spawnSync(process.execPath, [BIN, 'diff', A, B, '--json'], { encoding: 'utf8' })
    const report = JSON.parse(cli.stdout) as DiffReport
    const leaveId = report.conversations[0].onlyA[0].id
    const link = page.locator('[data-testid=diff-row][data-kind=only-a] [data-testid=diff-a-link]')
    expect(await link.locator('xpath=..').getAttribute('data-id')).toBe(String(leaveId))
    await link.click()
    await expect.poll(selectedRow).toBe(String(leaveId))
    await expect.poll(detailId).toBe(String(leaveId))
    expect(await page.locator('[data-testid=timeline-row][aria-selected="true"]').innerText()).toMatch(/Leave response/)
    // By keyboard: another A message's link takes the focus, and Enter selects that message.
    const other = page.locator(`[data-testid=diff-a-link]:not([title^="Select message #${leaveId} "])`).first()
    const otherId = await other.locator('xpath=..').getAttribute('data-id')
    expect(otherId).not.toBe(String(leaveId))
    await other.focus()
    expect(await other.evaluate((e) => e === document.activeElement)).toBe(true)
    await page.keyboard.press('Enter')
    await expect.poll(selectedRow).toBe(otherId)
    await expect.poll(detailId).toBe(otherId)
    expect(problems).toEqual([])
  })

  it('a long pair shows its first lines and more on each "Show more", up to every line the CLI reports', async () => {
    // Two runs of the bench's game traffic (other seeds): pairs of hundreds of lines, each with differences.
    const gameA = join(tmp, 'game-a.pcapng')
    const gameB = join(tmp, 'game-b.pcapng')
    writeGameCapture(gameA, join(tmp, 'game-a.keys'), { frames: 4000, seed: 3 })
    writeGameCapture(gameB, join(tmp, 'game-b.keys'), { frames: 6000, seed: 4 })
    await compareInDiffTab(gameA, gameB)
    const report = JSON.parse(
      spawnSync(process.execPath, [BIN, 'diff', gameA, gameB, '--json'], { encoding: 'utf8', maxBuffer: 256 << 20 }).stdout
    ) as DiffReport
    // The first pair shown open with more lines, held by its place (it loses its button on the way).
    const at = await page
      .locator('[data-testid=diff-pair]')
      .evaluateAll((pairs) => pairs.findIndex((p) => p.hasAttribute('open') && p.querySelector('[data-testid=diff-more]')))
    expect(at).toBeGreaterThanOrEqual(0)
    const pair = page.locator('[data-testid=diff-pair]').nth(at)
    const rows = pair.locator('[data-testid=diff-row]')
    expect(await rows.count()).toBe(DIFF_LINES_PAGE)
    // Which pair: its A conversation, as the CLI names it.
    const aId = Number(/A #(\d+)/.exec(await pair.locator('summary').innerText())![1])
    const want = report.conversations.find((c) => c.a?.id === aId)!
    const more = pair.locator('[data-testid=diff-more]')
    let clicks = 0
    while (await more.count()) {
      const shown = await rows.count()
      await more.click()
      await expect.poll(() => rows.count()).toBeGreaterThan(shown)
      clicks++
    }
    expect(clicks).toBeGreaterThan(1)
    // Every line is there now: each message of A and of B once, the lone ones as the CLI lists them.
    const ids = (side: 'a' | 'b', kind: string) =>
      pair
        .locator(`[data-testid=diff-row][data-kind=${kind}] [data-testid=diff-${side}]`)
        .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-id'))))
    // (The lines are in A's order with B's lone messages where B has them; the CLI lists them by id.)
    const byId = (list: number[]) => [...list].sort((x, y) => x - y)
    expect(byId(await ids('b', 'only-b'))).toEqual(want.onlyB.map((m) => m.id))
    expect(byId(await ids('a', 'only-a'))).toEqual(want.onlyA.map((m) => m.id))
    expect(await rows.count()).toBe(want.aligned + want.onlyA.length + want.onlyB.length)
    // A changed message with many fields shows its first 20; "Show all" shows every one, as the CLI names them.
    const k = report.conversations.findIndex((c, i) => i < DIFF_PAIRS_PAGE && c.changed.some((x) => x.fields.length > 25))
    expect(k).toBeGreaterThanOrEqual(0)
    const wide = report.conversations[k]
    const many = wide.changed.find((x) => x.fields.length > 25)!
    const widePair = page.locator(`[data-testid=diff-pair][data-a="${wide.a!.id}"]`)
    const wideRows = widePair.locator('[data-testid=diff-row]')
    const wideMore = widePair.locator('[data-testid=diff-more]')
    while (await wideMore.count()) {
      const shown = await wideRows.count()
      await wideMore.click()
      await expect.poll(() => wideRows.count()).toBeGreaterThan(shown)
    }
    const line = widePair.locator(`[data-testid=diff-row][data-kind=changed]:has([data-testid=diff-a][data-id="${many.a.id}"])`)
    const fieldsRow = line.locator('xpath=following-sibling::tr[1]')
    const shownFields = () =>
      fieldsRow
        .locator('[data-testid=diff-field]')
        .evaluateAll((els) =>
          els.map((f) => [
            f.getAttribute('data-path'),
            f.querySelector('[data-testid=diff-field-a]')!.textContent,
            f.querySelector('[data-testid=diff-field-b]')!.textContent
          ])
        )
    const cli = many.fields.map((f) => [f.path, f.only === 'b' ? '(absent)' : show(f.a), f.only === 'a' ? '(absent)' : show(f.b)])
    expect(await shownFields()).toEqual(cli.slice(0, 20))
    const all = fieldsRow.locator('[data-testid=diff-fields-more]')
    expect(await all.innerText()).toBe(`Show all ${many.fields.length} fields (${many.fields.length - 20} more)`)
    await all.click()
    await expect.poll(shownFields).toEqual(cli)
    expect(await all.count()).toBe(0)
    expect(problems).toEqual([])
  })
})

/** A field's value as the panel writes it: strings quoted. */
const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v))

describe('the Diff tab with many conversation pairs', { timeout: 120_000 }, () => {
  it('shows the first pairs and more on each "Show more", in the order and number the CLI reports; comparing again starts over', async () => {
    const [a, b] = [join(tmp, 'pairs-a.pcap'), join(tmp, 'pairs-b.pcap')]
    await writeConversationsCapture(a, { udp: 90, tcp: 40, seed: 1 })
    await writeConversationsCapture(b, { udp: 80, tcp: 45, seed: 2 })
    const report = JSON.parse(spawnSync(process.execPath, [BIN, 'diff', a, b, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout) as DiffReport
    expect(report.conversations.length).toBeGreaterThan(2 * DIFF_PAIRS_PAGE)
    await compareInDiffTab(a, b)
    const pairs = page.locator('[data-testid=diff-pair]')
    expect(await pairs.count()).toBe(DIFF_PAIRS_PAGE)
    const more = page.locator('[data-testid=diff-more-pairs]')
    expect(await more.innerText()).toBe(`Show ${DIFF_PAIRS_PAGE} more of ${report.conversations.length - DIFF_PAIRS_PAGE} conversation pairs`)
    while (await more.count()) {
      const shown = await pairs.count()
      await more.click()
      await expect.poll(() => pairs.count()).toBeGreaterThan(shown)
    }
    const ids = await pairs.evaluateAll((els) => els.map((e) => [e.getAttribute('data-a'), e.getAttribute('data-b')]))
    expect(ids).toEqual(report.conversations.map((c) => [String(c.a?.id ?? ''), String(c.b?.id ?? '')]))
    expect(await page.locator('[data-testid=diff-totals]').getAttribute('data-only-a')).toBe(String(report.totals.onlyA))
    // Another comparison is a new report: its first page again.
    await page.fill('[data-testid=diff-ignore]', 'gold')
    await page.locator('[data-testid=diff-ignore]').press('Enter')
    await expect.poll(() => pairs.count()).toBe(DIFF_PAIRS_PAGE)
    expect(await more.count()).toBe(1)
    expect(problems).toEqual([])
  })
})

/** Opens capture `a`, then compares it with `b` in the Diff tab and waits for the report on `a`. */
async function compareInDiffTab(a: string, b: string): Promise<void> {
  await openFile(a)
  await page
    .locator('[data-testid=status-bar]')
    .filter({ hasText: basename(a) })
    .waitFor()
  await viewDone()
  if (!(await page.locator('[data-testid=diff]').count())) await page.click('[data-testid=panel-diff]')
  await page.fill('[data-testid=diff-path]', b)
  await page.click('[data-testid=diff-run]')
  await page.waitForSelector('[data-testid=diff][data-state=done]')
  await expect.poll(() => page.locator('[data-testid=diff-totals]').innerText()).toContain(basename(a))
}

/** What the panel shows, in the shape of the CLI test's facts: per pair, the lone lines and the changed ones. */
async function seen() {
  return page.locator('[data-testid=diff-pair]').evaluateAll((pairs) =>
    pairs.map((p) => {
      const rows = [...p.querySelectorAll('[data-testid=diff-row]')]
      const cell = (r: Element, side: 'a' | 'b') => {
        const c = r.querySelector(`[data-testid=diff-${side}]`)!
        return `${c.getAttribute('data-direction')} ${c.getAttribute('data-name')}`
      }
      return {
        protocol: p.getAttribute('data-protocol'),
        pairedBy: p.getAttribute('data-paired-by'),
        onlyA: rows.filter((r) => r.getAttribute('data-kind') === 'only-a').map((r) => cell(r, 'a')),
        onlyB: rows.filter((r) => r.getAttribute('data-kind') === 'only-b').map((r) => cell(r, 'b')),
        changed: rows
          .filter((r) => ['changed', 'reordered'].includes(r.getAttribute('data-kind')!))
          .map((r) => {
            const fields = r.nextElementSibling?.classList.contains('diff-fields-row')
              ? [...r.nextElementSibling.querySelectorAll('[data-testid=diff-field]')]
              : []
            return {
              name: cell(r, 'a'),
              reordered: r.getAttribute('data-reordered') === 'true',
              fields: fields.map(
                (f) =>
                  `${f.getAttribute('data-path')}: ${f.querySelector('[data-testid=diff-field-a]')!.textContent} -> ${f.querySelector('[data-testid=diff-field-b]')!.textContent}`
              )
            }
          })
      }
    })
  )
}
