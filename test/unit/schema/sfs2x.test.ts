// A schema pack's SFS2X extension commands on traffic built with the SFS2X test encoders (helpers.ts):
// the pack's name for the command, its declared params in the summary, a param of another type than
// declared is a warning, and schema.name filters at both depths.
import { beforeEach, describe, expect, it } from 'vitest'
import { resetFrames } from '../helpers/frames'
import { checkRanges, find, rangeBytes } from '../helpers/decode'
import { Conn, envelope, ext, packet, t } from '../protocols/sfs2x/helpers'
import { registerSchemaFields } from '../../../src-shared/schema/set'
import { runWithPacks } from './helpers'

const PACK = {
  format: 'gamewire-schema/1',
  name: 'SFS test game',
  sfs2x: {
    extensions: [
      { command: 'move', name: 'Move player', request: { x: 'INT', y: 'INT' }, response: { ok: 'BOOL', at: 'INT_ARRAY' } },
      { command: 'chat', request: { text: 'UTF_STRING' } }
    ]
  }
}

function frames() {
  resetFrames()
  return new Conn()
    .c(packet(ext('move', { x: t.int(3), y: t.int(4), _id: t.int(1) }, 3)))
    .s(packet(envelope(1, 13, { c: t.str('move'), p: t.obj({ ok: t.bool(true), at: t.str('3,4') }) })))
    .c(packet(ext('chat', { text: t.str('hello') })))
    .c(packet(ext('jump', { h: t.int(9) }))).frames
}

beforeEach(() => registerSchemaFields([]))

describe('SFS2X with a schema pack', () => {
  it('names extension commands and shows their declared params', () => {
    const ms = runWithPacks(frames(), [PACK])
    expect(ms.map((m) => m.summary)).toEqual([
      'Move player move room=3 _id=1 x=3 y=4',
      'Move player move ok=true at="3,4"',
      'CallExtension chat room=-1 text=hello',
      'CallExtension jump room=-1'
    ])
    expect(ms.map((m) => m.name)).toEqual(['Move player', 'Move player', 'CallExtension', 'CallExtension'])
    // The response's `at` is a string where the pack declares INT_ARRAY.
    expect(ms[1].warnings).toEqual(['extension move: param at is UTF_STRING, the schema pack "SFS test game" says INT_ARRAY'])
    expect(ms[0].warnings).toEqual([])
    const name = find(ms[0].tree, 'schema.name')
    expect(name.value).toBe('Move player')
    // On the command string's bytes: u16 length + "move".
    expect(Buffer.from(rangeBytes(ms[0].sources, name)).toString('latin1')).toBe('\u0000\u0004move')
    for (const m of ms) checkRanges(m)
  })

  it('filters on the pack name the same with and without trees', () => {
    const full = runWithPacks(frames(), [PACK], { filter: 'schema.name == "Move player"' })
    expect(full.map((m) => m.direction)).toEqual(['c2s', 's2c'])
    const index = runWithPacks(frames(), [PACK], { recording: false })
    const names = index.map((m) => (m.indexed ? m.indexed.values.filter((_, i) => m.indexed!.keys[i] === 'schema.name') : []))
    expect(names).toEqual([['Move player'], ['Move player'], ['chat'], []])
    expect(index.map((m) => m.summary)).toEqual(runWithPacks(frames(), [PACK]).map((m) => m.summary))
  })
})
