import { describe, expect, test } from 'vitest'
import { parseKeyFile, formatKeyFile, KeyFileError, type KeyEntry } from '../../../src-shared/keys/keyfile'

const h = (hex: string) => Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)))
const K32 = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff'
const K16 = '000102030405060708090a0b0c0d0e0f'
const IV16 = 'f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff'

function parseError(text: string): KeyFileError {
  try {
    parseKeyFile(text)
  } catch (e) {
    if (e instanceof KeyFileError) return e
    throw e
  }
  throw new Error('expected a KeyFileError')
}

describe('parseKeyFile', () => {
  test('every line type, comments, blank lines, case-insensitive hex', () => {
    const text = [
      '# gamewire keys',
      '',
      'PHOTON_SECRET * 0A0b0C   # trailing comment',
      `PHOTON_AES_KEY 127.0.0.1:50000-10.0.0.5:5055 ${K32.toUpperCase()}`,
      'PHOTON_DH_PRIVATE [::1]:5055-[::1]:5056 01',
      `   SFS2X_AES\t*\t${K16} ${IV16}  `,
      `FIGNET_KEY [FE80::1]:1-[fe80::2]:17777 c2s ${K32}`,
      `FIGNET_KEY * both ${K32}`
    ].join('\r\n')
    const { keys, warnings } = parseKeyFile(text)
    expect(warnings).toEqual([])
    expect(keys).toEqual<KeyEntry[]>([
      { type: 'PHOTON_SECRET', conversation: '*', key: h('0a0b0c'), line: 3 },
      { type: 'PHOTON_AES_KEY', conversation: { client: '127.0.0.1:50000', server: '10.0.0.5:5055' }, key: h(K32), line: 4 },
      { type: 'PHOTON_DH_PRIVATE', conversation: { client: '[::1]:5055', server: '[::1]:5056' }, key: h('01'), line: 5 },
      { type: 'SFS2X_AES', conversation: '*', key: h(K16), iv: h(IV16), line: 6 },
      { type: 'FIGNET_KEY', conversation: { client: '[fe80::1]:1', server: '[fe80::2]:17777' }, direction: 'c2s', key: h(K32), line: 7 },
      { type: 'FIGNET_KEY', conversation: '*', direction: 'both', key: h(K32), line: 8 }
    ])
  })

  test('unknown types: one warning per type, naming the first line', () => {
    const text = ['FOO * 00', 'PHOTON_SECRET * 00', 'FOO * 11', 'CLIENT_RANDOM abc def', 'FOO x'].join('\n')
    const { keys, warnings } = parseKeyFile(text)
    expect(keys.map((k) => k.line)).toEqual([2])
    expect(warnings).toEqual(['unknown key type FOO on line 1, skipped (also on lines 3, 5)', 'unknown key type CLIENT_RANDOM on line 4, skipped'])
  })

  test('empty input and a BOM', () => {
    expect(parseKeyFile('')).toEqual({ keys: [], warnings: [] })
    expect(parseKeyFile('\uFEFFPHOTON_SECRET * ff').keys[0].key).toEqual(h('ff'))
  })

  test('an optional 0x prefix on hex is accepted', () => {
    expect(parseKeyFile('PHOTON_SECRET * 0xABCD').keys[0].key).toEqual(h('abcd'))
  })

  const bad: [string, string][] = [
    [`# ok\n\nSFS2X_AES * ${K16.slice(2)} ${IV16}`, 'line 3: SFS2X_AES key must be 16 bytes (32 hex digits), got 15 bytes'],
    [`SFS2X_AES * ${K16} ${IV16}00`, 'line 1: SFS2X_AES IV must be 16 bytes (32 hex digits), got 17 bytes'],
    [`SFS2X_AES * ${K16}`, 'line 1: SFS2X_AES needs 3 fields after the type, got 2 (expected: SFS2X_AES <conv> <hex16 key> <hex16 iv>)'],
    [`PHOTON_AES_KEY * ${K16}`, 'line 1: PHOTON_AES_KEY key must be 32 bytes (64 hex digits), got 16 bytes'],
    [`PHOTON_SECRET * zz`, 'line 1, column 17: PHOTON_SECRET key is not hex (a character other than 0-9, a-f)'],
    [`  PHOTON_SECRET * 0x00g1`, 'line 1, column 23: PHOTON_SECRET key is not hex (a character other than 0-9, a-f)'],
    [`PHOTON_SECRET * abc`, 'line 1: PHOTON_SECRET key has an odd number of hex digits (3)'],
    [`PHOTON_SECRET * 0x`, 'line 1, column 17: PHOTON_SECRET key has no hex digits'],
    [`PHOTON_SECRET *`, 'line 1: PHOTON_SECRET needs 2 fields after the type, got 1 (expected: PHOTON_SECRET <conv> <hex>)'],
    [`PHOTON_SECRET * 00 11`, 'line 1: PHOTON_SECRET needs 2 fields after the type, got 3 (expected: PHOTON_SECRET <conv> <hex>)'],
    [`FIGNET_KEY * up ${K32}`, "line 1, column 14: FIGNET_KEY direction must be c2s, s2c or both, got 'up'"],
    [`FIGNET_KEY * c2s ${K16}`, 'line 1: FIGNET_KEY key must be 32 bytes (64 hex digits), got 16 bytes'],
    [`PHOTON_SECRET 1.2.3.4:5-1.2.3.4 00`, "line 1: bad conversation '1.2.3.4:5-1.2.3.4' (expected * or ip:port-ip:port, IPv6 as [addr]:port)"],
    [`PHOTON_SECRET 1.2.3.256:5-1.2.3.4:6 00`, "line 1: bad conversation '1.2.3.256:5-1.2.3.4:6' (expected * or ip:port-ip:port, IPv6 as [addr]:port)"],
    [`PHOTON_SECRET 1.2.3.4:65536-1.2.3.4:6 00`, "line 1: bad conversation '1.2.3.4:65536-1.2.3.4:6' (expected * or ip:port-ip:port, IPv6 as [addr]:port)"],
    [`PHOTON_SECRET ::1:5055-::1:5056 00`, "line 1: bad conversation '::1:5055-::1:5056' (expected * or ip:port-ip:port, IPv6 as [addr]:port)"],
    [`PHOTON_SECRET host:1-host:2 00`, "line 1: bad conversation 'host:1-host:2' (expected * or ip:port-ip:port, IPv6 as [addr]:port)"],
    [`PHOTON_SECRET ** 00`, "line 1: bad conversation '**' (expected * or ip:port-ip:port, IPv6 as [addr]:port)"]
  ]
  test('no error or warning repeats key material, whatever field it is in', () => {
    // A 32-byte key with one typo, in each position a hurried paste puts it.
    const key = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeefg'
    const lines = [
      `PHOTON_AES_KEY * ${key}`,
      `PHOTON_SECRET ${key.slice(0, 40)} *`,
      `FIGNET_KEY * ${key.slice(0, 20)} ${K32}`,
      key,
      `SFS2X_AES * ${K16} ${key.slice(32)}`
    ]
    for (const line of lines) {
      let text: string
      try {
        text = parseKeyFile(line).warnings.join('\n')
      } catch (e) {
        text = (e as Error).message
      }
      expect(text.length, line).toBeGreaterThan(0)
      for (let i = 0; i + 8 <= key.length; i++) expect(text, line).not.toContain(key.slice(i, i + 8))
    }
  })

  test.each(bad)('malformed: %s', (text, message) => {
    const e = parseError(text)
    expect(e.message).toBe(message)
    expect(e.line).toBe(Number(/^line (\d+)/.exec(message)![1]))
    expect(e.name).toBe('KeyFileError')
  })
})

