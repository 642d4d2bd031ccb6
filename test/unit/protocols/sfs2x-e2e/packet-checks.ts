// The checks every SFS2X fixture gets: the decoded conversation and every packet against the truth file.

import { it, expect } from 'vitest'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { FIXTURES, decodeFixture, loadTruth, sfsMessages, sfsValueOf, expectedValue, actualValue, keyOrder, type Truth, type TruthPacket } from './helpers'
import type { DecodedMessage } from '../../../../src-shared/model/types'

/**
 * The truth files name each packet's action id, which is the request's name in both directions. What the
 * server sends on it is read as the response: SFSEvent EXTENSION_RESPONSE for the Extension controller,
 * and the reply to each system request these sessions make (none of them is a push to other users).
 */
const SERVER_NAMES: Readonly<Record<string, string>> = {
  Handshake: 'HandshakeResponse',
  Login: 'LoginResponse',
  CallExtension: 'ExtensionResponse',
  PingPong: 'PingPongResponse',
  Logout: 'LogoutResponse'
}

const label = (p: TruthPacket, i: number) => `packet ${i} ${p.direction} ${p.action}${p.command ? ` ${p.command}` : ''}`

/** The decoded SFS2X messages paired with the truth packets, in order (fails when the counts differ). */
export function paired(name: string): Array<[DecodedMessage, TruthPacket]> {
  const truth = loadTruth(name)
  const msgs = sfsMessages(decodeFixture(name))
  expect(msgs.length, `${name}: number of sfs2x messages`).toBe(truth.packets.length)
  return truth.packets.map((p, i) => [msgs[i], p])
}

const wireLength = (p: TruthPacket) => ('hex' in p.wire ? p.wire.hex.length / 2 : p.wire.length)

/**
 * For raw TCP fixtures: the frames that carried each packet's bytes, from tshark's TCP sequence numbers and
 * the truth file's packet sizes (the stream is exactly the preamble, if any, then the packets).
 */
function tsharkFrames(name: string, truth: Truth): number[][] {
  const out = execFileSync(
    'tshark',
    ['-r', join(FIXTURES, `${name}.pcapng`), '-T', 'fields', '-E', 'separator=/t', '-e', 'frame.number', '-e', 'tcp.srcport', '-e', 'tcp.seq', '-e', 'tcp.len'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 1 << 26
    }
  ).toString()
  const serverPort = truth.server.split(':').pop()
  const segs = out
    .trim()
    .split('\n')
    .map((l) => l.split('\t'))
    .filter((f) => Number(f[3]) > 0)
    .map((f) => ({
      frame: Number(f[0]),
      dir: f[1] === serverPort ? 's2c' : 'c2s',
      start: Number(f[2]) - 1,
      end: Number(f[2]) - 1 + Number(f[3])
    }))
  const offset = { c2s: truth.preamble?.request.length ?? 0, s2c: truth.preamble?.response.length ?? 0 }
  return truth.packets.map((p) => {
    const start = offset[p.direction]
    const end = start + wireLength(p)
    offset[p.direction] = end
    return [...new Set(segs.filter((s) => s.dir === p.direction && s.start < end && s.end > start).map((s) => s.frame))].sort((a, b) => a - b)
  })
}

