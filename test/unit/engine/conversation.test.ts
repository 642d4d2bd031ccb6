import { describe, it, expect, beforeEach } from 'vitest'
import { Engine } from '../../../src-shared/engine/engine'
import { ProtocolRegistry, type ProtocolModule } from '../../../src-shared/protocols/registry'
import { MessageDraft } from '../../../src-shared/bytes/tree'
import type { DecodedMessage } from '../../../src-shared/model/types'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { udpFrame, tcpFrame, resetFrames, SYN, ACK, PSH, RST } from '../helpers/frames'

function run(frames: CaptureFrame[], registry = new ProtocolRegistry(), decodeAs?: { match: number | string; protocol: string }[]) {
  const messages: DecodedMessage[] = []
  const engine = new Engine({ registry, decodeAs, onMessage: (m) => messages.push(m) })
  for (const f of frames) engine.addFrame(f)
  engine.finish()
  return { messages, conversations: engine.conversationList() }
}

const C = '10.0.0.1'
const S = '10.0.0.2'

/** A toy protocol: datagrams starting with "TOY" and a length-prefixed stream framing (1-byte length). */
function toyModule(opts: { confidence?: number; ports?: number[]; id?: string; throwOn?: string } = {}): ProtocolModule {
  return {
    id: opts.id ?? 'toy',
    name: 'Toy',
    carriers: ['udp', 'tcp'],
    ports: opts.ports,
    probe: ({ bytes }) => (new TextDecoder().decode(bytes.subarray(0, 8)).includes('TOY') ? (opts.confidence ?? 80) : 0),
    create: (ctx) => ({
      datagram(pdu, emit) {
        const text = new TextDecoder().decode(pdu.bytes)
        if (opts.throwOn && text.includes(opts.throwOn)) throw new Error('toy bug')
        if (text === 'TOY hello') ctx.setClient(pdu.dir)
        emit({
          dir: pdu.dir,
          frames: pdu.frames,
          time: pdu.time,
          protocol: opts.id ?? 'toy',
          stack: pdu.stack,
          name: 'Toy',
          summary: text,
          value: { text },
          draft: pdu.draft
        })
      },
      stream(dir, stream, stack, emit) {
        while (stream.available >= 1 && stream.available >= 1 + stream.byteAt(0)) {
          const t = stream.take(1 + stream.byteAt(0))
          const draft = new MessageDraft()
          draft.addSource('TCP payload', t.bytes)
          emit({ dir, frames: t.frames, time: t.time, protocol: 'toy', stack, name: 'ToyRecord', summary: `${t.bytes.length - 1} bytes`, value: null, draft })
        }
      }
    })
  }
}

beforeEach(() => resetFrames())