describe('formatKeyFile', () => {
  test('round-trips through parseKeyFile', () => {
    const text =
      [
        'PHOTON_SECRET * 0a0b0c',
        `PHOTON_AES_KEY 127.0.0.1:50000-10.0.0.5:5055 ${K32}`,
        'PHOTON_DH_PRIVATE [::1]:5055-[::1]:5056 01',
        `SFS2X_AES * ${K16} ${IV16}`,
        `FIGNET_KEY [fe80::1]:1-[fe80::2]:17777 s2c ${K32}`
      ].join('\n') + '\n'
    const parsed = parseKeyFile(text).keys
    const formatted = formatKeyFile(parsed)
    expect(formatted).toBe(text)
    expect(parseKeyFile(formatted).keys).toEqual(parsed)
  })

  test('formats entries built in the app (lowercase hex, one line each)', () => {
    const entry: KeyEntry = {
      type: 'SFS2X_AES',
      conversation: { client: '1.2.3.4:1', server: '5.6.7.8:9933' },
      key: h(K16.toUpperCase()),
      iv: h(IV16),
      line: 0
    }
    expect(formatKeyFile([entry])).toBe(`SFS2X_AES 1.2.3.4:1-5.6.7.8:9933 ${K16} ${IV16}\n`)
    expect(formatKeyFile([])).toBe('')
  })
})
