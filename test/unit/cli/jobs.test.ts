// `--jobs N` through the built CLI, with real worker threads: the export and the stats are byte-identical
// for any N (the merge reproduces one engine's order), and bad values are one-line usage errors.
import { describe, expect, it } from 'vitest'
import { join } from 'node:path'

import { ROOT, gw } from '../helpers/cli'
const KEYS = join(ROOT, 'test/fixtures/ui/keys.txt')

const captures = [
  'resources/demo.pcapng',
  'test/fixtures/net/loopback.pcapng',
  'test/fixtures/sfs2x/sdk-ws-deflate.pcapng',
  'test/fixtures/capture/pcap-truncated.pcap'
]

describe('gamewire --jobs', () => {
  it.each(captures)('%s: decode gives byte-identical JSON and NDJSON, with and without trees, with 1 and 4 jobs', (file) => {
    for (const [format, tree] of [
      ['json', 'full'],
      ['ndjson', 'full'],
      ['ndjson', 'none']
    ]) {
      const one = gw('decode', file, '--keylog', KEYS, '--format', format, '--tree', tree, '--jobs', '1')
      const four = gw('decode', file, '--keylog', KEYS, '--format', format, '--tree', tree, '--jobs', '4')
      expect(one.code).toBe(0)
      expect(four.code).toBe(0)
      expect(four.stdout.length).toBeGreaterThan(100)
      expect(four.stdout === one.stdout, `${file} ${format} ${tree}`).toBe(true)
    }
  })

  it('a filtered decode is identical too, and a filter on conversation ids still works', () => {
    for (const filter of ['udp.port == 5055 || sfs2x.cmd', 'photon.param.245', 'gamewire.conversation == 2']) {
      const one = gw('decode', 'resources/demo.pcapng', '--keylog', KEYS, '--filter', filter, '--jobs', '1')
      const three = gw('decode', 'resources/demo.pcapng', '--keylog', KEYS, '--filter', filter, '--jobs', '3')
      expect(three.stdout, filter).toBe(one.stdout)
      expect(JSON.parse(one.stdout).messages.length, filter).toBeGreaterThan(0)
    }
  })

  it('stats are identical with 1 and 3 jobs (seconds aside)', () => {
    const strip = (s: string) => {
      const j = JSON.parse(s)
      delete j.seconds
      delete j.index.heapBytesPerMessage
      return j
    }
    const one = gw('stats', 'resources/demo.pcapng', '--json', '--jobs', '1')
    const three = gw('stats', 'resources/demo.pcapng', '--json', '--jobs', '3')
    expect(one.code).toBe(0)
    expect(strip(three.stdout)).toEqual(strip(one.stdout))
  })

  it('refuses a bad --jobs with one line and exit 2', () => {
    for (const bad of ['0', '-1', 'two', '1.5', '65']) {
      const r = gw('decode', 'resources/demo.pcapng', '--jobs', bad)
      expect(r.code).toBe(2)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/--jobs must be a whole number from 1 to 64/)
    }
  })
})
