// Shared by the browser tests: `gamewire serve` started on a free port with its own config folder, and
// headless Debian Chromium (playwright-core) on a page of it that records page errors.
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { chromium, type Browser, type Download, type Page } from 'playwright-core'

export const ROOT = join(__dirname, '../../..')
export const BIN = join(ROOT, 'bin/gamewire.mjs')

/** Starts `gamewire serve ARGS --port 0`; resolves with the process and the URL it prints. */
export async function startServe(args: string[], configDir: string): Promise<{ server: ChildProcess; url: string }> {
  const server = spawn(process.execPath, [BIN, 'serve', ...args, '--port', '0'], {
    env: { ...process.env, GAMEWIRE_CONFIG_DIR: configDir },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stderr = ''
  server.stderr!.on('data', (d) => (stderr += d))
  const url = await new Promise<string>((resolve, reject) => {
    server.stdout!.once('data', (d) => resolve(String(d).trim().split('\n')[0]))
    server.once('exit', (code) => reject(new Error(`gamewire serve exited (${code}): ${stderr}`)))
  })
  return { server, url }
}

/** Launches headless Chromium on `url`; page errors (and console errors, with `consoleErrors`) go to `problems`. */
export async function openPage(url: string, problems: string[], o: { consoleErrors?: boolean } = {}): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync'
    ]
  })
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true })
  const page = await context.newPage()
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  if (o.consoleErrors)
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`)
    })
  await page.goto(url)
  return { browser, page }
}

/**
 * Export… as a person does it: the format and scope buttons, `adjust` for anything else (e.g. untick the
 * trees), Start; the download is saved to `path`. The dialog stays open for the caller to check and close.
 */
export async function exportTo(
  page: Page,
  format: 'json' | 'ndjson' | 'pcapng',
  scope: 'all' | 'filtered' | 'selected',
  path: string,
  adjust?: () => Promise<void>
): Promise<Download> {
  await page.click('[data-testid=export-button]')
  await page.click(`[data-testid=export-format-${format}]`)
  await page.click(`[data-testid=export-scope-${scope}]`)
  await adjust?.()
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-start]')])
  await download.saveAs(path)
  return download
}
