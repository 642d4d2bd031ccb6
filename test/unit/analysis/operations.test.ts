// Requests, responses, unanswered requests and latency per operation (`gamewire stats --ops`, and the
// app's Statistics through the same module), on a capture whose response delays are scripted per
// protocol (test/fixtures/analysis/scripted-session.ts): the expected tables are worked out by hand from
// the script's delays, including two SFS2X calls answered in reverse order that only their `_id` pairs.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { captureStats } from '../../../src-main/host/capture-stats'
import { scriptedCapture } from '../../fixtures/analysis/scripted-session'
import { gw } from '../helpers/cli'

const tmp = mkdtempSync(join(tmpdir(), 'gamewire-ops-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const op = (protocol: string, name: string, count: number, responses: number, unanswered: number, p50: number | null, p95 = p50, max = p95) => ({
  protocol,
  name,
  count,
  responses,
  unanswered,
  p50,
  p95,
  max
})

// Per conversation, most requests first, then most responses, then by name.
const PHOTON = [
  op('photon', 'Authenticate', 1, 1, 0, 20),
  op('photon', 'CreateGame', 1, 1, 0, 30),
  op('photon', 'JoinLobby', 1, 1, 0, 12),
  op('photon', 'Leave', 1, 1, 0, 7),
  op('photon', 'RaiseEvent', 1, 0, 1, null),
  op('photon', 'SetProperties', 1, 0, 1, null)
]
const SFS2X = [
  // the second call answered 10 ms after it, the first 42 ms after it: nearest-rank p50 of [10, 42] is 10
  op('sfs2x', 'CallExtension mail.read', 2, 2, 0, 10, 42, 42),
  // no _id: the one response goes to the oldest request, the later one stays unanswered
  op('sfs2x', 'CallExtension shop.buy', 2, 1, 1, 25),
  op('sfs2x', 'Handshake', 1, 1, 0, 5),
  op('sfs2x', 'Login', 1, 1, 0, 20)
]
const FIGNET = [
  op('fignet', 'CreateRoom', 1, 1, 0, 17),
  op('fignet', 'JoinRoom', 1, 1, 0, 11),
  op('fignet', 'RegisterIdentity', 1, 1, 0, 9),
  op('fignet', 'InstantiateEntity', 1, 0, 1, null)
]

describe('latency per operation', () => {
  const file = join(tmp, 'scripted.pcapng')
  writeFileSync(file, scriptedCapture())

  it('gives requests, responses, unanswered and p50/p95/max per conversation and overall, as scripted', async () => {
    const s = await captureStats(file, { ops: true, jobs: 2 })
    const r = s.operations!
    expect(r.conversations.map((c) => [c.conversation, c.protocol])).toEqual([
      [1, 'photon'],
      [2, 'sfs2x'],
      [3, 'fignet']
    ])
    expect(r.conversations[0].operations).toEqual(PHOTON)
    expect(r.conversations[1].operations).toEqual(SFS2X)
    expect(r.conversations[2].operations).toEqual(FIGNET)
    const byKey = (a: { protocol: string; name: string }, b: { protocol: string; name: string }) => (a.protocol + a.name).localeCompare(b.protocol + b.name)
    expect([...r.overall].sort(byKey)).toEqual([...PHOTON, ...SFS2X, ...FIGNET].sort(byKey))
    // most requests first
    expect(r.overall.slice(0, 2).map((o) => o.name)).toEqual(['CallExtension mail.read', 'CallExtension shop.buy'])
  })

  it('a slower server and a dropped response show in the numbers', async () => {
    const slow = join(tmp, 'slow.pcapng')
    writeFileSync(slow, scriptedCapture({ slower: 3, dropLeaveResponse: true }))
    const r = (await captureStats(slow, { ops: true })).operations!
    const photon = r.conversations[0].operations
    expect(photon.find((o) => o.name === 'Leave')).toEqual(op('photon', 'Leave', 1, 0, 1, null))
    expect(photon.find((o) => o.name === 'CreateGame')).toEqual(op('photon', 'CreateGame', 1, 1, 0, 33))
    expect(r.conversations[1].operations[0]).toEqual(op('sfs2x', 'CallExtension mail.read', 2, 2, 0, 13, 45, 45))
  })

  it('through the CLI: stats --ops --json and the text table', () => {
    const j = gw('stats', file, '--ops', '--json', '-q')
    expect(j.stderr).toBe('')
    expect(j.code).toBe(0)
    const doc = JSON.parse(j.stdout)
    expect(doc.operations.conversations[1].operations).toEqual(SFS2X)
    expect(doc.operations.overall).toHaveLength(PHOTON.length + SFS2X.length + FIGNET.length)
    const text = gw('stats', file, '--ops', '-q')
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/operations \(all conversations\):/)
    expect(text.stdout).toMatch(/sfs2x\s+CallExtension mail\.read\s+2\s+2\s+0\s+10\s+42\s+42/)
    expect(text.stdout).toMatch(/fignet\s+InstantiateEntity\s+1\s+0\s+1\s+-\s+-\s+-/)
    // without --ops, no operations
    expect(JSON.parse(gw('stats', file, '--json', '-q').stdout).operations).toBeUndefined()
  })
})
