// An independent LiteNetLib encoder for the transport tests, written from docs/fignet.md (LiteNetLib) and the
// RevenantX/LiteNetLib sources (NetPacket.cs, InternalPackets.cs, ReliableChannel.cs,
// SequencedChannel.cs, NetPeer.cs; the 0.9-line copy for ProtocolId 11), not from the decoder. Everything is
// little-endian except the .NET SocketAddress port (network order).

export type Version = '0.9' | '1.x' | '2.x'

const NAMES_1 = [
  'Unreliable',
  'Channeled',
  'Ack',
  'Ping',
  'Pong',
  'ConnectRequest',
  'ConnectAccept',
  'Disconnect',
  'UnconnectedMessage',
  'MtuCheck',
  'MtuOk',
  'Broadcast',
  'Merged',
  'ShutdownOk',
  'PeerNotFound',
  'InvalidProtocol',
  'NatMessage',
  'Empty'
] as const
export type PacketName = (typeof NAMES_1)[number] | 'ReliableMerged'

/** The property number of `name` in `version`'s table (2.x inserts ReliableMerged at 2). */
export function property(version: Version, name: PacketName): number {
  if (version === '2.x') {
    if (name === 'ReliableMerged') return 2
    const i = NAMES_1.indexOf(name)
    return i < 2 ? i : i + 1
  }
  if (name === 'ReliableMerged') throw new Error('ReliableMerged exists only in 2.x')
  return NAMES_1.indexOf(name)
}

export const DELIVERY = { ReliableUnordered: 0, Sequenced: 1, ReliableOrdered: 2, ReliableSequenced: 3 } as const
export const channelId = (channel: number, delivery: number) => channel * 4 + delivery

export const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')

export function concat(...parts: (Uint8Array | number[])[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts.map((p) => Buffer.from(p instanceof Uint8Array ? p : Uint8Array.from(p)))))
}

export const u16 = (v: number) => {
  const b = Buffer.alloc(2)
  b.writeUInt16LE(v & 0xffff)
  return Uint8Array.from(b)
}
export const i32 = (v: number) => {
  const b = Buffer.alloc(4)
  b.writeInt32LE(v | 0)
  return Uint8Array.from(b)
}
export const i64 = (v: bigint) => {
  const b = Buffer.alloc(8)
  b.writeBigInt64LE(v)
  return Uint8Array.from(b)
}

/** Byte 0: property in bits 0-4, connection number in bits 5-6, fragmented flag in bit 7. */
export function firstByte(version: Version, name: PacketName, o: { connectionNumber?: number; fragmented?: boolean } = {}): number {
  return property(version, name) | ((o.connectionNumber ?? 0) << 5) | (o.fragmented ? 0x80 : 0)
}

/** NetDataWriter.Put(string): 1.x/2.x u16 (UTF-8 length + 1, 0 = empty); 0.9 i32 UTF-8 length. */
export function netString(version: Version, s: string): Uint8Array {
  const utf8 = Buffer.from(s, 'utf8')
  if (version === '0.9') return concat(i32(utf8.length), utf8)
  return utf8.length === 0 ? u16(0) : concat(u16(utf8.length + 1), utf8)
}

/** IPEndPoint.Serialize(): family (LE) at 0, port big-endian at 2; IPv4 at 4 (16 bytes); IPv6 at 8, scope at 24 (28). */
export function socketAddress(ip: string, port: number, scope = 0): Uint8Array {
  if (!ip.includes(':')) {
    const b = new Uint8Array(16)
    b[0] = 2
    b[2] = port >> 8
    b[3] = port & 0xff
    ip.split('.').forEach((x, i) => (b[4 + i] = Number(x)))
    return b
  }
  const b = new Uint8Array(28)
  b[0] = 23
  b[2] = port >> 8
  b[3] = port & 0xff
  const [head, tail] = ip.split('::')
  const h = head ? head.split(':') : []
  const t = tail !== undefined && tail !== '' ? tail.split(':') : []
  const groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t]
  groups.forEach((g, i) => {
    const v = parseInt(g, 16)
    b[8 + i * 2] = v >> 8
    b[9 + i * 2] = v & 0xff
  })
  b.set(i32(scope), 24)
  return b
}

