// An encrypted message with no key for its conversation carries exactly one warning naming the key line
// that would open it, written so the user can copy the conversation into a key line. Per protocol, with
// the tests' encoders: Photon (AES payloads of the UI fixture session), SFS2X (AES-128-CBC of the UI
// fixture), FigNet over LiteNetLib (ChaCha20-Poly1305 sealed by node:crypto). The warning is found by the
// `gamewire.warning` filter; the line it names, with the key filled in, opens the message and the warning
// is gone.
import { describe, expect, it } from 'vitest'
import { createCipheriv, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CaptureReader } from '../../../src-shared/capture'
import { DecodeSession } from '../../../src-shared/engine/session'
import { keyConversation, missingKeyWarning } from '../../../src-shared/keys/hint'
import { parseKeyFile } from '../../../src-shared/keys/keyfile'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import type { DecodedMessage } from '../../../src-shared/model/types'
import { keyStore } from '../helpers/decode'
import { resetFrames, udpFrame } from '../helpers/frames'
import { PHOTON_KEY_LINE, SFS2X_KEY_LINE } from '../../fixtures/ui/build-captures'
import { channelId, DELIVERY, packets, socketAddress, ticksAt } from '../protocols/litenetlib/encoder'

const FIX = join(__dirname, '../../fixtures/ui')

function decode(input: string | CaptureFrame[], keys?: string, filter?: string): DecodedMessage[] {
  const messages: DecodedMessage[] = []
  const s = new DecodeSession({ keys: keys ? keyStore(keys) : undefined, filter, onMessage: (m) => messages.push(m) })
  if (typeof input === 'string') s.push(new Uint8Array(readFileSync(input)))
  else for (const f of input) s.addFrame(f)
  s.end()
  return messages
}

/** The conversation a "no key" warning names (the text after "line for"). */
function namedConversation(w: string): string {
  const m = /line for (\S+)/.exec(w)
  if (!m) throw new Error(`no conversation in: ${w}`)
  return m[1]
}

const noKey = (m: DecodedMessage) => m.warnings.filter((w) => w.startsWith('encrypted, no key'))

describe('the wording', () => {
  it('names the line types and the conversation client first', () => {
    expect(missingKeyWarning(['PHOTON_SECRET', 'PHOTON_AES_KEY', 'PHOTON_DH_PRIVATE'], keyConversation('10.0.0.1:50123', '10.0.0.2:5055'))).toBe(
      'encrypted, no key: add a PHOTON_SECRET, PHOTON_AES_KEY or PHOTON_DH_PRIVATE line for 10.0.0.1:50123-10.0.0.2:5055'
    )
    // the server sent first (side a): the client is still written first
    expect(missingKeyWarning(['SFS2X_AES'], keyConversation('10.0.0.2:9933', '10.0.0.1:40000', 'b2a'))).toBe(
      'encrypted, no key: add an SFS2X_AES line for 10.0.0.1:40000-10.0.0.2:9933'
    )
    expect(missingKeyWarning(['FIGNET_KEY'], keyConversation('[::1]:5000', '[::1]:7777'), 's2c')).toBe(
      'encrypted, no key: add a FIGNET_KEY line for [::1]:5000-[::1]:7777 with direction s2c or both'
    )
    expect(missingKeyWarning(['FIGNET_KEY'], '10.0.0.1:5000-10.0.0.2:7777')).toMatch(/with direction both$/)
  })

  it('writes a conversation a key file reads back as the same client and server', () => {
    for (const conv of ['10.0.0.1:50123-10.0.0.2:5055', '[2001:db8::1]:5000-[2001:db8::2]:7777']) {
      const w = missingKeyWarning(['PHOTON_AES_KEY'], conv)
      const { keys } = parseKeyFile(`PHOTON_AES_KEY ${namedConversation(w)} ${'ab'.repeat(32)}`)
      const [client, server] = conv.split('-')
      expect(keys[0].conversation).toEqual({ client, server })
    }
  })
})

describe('Photon: AES-encrypted operations of the UI fixture session', () => {
  const FILE = join(FIX, 'photon-session.pcapng')
  const [type, fixtureConv, key] = PHOTON_KEY_LINE.split(' ')

  it('without a key: each encrypted message has one warning naming the conversation, found by gamewire.warning', () => {
    const all = decode(FILE)
    const enc = all.filter((m) => /encrypted.*no key/.test(m.summary))
    expect(enc.length).toBeGreaterThan(0)
    for (const m of enc) expect(noKey(m)).toEqual([`encrypted, no key: add a PHOTON_SECRET, PHOTON_AES_KEY or PHOTON_DH_PRIVATE line for ${fixtureConv}`])
    // nothing else carries it
    expect(all.filter((m) => noKey(m).length).map((m) => m.id)).toEqual(enc.map((m) => m.id))
    expect(decode(FILE, undefined, 'gamewire.warning contains "PHOTON_AES_KEY"').map((m) => m.id)).toEqual(enc.map((m) => m.id))
    expect(decode(FILE, undefined, 'gamewire.warning && photon.encrypted == true').map((m) => m.id)).toEqual(enc.map((m) => m.id))
  })

  it('with a PHOTON_DH_PRIVATE line but no InitEncryption public keys seen, names only the lines that can open it', () => {
    const dh = `PHOTON_DH_PRIVATE ${fixtureConv} 0123456789abcdef`
    // with InitEncryption (frames 5 and 6) a right exponent would open it: all three are named
    expect(noKey(decode(FILE, dh).find((m) => noKey(m).length)!)[0]).toMatch(/PHOTON_SECRET, PHOTON_AES_KEY or PHOTON_DH_PRIVATE line/)
    const frames: CaptureFrame[] = []
    const reader = new CaptureReader({ onFrame: (f) => frames.push(f) })
    reader.push(new Uint8Array(readFileSync(FILE)))
    reader.end()
    const withoutKeyExchange = frames.filter((f) => f.number !== 5 && f.number !== 6)
    const enc = decode(withoutKeyExchange, dh).filter((m) => noKey(m).length)
    expect(enc.length).toBeGreaterThan(0)
    for (const m of enc) expect(noKey(m)).toEqual([`encrypted, no key: add a PHOTON_SECRET or PHOTON_AES_KEY line for ${fixtureConv}`])
  })

  it('with the line the warning names: decrypted, no such warning', () => {
    const conv = namedConversation(noKey(decode(FILE).find((m) => noKey(m).length)!)[0])
    const all = decode(FILE, `${type} ${conv} ${key}`)
    expect(all.filter((m) => /no key/.test(m.summary))).toEqual([])
    expect(all.filter((m) => noKey(m).length)).toEqual([])
    expect(all.some((m) => (m.value as { decryptedWith?: string }).decryptedWith)).toBe(true)
    expect(decode(FILE, PHOTON_KEY_LINE, 'gamewire.warning contains "no key"')).toEqual([])
  })
})

