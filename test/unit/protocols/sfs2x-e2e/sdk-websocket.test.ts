// The official sfs2x-api SmartFox client over WebSocket against a stub server (test/fixtures/sfs2x/
// traffic-sdk-ws.mjs), captured by tshark, with and without permessage-deflate. The truth files hold the
// SDK's own decode of every packet and the events the SDK dispatched.

import { describe, it, expect } from 'vitest'
import { packetChecks } from './packet-checks'
import { decodeFixture, loadTruth, sfsMessages, sfsValueOf, actualValue, compact, type Typed } from './helpers'

const FIXTURES = ['sdk-ws', 'sdk-ws-deflate']

describe.each(FIXTURES)('%s.pcapng (official SDK over WebSocket)', (name) => {
  const truth = loadTruth(name)

  packetChecks(name)

  it('was made as described: path /BlueBox/websocket, permessage-deflate only in the deflate session', () => {
    expect(truth.websocket!.path).toBe('/BlueBox/websocket')
    expect(truth.websocket!.negotiated.includes('permessage-deflate')).toBe(name === 'sdk-ws-deflate')
    expect(truth.stack).toEqual(['tcp', 'websocket', 'sfs2x'])
  })

  it('covers the cases it is meant to: compressed, bigSized over 65535, and the SDK 65335 quirk', () => {
    const headers = truth.packets.map((p) => ({ dir: p.direction, byte: p.header.byte, length: p.length }))
    expect(headers).toContainEqual({ dir: 'c2s', byte: 0xa0, length: expect.any(Number) })
    expect(headers).toContainEqual({ dir: 's2c', byte: 0xa0, length: expect.any(Number) })
    // The SDK frames 65336..65535 bytes with a 4-byte length already.
    expect(headers.some((h) => h.dir === 'c2s' && h.byte === 0xa8 && h.length > 65335 && h.length <= 65535)).toBe(true)
    expect(headers.some((h) => h.dir === 's2c' && h.byte === 0xa8 && h.length > 65535)).toBe(true)
  })

  it('agrees with the events the SDK dispatched on the messages the server sent', () => {
    const s2c = sfsMessages(decodeFixture(name))
      .filter((m) => m.direction === 's2c')
      .map((m) => actualValue(m))
    const events = truth.events!
    const p = (v: { body: Typed }) => (v.body.value as Record<string, Typed>).p.value as Record<string, Typed>

    const login = events.find((e) => e.event === 'login')!
    const loginMsg = s2c.find((v) => v.action === 'Login')!
    expect(p(loginMsg).un.value).toBe(login.user)
    expect(p(loginMsg).id.value).toBe(login.id)
    expect(p(loginMsg).zn.value).toBe(login.zone)
    expect(p(loginMsg).p.value).toEqual(login.data)

    const ext = events.filter((e) => e.event === 'extensionResponse')
    const extMsgs = s2c.filter((v) => v.action === 'CallExtension')
    expect(extMsgs.map((v) => v.command)).toEqual(ext.map((e) => e.cmd))
    ext.forEach((e, i) => {
      expect(p(extMsgs[i]).p.value, String(e.cmd)).toEqual(e.params)
      expect(p(extMsgs[i]).r?.value ?? null, String(e.cmd)).toBe(e.room)
    })

    expect(events.filter((e) => e.event === 'pingPong')).toHaveLength(s2c.filter((v) => v.action === 'PingPong').length)
    const logout = events.find((e) => e.event === 'logout')!
    expect(p(s2c.find((v) => v.action === 'Logout')!).zn.value).toBe(logout.zone)
    // Handshake answer, then Login: the SDK dispatched connection and login in that order.
    expect(events.map((e) => e.event)).toEqual([
      'connection',
      'login',
      'extensionResponse',
      'extensionResponse',
      'extensionResponse',
      'pingPong',
      'logout',
      'connectionLost'
    ])
    expect(s2c.map((v) => v.action)).toEqual(['Handshake', 'Login', 'CallExtension', 'CallExtension', 'CallExtension', 'PingPong', 'Logout'])
    // Each server message is named as the reply the SDK handled it as (its event, or the request's response).
    const asSdkHandled: Record<string, string> = {
      connection: 'HandshakeResponse',
      login: 'LoginResponse',
      extensionResponse: 'ExtensionResponse',
      pingPong: 'PingPongResponse',
      logout: 'LogoutResponse'
    }
    const s2cNames = sfsMessages(decodeFixture(name))
      .filter((m) => m.direction === 's2c')
      .map((m) => m.name)
    expect(s2cNames).toEqual(events.filter((e) => e.event !== 'connectionLost').map((e) => asSdkHandled[e.event as string]))
  })
})

describe('WebSocket sessions with and without permessage-deflate', () => {
  it('decode to the same SFS2X messages', () => {
    const strip = (name: string) =>
      sfsMessages(decodeFixture(name)).map((m) => {
        const v = sfsValueOf(m)
        return {
          direction: m.direction,
          header: v.header,
          length: v.length,
          body: compact(v.body),
          controller: v.controller,
          action: v.action,
          command: v.command ?? null,
          transforms: v.transforms ?? []
        }
      })
    // The two sessions carried the same SFS2X packets (the SDK and the stub are deterministic).
    expect(loadTruth('sdk-ws-deflate').packets).toEqual(loadTruth('sdk-ws').packets)
    const plain = strip('sdk-ws')
    expect(plain.length).toBe(loadTruth('sdk-ws').packets.length)
    expect(strip('sdk-ws-deflate')).toEqual(plain)
  })
})