export interface Packets {
  unreliable(payload: Uint8Array): Uint8Array
  channeled(seq: number, chId: number, payload: Uint8Array): Uint8Array
  fragment(seq: number, chId: number, fragmentId: number, part: number, total: number, data: Uint8Array): Uint8Array
  reliableMerged(seq: number, chId: number, payloads: Uint8Array[]): Uint8Array
  /** ReliableChannel ack: bit (seq % window) of the bitfield for each acked seq; (window - 1) / 8 + 2 bytes. */
  ackWindow(chId: number, windowStart: number, acked: number[], window?: number): Uint8Array
  /** SequencedChannel (ReliableSequenced) ack: the header alone, sequence = last received. */
  ackSequenced(chId: number, seq: number): Uint8Array
  ping(seq: number): Uint8Array
  pong(seq: number, ticks: bigint): Uint8Array
  connectRequest(o: {
    protocolId?: number
    connectionTime: bigint
    peerId?: number
    address: Uint8Array
    connectData?: Uint8Array
    connectionNumber?: number
  }): Uint8Array
  connectAccept(o: { connectionTime: bigint; connectionNumber: number; reused?: boolean; peerId?: number }): Uint8Array
  networkChanged(o: { connectionTime: bigint; connectionNumber: number; peerId: number }): Uint8Array
  disconnect(connectionTime: bigint, data?: Uint8Array): Uint8Array
  simple(name: 'ShutdownOk' | 'PeerNotFound' | 'InvalidProtocol' | 'Empty'): Uint8Array
  withPayload(name: 'UnconnectedMessage' | 'Broadcast' | 'NatMessage', payload: Uint8Array): Uint8Array
  /** MtuCheck / MtuOk: i32 mtu at 1, zero padding, i32 mtu in the last 4 bytes; the packet is mtu bytes long. */
  mtu(name: 'MtuCheck' | 'MtuOk', size: number): Uint8Array
  /** Merged: u16 size + packet, repeated; `end` appends the zero size. */
  merged(packets: Uint8Array[], end?: boolean): Uint8Array
}

export function packets(version: Version): Packets {
  const fb = (name: PacketName, o?: { connectionNumber?: number; fragmented?: boolean }) => [firstByte(version, name, o)]
  return {
    unreliable: (payload) => concat(fb('Unreliable'), payload),
    channeled: (seq, chId, payload) => concat(fb('Channeled'), u16(seq), [chId], payload),
    fragment: (seq, chId, fragmentId, part, total, data) =>
      concat(fb('Channeled', { fragmented: true }), u16(seq), [chId], u16(fragmentId), u16(part), u16(total), data),
    reliableMerged: (seq, chId, payloads) => concat(fb('ReliableMerged'), u16(seq), [chId], ...payloads.flatMap((p) => [u16(p.length), p])),
    ackWindow: (chId, windowStart, acked, window = 64) => {
      const bits = new Uint8Array(Math.floor((window - 1) / 8) + 2)
      for (const s of acked) {
        const idx = s % window
        bits[idx >> 3] |= 1 << (idx & 7)
      }
      return concat(fb('Ack'), u16(windowStart), [chId], bits)
    },
    ackSequenced: (chId, seq) => concat(fb('Ack'), u16(seq), [chId]),
    ping: (seq) => concat(fb('Ping'), u16(seq)),
    pong: (seq, ticks) => concat(fb('Pong'), u16(seq), i64(ticks)),
    connectRequest: (o) => {
      const id = o.protocolId ?? (version === '0.9' ? 11 : 13)
      const peer = version === '0.9' ? [] : i32(o.peerId ?? 0)
      return concat(
        fb('ConnectRequest', { connectionNumber: o.connectionNumber }),
        i32(id),
        i64(o.connectionTime),
        peer,
        [o.address.length],
        o.address,
        o.connectData ?? []
      )
    },
    connectAccept: (o) => {
      const peer = version === '0.9' ? [] : i32(o.peerId ?? 0)
      return concat(fb('ConnectAccept'), i64(o.connectionTime), [o.connectionNumber, o.reused ? 1 : 0], peer)
    },
    networkChanged: (o) => concat(fb('PeerNotFound'), i64(o.connectionTime), [o.connectionNumber, 1], i32(o.peerId)),
    disconnect: (connectionTime, data) => concat(fb('Disconnect'), i64(connectionTime), data ?? []),
    simple: (name) => Uint8Array.from(fb(name)),
    withPayload: (name, payload) => concat(fb(name), payload),
    mtu: (name, size) => {
      const b = new Uint8Array(size)
      b[0] = property(version, name)
      b.set(i32(size), 1)
      b.set(i32(size), size - 4)
      return b
    },
    merged: (list, end) => concat(fb('Merged'), ...list.flatMap((p) => [u16(p.length), p]), end ? u16(0) : [])
  }
}

/** Splits a payload as LiteNetLib does: every part `partSize` bytes but the last. */
export function splitParts(payload: Uint8Array, partSize: number): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let i = 0; i < payload.length; i += partSize) out.push(payload.subarray(i, Math.min(payload.length, i + partSize)))
  return out
}

/** Deterministic bytes for payloads. */
export function bytesOf(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n)
  let x = (seed * 2654435761) >>> 0
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    b[i] = x >>> 24
  }
  return b
}

/** DateTime.UtcNow.Ticks for an epoch time in seconds. */
export const ticksAt = (epochSeconds: number) => 621355968000000000n + BigInt(Math.round(epochSeconds * 1e7))
