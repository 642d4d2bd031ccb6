#!/usr/bin/env node
// `npx gamewire`: runs the built CLI (npm ci builds it through the `prepare` script).
import { existsSync } from 'node:fs'

const cli = new URL('../out/main/cli.js', import.meta.url)
if (!existsSync(cli)) {
  process.stderr.write('gamewire: not built yet: run `npm run build` in the project folder\n')
  process.exit(2)
}
process.on('uncaughtException', (e) => {
  process.stderr.write(`gamewire: internal error: ${e && e.message ? e.message : e}\n`)
  process.exit(1)
})
const { main } = await import(cli.href)
const code = await main(process.argv.slice(2))
// Let stdout drain before exiting (pipes are asynchronous).
process.exitCode = code
