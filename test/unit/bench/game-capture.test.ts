// The benchmark's game capture (test/bench/game-traffic.ts) is traffic every gamewire decoder fully decodes:
// a small variant written to disk as the bench writes it, read back through DecodeSession with its key
// file, both as the index pass (no trees) and as the full decode. No message has an error, no
// conversation or message is left to the unknown decoder, every protocol shows up on every carrier the
// generator uses, fragments and segment-straddling packets are reassembled, and every encrypted message
// is decrypted. It also checks the generator is deterministic.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeGameCapture } from '../../bench/game-traffic'
import { DecodeSession } from '../../../src-shared/engine/session'
import type { ConversationInfo, DecodedMessage } from '../../../src-shared/model/types'
import { keyStore } from '../helpers/decode'

const FRAMES = 6000
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-game-capture-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const capture = join(tmp, 'game.pcapng')
const keyFile = join(tmp, 'game.keys')
let written: { frames: number; bytes: number; keys: number }

function decode(recording: boolean): { messages: DecodedMessage[]; conversations: ConversationInfo[]; frames: number } {
  const messages: DecodedMessage[] = []
  const s = new DecodeSession({ keys: keyStore(readFileSync(keyFile, 'utf8')), recording, onMessage: (m) => messages.push(m) })
  const bytes = readFileSync(capture)
  for (let i = 0; i < bytes.length; i += 65536) s.push(new Uint8Array(bytes.subarray(i, i + 65536)))
  s.end()
  return { messages, conversations: s.engine.conversationList(), frames: s.engine.stats.frames }
}

type V = Record<string, unknown>
const value = (m: DecodedMessage) => (m.value ?? {}) as V
const stackOf = (m: { stack: string[] }) => m.stack.join('/')

let full: ReturnType<typeof decode>
let index: ReturnType<typeof decode>
beforeAll(() => {
  written = writeGameCapture(capture, keyFile, { frames: FRAMES, seed: 1 })
  full = decode(true)
  index = decode(false)
}, 120_000)