describe('conversations', () => {
  it('take the SYN sender as client, even when the SYN/ACK is the first packet seen', () => {
    const { conversations, messages } = run([
      tcpFrame(S, 80, C, 40000, 500, SYN | ACK),
      tcpFrame(C, 40000, S, 80, 101, ACK | PSH, 'hi'),
      tcpFrame(S, 80, C, 40000, 501, ACK | PSH, 'yo')
    ])
    expect(conversations[0]).toMatchObject({ client: '10.0.0.1:40000', server: '10.0.0.2:80', roleFrom: 'handshake' })
    expect(messages.map((m) => m.direction)).toEqual(['c2s', 's2c'])
  })

  it('note a connection joined mid-stream, a reset and a gap, and keep decoding after the gap', () => {
    const { conversations, messages } = run([
      tcpFrame(C, 40000, S, 80, 1000, ACK | PSH, 'abc'),
      tcpFrame(C, 40000, S, 80, 1010, ACK | PSH, 'xyz'), // 7 bytes never captured
      tcpFrame(S, 80, C, 40000, 7, RST)
    ])
    expect(conversations[0].notes).toEqual(
      expect.arrayContaining(['TCP a→b: 7 bytes missing at stream offset 3', 'TCP handshake not captured: joined mid-stream', 'connection reset (RST)'])
    )
    expect(messages.map((m) => m.summary)).toEqual(['3 bytes', '3 bytes'])
    expect(messages.map((m) => m.direction)).toEqual(['a2b', 'a2b'])
  })

  it('say when a TCP stream is TLS', () => {
    const hello = new Uint8Array([0x16, 0x03, 0x01, 0x00, 0x05, 1, 0, 0, 1, 0])
    const { conversations } = run([tcpFrame(C, 40000, S, 443, 1, SYN), tcpFrame(C, 40000, S, 443, 2, ACK | PSH, hello)])
    expect(conversations[0].notes).toContain('TLS-encrypted: the payload cannot be decoded without the session keys')
  })

  it('show the rest of a connection whose HTTP upgrade was refused as plain bytes', () => {
    const req =
      'GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'
    const res = 'HTTP/1.1 400 Bad Request\r\nContent-Length: 4\r\n\r\nnope'
    const { conversations, messages } = run([
      tcpFrame(C, 40000, S, 80, 1, SYN),
      tcpFrame(C, 40000, S, 80, 2, ACK | PSH, req),
      tcpFrame(S, 80, C, 40000, 1, ACK | PSH, res)
    ])
    expect(conversations[0].stack).toEqual(['tcp', 'http'])
    expect(messages.some((m) => m.protocol === 'unknown' && new TextDecoder().decode((m.value as { hex: Uint8Array }).hex) === 'nope')).toBe(true)
  })
})

