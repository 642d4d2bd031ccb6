// The CLI as users run it (`node bin/gamewire.mjs decode FILE --filter ...`, on the built output) on the
// Last War fixture: the display filter fields of the SFS2X decoder select exactly the packets the truth
// file says they should.

import { describe, it, expect } from 'vitest'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { FIXTURES, loadTruth, compact, type Typed, type TruthPacket } from './helpers'

const ROOT = join(__dirname, '../../../..')
const BIN = join(ROOT, 'bin/gamewire.mjs')
const FILE = join(FIXTURES, 'lastwar-tcp.pcapng')
const truth = loadTruth('lastwar-tcp')

interface Doc {
  conversations: Array<{ protocol: string; stack: string[]; server: string }>
  messages: Array<{
    direction: string
    protocol: string
    frames: number[]
    summary: string
    value: { command?: string; body: Typed; header: { compressed: boolean } }
  }>
}

function decode(filter: string): Doc {
  const r = spawnSync(process.execPath, [BIN, 'decode', FILE, '--filter', filter], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 })
  expect(r.stderr).toBe('')
  expect(r.status).toBe(0)
  return JSON.parse(r.stdout)
}

function expectPackets(doc: Doc, packets: TruthPacket[]) {
  expect(doc.messages.map((m) => ({ direction: m.direction, protocol: m.protocol, command: m.value.command ?? null }))).toEqual(
    packets.map((p) => ({ direction: p.direction, protocol: 'sfs2x', command: p.command }))
  )
  doc.messages.forEach((m, i) => {
    expect(compact(m.value.body)).toEqual(packets[i].body)
    expect(m.frames.length).toBeGreaterThan(0)
  })
}

const params = (p: TruthPacket) => (((p.body.value as Record<string, Typed>).p.value as Record<string, Typed>).p?.value ?? {}) as Record<string, Typed>

describe('gamewire decode on lastwar-tcp.pcapng with SFS2X filters', () => {
  it('sfs2x.cmd selects one command in both directions', () => {
    const doc = decode('sfs2x.cmd == "mail.read"')
    expectPackets(
      doc,
      truth.packets.filter((p) => p.command === 'mail.read')
    )
    expect(doc.messages).toHaveLength(2)
    expect(doc.messages[0].summary).toMatch(/^CallExtension mail\.read room=-1\b/)
    expect(doc.messages[0].summary).toContain('_id=42')
    expect(doc.conversations.map((c) => ({ protocol: c.protocol, stack: c.stack, server: c.server }))).toEqual([
      { protocol: 'sfs2x', stack: ['tcp', 'http-preamble', 'sfs2x'], server: truth.server }
    ])
  })

  it('sfs2x.header.compressed == true selects the zlib-compressed packets', () => {
    // (A bare `sfs2x.header.compressed` only tests that the field occurs, as in Wireshark.)
    const expected = truth.packets.filter((p) => p.header.compressed)
    expect(expected.length).toBe(3)
    expectPackets(decode('sfs2x.header.compressed == true'), expected)
  })

  it('sfs2x.p.<path> matches a key deep in the body', () => {
    const expected = truth.packets.filter((p) => params(p)._id?.value === 43)
    expect(expected.map((p) => p.command)).toEqual(['world.query', 'world.query'])
    expectPackets(decode('sfs2x.p.p.p._id == 43'), expected)
  })

  it('sfs2x.cmd and a direction together', () => {
    const expected = truth.packets.filter((p) => p.direction === 's2c' && p.command?.startsWith('init.'))
    expect(expected.length).toBe(2)
    expectPackets(decode('(sfs2x.cmd == "init.bootstrap" || sfs2x.cmd == "init.config") && gamewire.direction == "s2c"'), expected)
  })
})
