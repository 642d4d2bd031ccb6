// `gamewire rooms` as users run it (the built bin): the gamewire-rooms/1 document with --json, the text
// report, --keylog turning an unknown verdict into the bug it hid, --help, and one-line errors.
import { beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT, gw } from '../helpers/cli'
import { ROOM, encryptedReplay, photonSession, removalIgnored } from './helpers/photon-room-sessions'

const dir = mkdtempSync(join(tmpdir(), 'gw-rooms-'))
const good = photonSession()
const ignored = removalIgnored()
const encrypted = encryptedReplay()
const files = { good: join(dir, 'good.pcapng'), ignored: join(dir, 'ignored.pcapng'), encrypted: join(dir, 'encrypted.pcapng'), keys: join(dir, 'keys.txt') }

beforeAll(() => {
  writeFileSync(files.good, good.s.pcapng())
  writeFileSync(files.ignored, ignored.s.pcapng())
  writeFileSync(files.encrypted, encrypted.s.pcapng())
  writeFileSync(files.keys, encrypted.s.keyFile())
})

function rooms(...args: string[]) {
  const r = gw('rooms', ...args)
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  return r.stdout
}

describe('gamewire rooms', () => {
  it('--json writes the gamewire-rooms/1 document: the Photon-behaved session has no divergence', () => {
    const doc = JSON.parse(rooms(files.good, '--json'))
    expect(doc.format).toBe('gamewire-rooms/1')
    expect(doc.unknown).toEqual([])
    expect(doc.rooms).toHaveLength(1)
    const room = doc.rooms[0]
    expect(Object.keys(room)).toEqual(expect.arrayContaining(['name', 'server', 'actors', 'master', 'joins', 'divergences']))
    expect(room.name).toBe(ROOM)
    expect(room.server).toBe('10.20.0.1:5056')
    expect(room.divergences).toEqual([])
    expect(Object.keys(room.actors[0]).sort()).toEqual(['actorNr', 'conversation', 'ghost', 'joinMode', 'joinedFrame', 'leftFrame', 'userId'])
    expect(room.master).toEqual([
      { frame: good.frames.aJoin, actorNr: 1, how: 'lowest-active' },
      { frame: good.frames.handoff, actorNr: 2, how: 'set-properties' }
    ])
    const cy = room.joins[2]
    expect(Object.keys(cy)).toEqual(expect.arrayContaining(['frame', 'actorNr', 'conversation', 'expected', 'received', 'divergences']))
    expect(cy).toMatchObject({ frame: good.frames.cJoin, actorNr: 3, conversation: 3, divergences: [] })
    expect(cy.received[0]).toEqual({ code: 22, sender: 0, frame: good.frames.cReplay22 })
  })

  it('--json names the rule and its frames for a seeded bug', () => {
    const doc = JSON.parse(rooms(files.ignored, '--json'))
    expect(doc.rooms[0].divergences.map((d: { rule: string; frames: number[] }) => [d.rule, d.frames])).toEqual([
      ['removal-ignored', [ignored.frames.removal, ignored.frames.replay]]
    ])
    expect(doc.rooms[0].joins[2].divergences[0].detail).toMatch(/RemoveFromRoomCache of actor 2/)
  })

  it('an encrypted replay is unknown without --keylog and shows its bug with it', () => {
    const without = JSON.parse(rooms(files.encrypted, '--json'))
    expect(without.rooms[0].joins[2].verdict).toBe('unknown')
    expect(without.rooms[0].divergences).toEqual([])
    expect(without.unknown.map((u: { frame: number }) => u.frame)).toEqual([encrypted.frames.joinEvent, encrypted.frames.replay, encrypted.frames.live])
    const withKey = JSON.parse(rooms(files.encrypted, '--keylog', files.keys, '--json'))
    expect(withKey.unknown).toEqual([])
    expect(withKey.rooms[0].divergences.map((d: { rule: string; frames: number[] }) => [d.rule, d.frames])).toEqual([
      ['global-replayed-as-sender', [encrypted.frames.replay]]
    ])
  })

  it('prints a readable report without --json', () => {
    const text = rooms(files.ignored)
    expect(text).toContain(`room "${ROOM}" on 10.20.0.1:5056: 3 actors, 3 joins, 1 divergence`)
    expect(text).toContain(`removal-ignored (frames ${ignored.frames.removal}, ${ignored.frames.replay})`)
    expect(text).toMatch(/join #3 \(conversation 3\) frame \d+: diverges/)
    expect(rooms(files.encrypted)).toMatch(/unknown input: 3 messages could not be read/)
  })

  it('the bundled demo: the late joiner got the two cached events with the join response, then only live traffic', () => {
    // test/fixtures/demo-traffic.ts sends the join response, the Join event and both cached events (202 and
    // 12, AddToRoomCache, from actor 1) in one datagram; the unreliable serialize events after it are live.
    const doc = JSON.parse(rooms(join(ROOT, 'resources/demo.pcapng'), '--keylog', join(ROOT, 'resources/demo-keys.txt'), '--json'))
    expect(doc.rooms.map((r: { name: string }) => r.name)).toEqual(['harbor-4711'])
    const late = doc.rooms[0].joins[1]
    expect(late.expected).toEqual([
      { code: 202, sender: 1, cache: 4 },
      { code: 12, sender: 1, cache: 4 }
    ])
    expect(late.received).toEqual([
      { code: 202, sender: 1, frame: late.frame },
      { code: 12, sender: 1, frame: late.frame }
    ])
    expect(doc.rooms[0].divergences).toEqual([])
  })

  it('answers --help and fails in one line with exit 2', () => {
    const help = gw('rooms', '--help')
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^usage: gamewire rooms CAPTURE/)
    for (const o of ['--keylog FILE', '--json', '--decode-as CONV=PROTOCOL']) expect(help.stdout).toContain(o)
    const missing = gw('rooms', join(dir, 'nope.pcapng'))
    expect(missing).toEqual({ code: 2, stdout: '', stderr: `gamewire: capture file not found: ${join(dir, 'nope.pcapng')}\n` })
    const notCapture = gw('rooms', files.keys)
    expect(notCapture.code).toBe(2)
    expect(notCapture.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(gw('rooms').stderr).toBe('gamewire: rooms needs a capture file: gamewire rooms CAPTURE\n')
  })
})