describe('the bench game capture', () => {
  it('holds about the frames asked for, all read back', () => {
    expect(written.frames).toBeGreaterThanOrEqual(FRAMES)
    expect(written.frames).toBeLessThan(FRAMES * 1.1) // sessions only close once the count is reached
    expect(full.frames).toBe(written.frames)
    expect(written.keys).toBeGreaterThan(0)
  })

  it('decodes without a single error, in the full decode and in the index pass', () => {
    for (const run of [full, index]) {
      const errors = run.messages.filter((m) => m.error !== null).map((m) => `#${m.id} frames ${m.frames.join(',')} ${stackOf(m)} ${m.name}: ${m.error}`)
      expect(errors.slice(0, 20)).toEqual([])
      expect(run.messages.length).toBe(full.messages.length)
    }
  })

  it('leaves nothing to the unknown decoder', () => {
    expect(
      full.messages
        .filter((m) => m.protocol === 'unknown')
        .map((m) => `#${m.id} ${stackOf(m)} ${m.summary}`)
        .slice(0, 20)
    ).toEqual([])
    expect(full.conversations.filter((c) => c.protocol === 'unknown').map((c) => `${c.client} -> ${c.server}`)).toEqual([])
  })

  it('has every protocol on every carrier the generator uses', () => {
    const stacks = new Set(full.conversations.map((c) => stackOf(c)))
    expect([...stacks].sort()).toEqual([
      'tcp/photon',
      'tcp/sfs2x',
      'tcp/websocket/photon',
      'tcp/websocket/sfs2x',
      'udp/enet/fignet',
      'udp/litenetlib/fignet',
      'udp/photon'
    ])
    // decoded application messages, not only transport/control ones, on each
    const named = (stack: string, names: string[]) => {
      const seen = new Set(full.messages.filter((m) => stackOf(m) === stack).map((m) => m.name))
      for (const n of names) expect(seen, `${stack}: ${n}`).toContain(n)
    }
    named('udp/photon', ['Init', 'InitEncryption', 'Authenticate', 'JoinGame response', 'RaiseEvent', 'SendSerialize event', 'GameList event', 'ACK', 'PING'])
    named('tcp/photon', ['Init', 'RaiseEvent', 'SendSerialize event', 'Ping', 'Ping reply'])
    named('tcp/websocket/photon', ['Init', 'RaiseEvent', 'SendSerialize event'])
    named('tcp/sfs2x', ['Handshake', 'Login', 'JoinRoom', 'CallExtension', 'PingPong'])
    named('tcp/websocket/sfs2x', ['Handshake', 'Login', 'JoinRoom', 'CallExtension'])
    named('udp/enet/fignet', ['RegisterIdentity', 'JoinRoom', 'InstantiateEntity', 'EntityUpdate', 'OnEntityState', 'RoomEvent'])
    named('udp/litenetlib/fignet', ['RegisterIdentity', 'JoinRoom', 'InstantiateEntity', 'EntityUpdate', 'OnEntityState', 'RoomEvent'])
    // the transports' own messages carry no FigNet: their stack and protocol end at the transport
    named('udp/enet', ['ACKNOWLEDGE'])
    named('udp/litenetlib', ['Ack'])
    for (const m of full.messages) if (m.stack.at(-1) === 'enet' || m.stack.at(-1) === 'litenetlib') expect(m.protocol).toBe(m.stack.at(-1))
  })

  it('decodes GpBinary 1.6 and 1.8, and FigNet MemoryPack models with TransformLite', () => {
    const protocols = new Set(full.messages.filter((m) => m.protocol === 'photon').map((m) => value(m).protocol))
    expect(protocols).toContain('GpBinary16')
    expect(protocols).toContain('GpBinary18')
    const update = full.messages.find((m) => m.name === 'EntityUpdate' && m.direction === 'c2s')!
    expect(value(update)).toMatchObject({ codec: 'MemoryPack' })
    expect(JSON.stringify(update.tree)).toContain('entangle.transform.')
  })

  it('reassembles fragments and packets that straddle TCP segments', () => {
    const multi = (stack: string, name?: RegExp) => full.messages.filter((m) => stackOf(m) === stack && m.frames.length > 1 && (!name || name.test(m.name)))
    // Photon: ~3 KB events from 3 SEND_FRAGMENT commands
    const photonFrag = multi('udp/photon').filter((m) => m.sources.some((s) => s.name === 'Reassembled message'))
    expect(photonFrag.length).toBeGreaterThan(0)
    expect(photonFrag.map((m) => m.name)).toContain('GameList event')
    // FigNet: 3 KB RoomEvents over ENet fragments and LiteNetLib fragments
    expect(multi('udp/enet/fignet', /^RoomEvent$/).length).toBeGreaterThan(0)
    expect(multi('udp/litenetlib/fignet', /^RoomEvent$/).length).toBeGreaterThan(0)
    // SFS2X: zlib'ed packets longer than a segment, raw and in WebSocket frames (some permessage-deflate)
    const zlibbed = (stack: string) => multi(stack).filter((m) => ((value(m).transforms as string[] | undefined) ?? []).includes('zlib'))
    expect(zlibbed('tcp/sfs2x').length).toBeGreaterThan(0)
    expect(zlibbed('tcp/websocket/sfs2x').length).toBeGreaterThan(0)
    expect(
      full.conversations.some(
        (c) =>
          stackOf(c) === 'tcp/websocket/sfs2x' && full.messages.some((m) => m.conversation === c.id && m.name === 'HTTP 101 response' && (m.value as V).deflate)
      )
    ).toBe(true)
    // Photon over TCP: big events split over segments
    expect(multi('tcp/photon').length).toBeGreaterThan(0)
  })

  it('decrypts every encrypted message with the key file', () => {
    const photonEncrypted = full.messages.filter((m) => m.protocol === 'photon' && value(m).encrypted === true)
    expect(photonEncrypted.length).toBeGreaterThan(0)
    expect(photonEncrypted.filter((m) => !value(m).decryptedWith).map((m) => `#${m.id} ${m.summary}`)).toEqual([])
    expect(new Set(photonEncrypted.map((m) => m.name))).toEqual(new Set(['Authenticate', 'Authenticate response', 'RaiseEvent']))
    const sfsAes = full.messages.filter((m) => m.protocol === 'sfs2x' && ((value(m).transforms as string[] | undefined) ?? []).includes('aes'))
    expect(sfsAes.length).toBeGreaterThan(0)
    expect(full.messages.filter((m) => m.protocol === 'sfs2x' && value(m).encryptedBody !== undefined)).toEqual([])
  })

  it('warns only with the FigNet notes that describe the protocol itself', () => {
    const informational = [
      /RegisterIdentity sends the app secret unencrypted/,
      /RoomId is the (joining player's|sender's peer) id/,
      /RoomEventResponseData: members not listed by the guide/
    ]
    const others = full.messages.flatMap((m) =>
      m.warnings.filter((w) => !informational.some((re) => re.test(w))).map((w) => `#${m.id} ${stackOf(m)} ${m.name}: ${w}`)
    )
    expect(others.slice(0, 20)).toEqual([])
  })

  it('is deterministic: the same seed and count give the same bytes and keys', () => {
    const again = join(tmp, 'again.pcapng')
    writeGameCapture(again, `${again}.keys`, { frames: FRAMES, seed: 1 })
    const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex')
    expect(sha(again)).toBe(sha(capture))
    expect(readFileSync(`${again}.keys`, 'utf8')).toBe(readFileSync(keyFile, 'utf8'))
  })
})
