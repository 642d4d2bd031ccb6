// The committed UI captures are exactly what build-captures.ts produces (regenerate with
// `node test/fixtures/ui/make-ui-fixtures.mjs`), and they hold what the UI tests rely on.
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { UI_FIXTURES, UI_KEY_FILE } from '../../fixtures/ui/build-captures'
import { decodeFile } from '../helpers/decode'

const DIR = join(__dirname, '../../fixtures/ui')

describe('UI fixtures', () => {
  for (const [name, build] of Object.entries(UI_FIXTURES)) {
    it(`${name} matches its generator`, () => {
      expect(Buffer.from(build()).equals(readFileSync(join(DIR, name)))).toBe(true)
    })
  }

  it('keys.txt matches its generator', () => {
    expect(readFileSync(join(DIR, 'keys.txt'), 'utf8')).toBe(UI_KEY_FILE)
  })

  it('the Photon session holds one encrypted request and a fragmented event', () => {
    const { messages, conversations } = decodeFile(join(DIR, 'photon-session.pcapng'))
    expect(conversations.map((c) => c.protocol)).toEqual(['photon'])
    expect(messages.filter((m) => /encrypted.*no key/.test(m.summary))).toHaveLength(1)
    expect(messages.filter((m) => m.frames.length === 3)).toHaveLength(1)
    expect(messages.filter((m) => m.name === 'RaiseEvent')).toHaveLength(150)
  })

  it('the SFS2X capture holds twelve AES-encrypted packets', () => {
    const { messages } = decodeFile(join(DIR, 'sfs2x-aes.pcapng'))
    expect(messages.filter((m) => m.name === 'Encrypted')).toHaveLength(12)
  })
})