describe('SFS2X: AES-128-CBC extension messages of the UI fixture', () => {
  const FILE = join(FIX, 'sfs2x-aes.pcapng')
  const [type, fixtureConv, key, iv] = SFS2X_KEY_LINE.split(' ')

  it('without a key: one warning per encrypted packet naming the SFS2X_AES line', () => {
    const all = decode(FILE)
    const enc = all.filter((m) => m.name === 'Encrypted')
    expect(enc.length).toBeGreaterThan(0)
    for (const m of enc) {
      expect(m.warnings).toEqual([`encrypted, no key: add an SFS2X_AES line for ${fixtureConv}`])
      expect(m.error).toBeNull()
    }
    expect(decode(FILE, undefined, 'gamewire.warning && sfs2x.header.encrypted == true').map((m) => m.id)).toEqual(enc.map((m) => m.id))
  })

  it('with the line the warning names: decrypted, no such warning', () => {
    const conv = namedConversation(decode(FILE).find((m) => m.name === 'Encrypted')!.warnings[0])
    const all = decode(FILE, `${type} ${conv} ${key} ${iv}`)
    expect(all.filter((m) => m.name === 'Encrypted')).toEqual([])
    expect(all.filter((m) => noKey(m).length)).toEqual([])
    expect(all.some((m) => ((m.value as { transforms?: string[] }).transforms ?? []).includes('aes'))).toBe(true)
  })
})

describe('FigNet over LiteNetLib: a ChaCha20-Poly1305 secure-session message', () => {
  const key = randomBytes(32)
  const C = '10.0.0.1'
  const S = '10.0.0.2'

  /** Ping (60002) with callback 4, sealed: 12-byte nonce + ciphertext + tag, the header as associated data (docs/fignet.md). */
  function sealed(): Uint8Array {
    const header = Uint8Array.from([0x62, 0xea, 0x80 | 4])
    const nonce = randomBytes(12)
    const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 })
    c.setAAD(header, { plaintextLength: 2 })
    const body = Buffer.concat([c.update(Uint8Array.from([1, 1])), c.final()])
    return Uint8Array.from([...header, ...nonce, ...body, ...c.getAuthTag()])
  }

  function frames(): CaptureFrame[] {
    resetFrames()
    const p = packets('1.x')
    const t = ticksAt(1_700_000_000)
    return [
      udpFrame(C, 50000, S, 9050, p.connectRequest({ connectionTime: t, address: socketAddress(S, 9050) })),
      udpFrame(S, 9050, C, 50000, p.connectAccept({ connectionTime: t, connectionNumber: 0 })),
      udpFrame(C, 50000, S, 9050, p.channeled(1, channelId(0, DELIVERY.ReliableOrdered), sealed()))
    ]
  }

  it('without a key: one warning naming the FIGNET_KEY line with its direction', () => {
    const all = decode(frames())
    const enc = all.filter((m) => (m.value as { encrypted?: boolean }).encrypted)
    expect(enc).toHaveLength(1)
    expect(enc[0].warnings).toEqual([`encrypted, no key: add a FIGNET_KEY line for ${C}:50000-${S}:9050 with direction c2s or both`])
    expect(all.filter((m) => m.warnings.length)).toEqual(enc)
    expect(decode(frames(), undefined, 'gamewire.warning').map((m) => m.frames)).toEqual([[3]])
  })

  it('with the line the warning names: decrypted, no such warning', () => {
    const w = decode(frames()).find((m) => noKey(m).length)!.warnings[0]
    const all = decode(frames(), `FIGNET_KEY ${namedConversation(w)} c2s ${key.toString('hex')}`)
    const m = all.find((x) => (x.value as { encrypted?: boolean }).encrypted)!
    expect(m.value).toMatchObject({ encrypted: true, msgName: 'Ping', codec: 'BitBuffer' })
    expect(m.warnings).toEqual([])
    expect(decode(frames(), `FIGNET_KEY ${namedConversation(w)} c2s ${key.toString('hex')}`, 'gamewire.warning')).toEqual([])
  })
})
