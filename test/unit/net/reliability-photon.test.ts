// Photon reliable-sequence tracking: retransmissions, ACK linking with round trips, per-channel and
// per-direction independence, bounded memory, and a wire-level run through readCommand.
import { describe, it, expect } from 'vitest'
import { FieldReader } from '../../../src-shared/bytes/reader'
import { TreeBuilder } from '../../../src-shared/bytes/tree'
import { readCommand, readHeader } from '../../../src-shared/protocols/photon/udp'
import { ReliabilityTracker } from '../../../src-shared/net/reliability'
import type { WireDir } from '../../../src-shared/model/types'
import { cmd, datagram, message } from '../protocols/photon/udp-encoder'

describe('Photon reliability tracking', () => {
  it('detects retransmissions of the same direction/channel/seq', () => {
    const t = new ReliabilityTracker()
    expect(t.reliable('a2b', 0, 5, 1, 10)).toEqual({ transmission: 1 })
    expect(t.reliable('a2b', 0, 6, 2, 10.1)).toEqual({ transmission: 1 })
    expect(t.reliable('a2b', 0, 5, 3, 10.5)).toEqual({ retransmissionOf: 1, transmission: 2 })
    expect(t.reliable('a2b', 0, 5, 4, 11.5)).toEqual({ retransmissionOf: 1, transmission: 3 })
    // The same message reported again is not a retransmission of itself.
    expect(t.reliable('a2b', 0, 6, 2, 10.1)).toEqual({ transmission: 1 })
  })

  it('links an ACK to the acknowledged message with the round trip from the first and last transmission', () => {
    const t = new ReliabilityTracker()
    t.reliable('a2b', 0, 5, 1, 10)
    t.reliable('a2b', 0, 5, 3, 10.5)
    const r = t.ack('b2a', 0, 5, 10.75)
    expect(r.ackedMessage).toBe(1)
    expect(r.rttMs).toBeCloseTo(750, 6)
    expect(r.rttLastMs).toBeCloseTo(250, 6)
    expect(r.transmissions).toBe(2)
    expect(r.duplicate).toBeUndefined()
    const again = t.ack('b2a', 0, 5, 10.8)
    expect(again).toMatchObject({ ackedMessage: 1, duplicate: true })
    // Unknown sequence, wrong channel, or an ACK travelling the same way as the command: nothing linked.
    expect(t.ack('b2a', 0, 99, 11)).toEqual({})
    expect(t.ack('b2a', 1, 5, 11)).toEqual({})
    expect(t.ack('a2b', 0, 5, 11)).toEqual({})
  })

  it('keeps channels independent (255 separate from 0)', () => {
    const t = new ReliabilityTracker()
    expect(t.reliable('a2b', 0, 1, 10, 1)).toEqual({ transmission: 1 })
    expect(t.reliable('a2b', 255, 1, 11, 1)).toEqual({ transmission: 1 })
    expect(t.reliable('a2b', 255, 1, 12, 2)).toEqual({ retransmissionOf: 11, transmission: 2 })
    expect(t.ack('b2a', 255, 1, 3).ackedMessage).toBe(11)
    expect(t.ack('b2a', 0, 1, 3).ackedMessage).toBe(10)
  })

  it('keeps directions independent', () => {
    const t = new ReliabilityTracker()
    expect(t.reliable('a2b', 0, 1, 10, 1)).toEqual({ transmission: 1 })
    expect(t.reliable('b2a', 0, 1, 20, 1.1)).toEqual({ transmission: 1 })
    expect(t.ack('a2b', 0, 1, 1.2).ackedMessage).toBe(20)
    expect(t.ack('b2a', 0, 1, 1.3).ackedMessage).toBe(10)
  })

  it('bounds memory per channel and forgets the oldest sequence numbers', () => {
    const t = new ReliabilityTracker({ maxPerChannel: 100 })
    for (let s = 1; s <= 1000; s++) t.reliable('a2b', 0, s, s, s / 100)
    expect(t.size).toBe(100)
    expect(t.ack('b2a', 0, 5, 20)).toEqual({})
    expect(t.ack('b2a', 0, 950, 20).ackedMessage).toBe(950)
    const d = new ReliabilityTracker()
    for (let s = 0; s < 70_000; s++) d.reliable('b2a', 0, s, s, 0)
    expect(d.size).toBe(65536)
    d.clear()
    expect(d.size).toBe(0)
  })

  it('a sequence number reused long after (reconnect) is a new command, not a retransmission', () => {
    const t = new ReliabilityTracker({ retransmitWindow: 60 })
    t.reliable('a2b', 0, 1, 1, 0)
    expect(t.reliable('a2b', 0, 1, 2, 30)).toEqual({ retransmissionOf: 1, transmission: 2 })
    expect(t.reliable('a2b', 0, 1, 3, 200)).toEqual({ transmission: 1 })
    expect(t.ack('b2a', 0, 1, 200.05)).toMatchObject({ ackedMessage: 3, transmissions: 1 })
  })

  it('msPerTimeUnit scales round trips', () => {
    const t = new ReliabilityTracker({ msPerTimeUnit: 1 })
    t.reliable('a2b', 0, 1, 1, 1000)
    expect(t.ack('b2a', 0, 1, 1040).rttMs).toBe(40)
  })

  it('wire run: reliable commands and ACKs read from datagrams link up', () => {
    // client (a) -> server (b): CONNECT (ch 255 seq 1), then a reliable message (ch 0 seq 1), retransmitted,
    // and SERVERTIME (ch 255 seq 2); server ACKs each on the command's channel.
    const frames: { dir: WireDir; time: number; bytes: Uint8Array }[] = [
      { dir: 'a2b', time: 0.0, bytes: datagram({ peerId: -1, commands: [cmd.connect()] }).bytes },
      { dir: 'b2a', time: 0.04, bytes: datagram({ commands: [cmd.ack(255, 1, 0), cmd.verifyConnect(7)] }).bytes },
      { dir: 'a2b', time: 0.05, bytes: datagram({ peerId: 7, commands: [cmd.ack(255, 1, 40), cmd.reliable(0, 1, message(41, 0))] }).bytes },
      { dir: 'a2b', time: 0.35, bytes: datagram({ peerId: 7, commands: [cmd.reliable(0, 1, message(41, 0)), cmd.serverTime(2)] }).bytes },
      { dir: 'b2a', time: 0.4, bytes: datagram({ commands: [cmd.ack(0, 1, 50), cmd.ack(255, 2, 350)] }).bytes }
    ]
    const t = new ReliabilityTracker()
    const log: string[] = []
    let id = 0
    for (const f of frames) {
      const r = new FieldReader(f.bytes, new TreeBuilder(false), 0)
      const h = readHeader(r)
      for (let i = 0; i < h.commandCount; i++) {
        const c = readCommand(r)
        const mid = ++id
        if (c.ack) {
          const a = t.ack(f.dir, c.channel, c.ack.seq, f.time)
          log.push(`${mid} ack ch${c.channel} seq${c.ack.seq} -> ${a.ackedMessage} ${Math.round(a.rttMs ?? -1)}ms`)
        } else if (c.flags & 1) {
          const x = t.reliable(f.dir, c.channel, c.reliableSeq, mid, f.time)
          log.push(`${mid} ${c.typeName} ch${c.channel} seq${c.reliableSeq}${x.retransmissionOf ? ` retransmits ${x.retransmissionOf}` : ''}`)
        }
      }
    }
    expect(log).toEqual([
      '1 CONNECT ch255 seq1',
      '2 ack ch255 seq1 -> 1 40ms',
      '3 VERIFYCONNECT ch255 seq1',
      '4 ack ch255 seq1 -> 3 10ms',
      '5 SEND_RELIABLE ch0 seq1',
      '6 SEND_RELIABLE ch0 seq1 retransmits 5',
      '7 SERVERTIME ch255 seq2',
      '8 ack ch0 seq1 -> 5 350ms',
      '9 ack ch255 seq2 -> 7 50ms'
    ])
  })
})
