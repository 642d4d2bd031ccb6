// `--schema FILE` on the built CLI: a pack renames messages in decode (with a filter on a pack field, one
// and several jobs) and stats accepts it; a refused pack is one line with its JSON path and exit code 2.
import { describe, expect, it } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gw, ROOT } from '../helpers/cli'

const DEMO = join(ROOT, 'resources/demo.pcapng')
const dir = mkdtempSync(join(tmpdir(), 'gw-schema-'))
// The demo's cached events (RaiseEvent code 12 and 202 from the LoadBalancing session) get a game's names.
const pack = join(dir, 'demo.json')
writeFileSync(
  pack,
  JSON.stringify({ format: 'gamewire-schema/1', name: 'Demo', photon: { events: [{ code: 12, name: 'Cached', parameters: { '245': 'content' } }] } })
)
const bad = join(dir, 'bad.json')
writeFileSync(
  bad,
  JSON.stringify({
    format: 'gamewire-schema/1',
    name: 'Bad',
    photon: {
      events: [
        { code: 1, name: 'A' },
        { code: 2, name: 'B' },
        { code: 3, name: 'C' },
        { code: 256, name: 'D' }
      ]
    }
  })
)

const names = (ndjson: string) =>
  ndjson
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((m) => m.id !== undefined)
    .map((m) => m.name as string)

describe('--schema', () => {
  it('renames messages in decode and filters on pack fields, the same with 1 and 2 jobs', () => {
    const plain = gw('decode', DEMO, '--format', 'ndjson', '--tree', 'none', '--filter', 'photon.ev.code == 12')
    expect(plain.code).toBe(0)
    const before = names(plain.stdout)
    expect(before.length).toBeGreaterThan(0)
    expect(before.every((n) => n !== 'Cached event')).toBe(true)
    for (const jobs of ['1', '2']) {
      const r = gw(
        'decode',
        DEMO,
        '--schema',
        pack,
        '--format',
        'ndjson',
        '--tree',
        'none',
        '--filter',
        'photon.ev.code == Cached && photon.param.content',
        '--jobs',
        jobs
      )
      expect({ jobs, code: r.code, stderr: r.stderr }).toEqual({ jobs, code: 0, stderr: '' })
      expect(names(r.stdout)).toEqual(before.map(() => 'Cached event'))
    }
    expect(gw('stats', DEMO, '--schema', pack, '-q').code).toBe(0)
  })

  it('refuses a pack that does not validate: one line, its JSON path, exit 2', () => {
    for (const cmd of [
      ['decode', DEMO],
      ['stats', DEMO]
    ]) {
      const r = gw(...cmd, '--schema', bad)
      expect(r.code).toBe(2)
      expect(r.stderr).toBe(`gamewire: schema pack ${bad} refused: $.photon.events[3].code: expected an integer 0-255, got 256\n`)
    }
    const missing = gw('decode', DEMO, '--schema', join(dir, 'none.json'))
    expect([missing.code, missing.stderr.trim()]).toEqual([2, `gamewire: schema pack not found: ${join(dir, 'none.json')}`])
    // Without the pack, its field is unknown to the filter.
    expect(gw('decode', DEMO, '--filter', 'photon.param.content').code).toBe(2)
  })
})
