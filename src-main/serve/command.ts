// `gamewire serve [CAPTURE] [--port N] [--host H] [--jobs N]`: starts the server, prints the URL, and runs
// until SIGINT/SIGTERM. Usage mistakes and unreadable captures are a UsageError (exit 2), like the other
// commands; the options are parsed (and documented) with the others in cli/main.ts.

import { accessSync, constants, statSync } from 'node:fs'
import { one, UsageError, type ParsedArgs } from '../cli/args'
import { DEFAULT_PORT, startServer } from './server'

function checkCapture(path: string): void {
  try {
    accessSync(path, constants.R_OK)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new UsageError(code === 'ENOENT' ? `capture file not found: ${path}` : `cannot read capture file ${path} (${code})`)
  }
  if (statSync(path).isDirectory()) throw new UsageError(`capture file is a directory: ${path}`)
}

export async function serveCommand(a: ParsedArgs, jobs?: number): Promise<number> {
  const portText = one(a, 'port')
  const port = portText === undefined ? DEFAULT_PORT : Number(portText)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0..65535, got '${portText}'`)
  const host = one(a, 'host') ?? '127.0.0.1'
  const capture = a.positional[0]
  if (capture) checkCapture(capture)
  let server: Awaited<ReturnType<typeof startServer>>
  try {
    server = await startServer({ host, port, capture, jobs, log: (line) => process.stderr.write(line + '\n') })
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    if (err.code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use (try --port 0 for a free one)`)
    if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') throw new UsageError(`cannot listen on ${host}`)
    throw new UsageError(err.message)
  }
  // The URL on stdout alone, so scripts and tests can read it.
  process.stdout.write(server.url + '\n')
  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  await server.close()
  return 0
}