export function packetChecks(name: string): void {
  const truth: Truth = loadTruth(name)

  it('has one TCP conversation, the SFS2X server as server, with the stack and protocol of the truth file', () => {
    const { conversations } = decodeFixture(name)
    expect(conversations.map((c) => ({ transport: c.transport, server: c.server, protocol: c.protocol, stack: c.stack }))).toEqual([
      { transport: 'tcp', server: truth.server, protocol: 'sfs2x', stack: truth.stack }
    ])
  })

  it('decodes every packet, in order, with the right direction, controller, action and command', () => {
    const msgs = sfsMessages(decodeFixture(name))
    const actual = msgs.map((m) => ({
      direction: m.direction,
      controller: sfsValueOf(m).controller,
      action: sfsValueOf(m).action,
      command: sfsValueOf(m).command ?? null
    }))
    const expected = truth.packets.map((p) => ({ direction: p.direction, controller: p.controller, action: p.action, command: p.command }))
    expect(actual).toEqual(expected)
  })

  it("gives each packet's header bits, length and body exactly as the SDK decoded it", () => {
    for (const [i, [m, p]] of paired(name).entries()) {
      expect.soft(actualValue(m), label(p, i)).toEqual(expectedValue(p))
    }
  })

  it('keeps the object keys in wire order', () => {
    for (const [i, [m, p]] of paired(name).entries()) {
      expect.soft(keyOrder(actualValue(m).body), label(p, i)).toEqual(keyOrder(p.body))
    }
  })

  it('lists the transforms undone, and shows the plain body as a data source', () => {
    for (const [i, [m, p]] of paired(name).entries()) {
      expect.soft(sfsValueOf(m).transforms ?? [], `${label(p, i)} transforms`).toEqual(p.transforms)
      if (p.transforms.length) {
        const plainBody = m.sources.find((s) => s.bytes.length === p.uncompressedLength && s.bytes[0] === 0x12)
        expect.soft(plainBody, `${label(p, i)}: a ${p.uncompressedLength}-byte source holding the SFSObject`).toBeDefined()
      }
    }
  })

  it('gives every message its frames (non-empty, ascending), the stack, and no error', () => {
    for (const [i, [m, p]] of paired(name).entries()) {
      expect.soft(m.frames.length, label(p, i)).toBeGreaterThan(0)
      expect.soft(m.frames, label(p, i)).toEqual([...new Set(m.frames)].sort((a, b) => a - b))
      expect.soft(m.stack, label(p, i)).toEqual(truth.stack)
      expect.soft(m.error, label(p, i)).toBeNull()
    }
    // A loopback MTU of 1400 bytes: a packet of N bytes needs at least N / 1400 frames.
    for (const [i, [m, p]] of paired(name).entries()) expect.soft(m.frames.length, label(p, i)).toBeGreaterThanOrEqual(Math.ceil(wireLength(p) / 1400))
    // Messages arrive in capture order.
    const last = sfsMessages(decodeFixture(name)).map((m) => m.frames[m.frames.length - 1])
    expect(last).toEqual([...last].sort((a, b) => a - b))
  })

  if (truth.stack[1] !== 'websocket') {
    it('lists exactly the frames that carried bytes of each packet (tshark TCP sequence numbers)', () => {
      const expected = tsharkFrames(name, truth)
      const actual = paired(name).map(([m]) => m.frames)
      expect(actual).toEqual(expected)
    })
  }

  it('names requests by their action and server messages as responses, extension calls by command and room', () => {
    for (const [i, [m, p]] of paired(name).entries()) {
      const expected = p.direction === 'c2s' ? p.action : SERVER_NAMES[p.action]
      expect.soft(expected, `${label(p, i)}: no expected server name for ${p.action}`).toBeDefined()
      expect.soft(m.name, label(p, i)).toBe(expected)
      if (p.command) {
        expect.soft(m.summary, label(p, i)).toMatch(new RegExp(`^${expected} ${p.command.replace(/\./g, '\\.')}(\\s|$)`))
        if (p.room !== null) expect.soft(m.summary, label(p, i)).toContain(`room=${p.room}`)
      } else {
        expect.soft(m.summary.startsWith(expected), `${label(p, i)}: ${m.summary}`).toBe(true)
      }
    }
  })

  it('leaves no SFS2X bytes undecoded', () => {
    const { messages } = decodeFixture(name)
    // Besides the SFS2X packets only the HTTP upgrade exchange and WebSocket control frames may appear.
    const others = messages.filter((m) => m.protocol !== 'sfs2x')
    for (const m of others) expect.soft(`${m.protocol} ${m.name}`).toMatch(/HTTP|Close|Ping|Pong|websocket/i)
    const undecoded = others.filter((m) => m.protocol === 'unknown' && !/HTTP/.test(m.name))
    expect(undecoded.map((m) => `${m.name}: ${m.summary}`)).toEqual([])
  })
}
