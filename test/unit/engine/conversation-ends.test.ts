// The index keeps each conversation's ends in typed arrays (IPv4) or a map (anything else): every id must
// read back exactly the ends it was given, whatever the order of ids, past the read cache, and the first
// ends given for an id must win (as shards and the engine may both report them).
import { describe, expect, it } from 'vitest'
import { ConversationEndsTable, type ConversationEnds } from '../../../src-shared/engine/conversation-ends'
import { rng } from '../helpers/rng'

describe('ConversationEndsTable', () => {
  it('reads back every conversation exactly: IPv4 in columns, IPv6 and odd addresses in the map', () => {
    const rand = rng(9)
    const table = new ConversationEndsTable()
    const want = new Map<number, ConversationEnds>()
    const ip = (): string =>
      rand() < 0.1
        ? `fe80::${Math.floor(rand() * 0xffff).toString(16)}`
        : rand() < 0.02
          ? '010.1.2.3'
          : `${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.0.${Math.floor(rand() * 256)}`
    // Ids out of order and with holes, as shards report them.
    const ids = Array.from({ length: 12000 }, (_, i) => 1 + i * 3).sort(() => rand() - 0.5)
    for (const id of ids) {
      const e: ConversationEnds = {
        transport: rand() < 0.5 ? 'udp' : 'tcp',
        a: { ip: ip(), port: Math.floor(rand() * 65536) },
        b: { ip: ip(), port: Math.floor(rand() * 65536) }
      }
      table.set(id, e)
      table.set(id, { transport: 'udp', a: { ip: '1.1.1.1', port: 1 }, b: { ip: '2.2.2.2', port: 2 } })
      want.set(id, e)
    }
    for (let pass = 0; pass < 2; pass++) for (const [id, e] of want) expect(table.get(id), `conversation ${id}`).toEqual(e)
    expect(table.get(2)).toBeUndefined()
    expect(table.has(2)).toBe(false)
    expect(table.get(10 ** 6)).toBeUndefined()
    expect(table.families()).toEqual(new Set(['ip', 'ipv6']))
  })

  it('knows no family before any conversation, only ip for IPv4 ones', () => {
    const table = new ConversationEndsTable()
    expect(table.families().size).toBe(0)
    table.set(1, { transport: 'udp', a: { ip: '10.0.0.1', port: 5055 }, b: { ip: '10.0.0.2', port: 40000 } })
    expect(table.families()).toEqual(new Set(['ip']))
  })
})