describe('decoder registry', () => {
  it('hands a conversation to the protocol whose probe claims its first payload', () => {
    const registry = new ProtocolRegistry()
    registry.register(toyModule())
    const { conversations, messages } = run([udpFrame(C, 5000, S, 6000, 'TOY hello'), udpFrame(S, 6000, C, 5000, 'anything')], registry)
    expect(conversations[0]).toMatchObject({ protocol: 'toy', stack: ['udp', 'toy'], roleFrom: 'handshake' })
    expect(messages.map((m) => [m.protocol, m.direction, m.summary])).toEqual([
      ['toy', 'c2s', 'TOY hello'],
      ['toy', 's2c', 'anything']
    ])
    expect(messages[0].stack).toEqual(['udp', 'toy'])
  })

  it('puts each UDP datagram in the conversation of its own address pair, either way round, between runs of others', () => {
    // The engine remembers keys by port pair: pairs differing only in one address or one port must not share one.
    const T = '10.0.0.3'
    const frames = [
      udpFrame(C, 5000, S, 6000, 'a1'),
      udpFrame(S, 6000, C, 5000, 'a2'),
      udpFrame(T, 5000, S, 6000, 'b1'),
      udpFrame(C, 5000, S, 6000, 'a3'),
      udpFrame(C, 5001, S, 6000, 'c1'),
      udpFrame(S, 6000, C, 5001, 'c2'),
      udpFrame(S, 5000, C, 6000, 'd1'),
      udpFrame(S, 6000, T, 5000, 'b2'),
      udpFrame(S, 6000, C, 5000, 'a4')
    ]
    const { messages, conversations } = run(frames)
    const byConv = new Map<number, string[]>()
    for (const m of messages)
      byConv.set(m.conversation, [...(byConv.get(m.conversation) ?? []), `${m.direction}:${new TextDecoder().decode(m.sources[0].bytes)}`])
    expect([...byConv.values()]).toEqual([['a2b:a1', 'b2a:a2', 'a2b:a3', 'b2a:a4'], ['a2b:b1', 'b2a:b2'], ['a2b:c1', 'b2a:c2'], ['a2b:d1']])
    expect(conversations).toHaveLength(4)
  })

  it('puts each TCP segment in the connection of its own address pair, also when two connections share their ports', () => {
    const T = '10.0.0.3'
    const frames = [
      tcpFrame(C, 40000, S, 80, 100, SYN),
      tcpFrame(T, 40000, S, 80, 700, SYN),
      tcpFrame(S, 80, C, 40000, 500, SYN | ACK),
      tcpFrame(S, 80, T, 40000, 900, SYN | ACK),
      tcpFrame(C, 40000, S, 80, 101, ACK | PSH, 'from C'),
      tcpFrame(T, 40000, S, 80, 701, ACK | PSH, 'from T'),
      tcpFrame(S, 80, C, 40000, 501, ACK | PSH, 'to C'),
      tcpFrame(S, 80, T, 40000, 901, ACK | PSH, 'to T')
    ]
    const { messages, conversations } = run(frames)
    expect(conversations.map((c) => [c.id, c.client, c.server, c.frames])).toEqual([
      [1, '10.0.0.1:40000', '10.0.0.2:80', 4],
      [2, '10.0.0.3:40000', '10.0.0.2:80', 4]
    ])
    expect(messages.map((m) => [m.conversation, m.direction, new TextDecoder().decode(m.sources[0].bytes)])).toEqual([
      [1, 'c2s', 'from C'],
      [2, 'c2s', 'from T'],
      [1, 's2c', 'to C'],
      [2, 's2c', 'to T']
    ])
  })

  it('breaks a tie between equally sure probes by port, and lets the surer probe win over ports', () => {
    const tie = new ProtocolRegistry()
    tie.register(toyModule({ id: 'a', confidence: 50 }))
    tie.register(toyModule({ id: 'b', confidence: 50, ports: [6000] }))
    expect(run([udpFrame(C, 5000, S, 6000, 'TOY')], tie).conversations[0].protocol).toBe('b')
    resetFrames()
    const surer = new ProtocolRegistry()
    surer.register(toyModule({ id: 'a', confidence: 90 }))
    surer.register(toyModule({ id: 'b', confidence: 50, ports: [6000] }))
    expect(run([udpFrame(C, 5000, S, 6000, 'TOY')], surer).conversations[0].protocol).toBe('a')
  })

  it('uses "decode as" over the probes, by conversation id or endpoint', () => {
    const registry = new ProtocolRegistry()
    registry.register(toyModule())
    const forced = run([udpFrame(C, 5000, S, 6000, 'not toy at all')], registry, [{ match: '10.0.0.2:6000', protocol: 'toy' }])
    expect(forced.conversations[0].protocol).toBe('toy')
    expect(forced.conversations[0].notes).toEqual(['decoded as Toy (forced)'])
    resetFrames()
    const off = run([udpFrame(C, 5000, S, 6000, 'TOY hello')], registry, [{ match: 1, protocol: 'unknown' }])
    expect(off.conversations[0].protocol).toBe('unknown')
  })

  it('keeps the bytes, with the error, when a decoder throws, and carries on', () => {
    const registry = new ProtocolRegistry()
    registry.register(toyModule({ throwOn: 'boom' }))
    const { messages } = run([udpFrame(C, 5000, S, 6000, 'TOY one'), udpFrame(C, 5000, S, 6000, 'TOY boom'), udpFrame(C, 5000, S, 6000, 'TOY two')], registry)
    expect(messages.map((m) => [m.protocol, m.error])).toEqual([
      ['toy', null],
      ['unknown', 'decoder failed: toy bug'],
      ['toy', null]
    ])
  })

  it('gives a stream decoder whole records across segment boundaries, with every frame that carried them', () => {
    const registry = new ProtocolRegistry()
    registry.register(toyModule())
    const { messages } = run(
      [
        tcpFrame(C, 40000, S, 9000, 1, SYN),
        tcpFrame(C, 40000, S, 9000, 2, ACK | PSH, '\x03TOY\x02'), // one record and the start of the next
        tcpFrame(C, 40000, S, 9000, 7, ACK | PSH, 'ab\x01')
      ],
      registry
    )
    expect(messages.map((m) => [m.name, m.summary, m.frames, m.error])).toEqual([
      ['ToyRecord', '3 bytes', [2], null],
      ['ToyRecord', '2 bytes', [2, 3], null],
      // The last byte starts a record that never completes: shown at the end, not lost.
      ['TCP payload', '1 byte', [3], '1 byte at the end of the stream did not complete a message']
    ])
  })
})
