// Classic pcap headers and Ethernet + IPv4 + UDP/TCP frames for the benchmark's generated captures
// (make-bench-capture.mjs, make-conversations-capture.mjs, repeat-capture.mjs). Addresses are 4-byte arrays
// or 32-bit numbers.

/** A classic pcap file header (microsecond timestamps, little-endian, version 2.4) for `linkType`. */
export function pcapFileHeader(snapLen, linkType = 1) {
  const h = Buffer.alloc(24)
  h.writeUInt32LE(0xa1b2c3d4, 0)
  h.writeUInt16LE(2, 4)
  h.writeUInt16LE(4, 6)
  h.writeUInt32LE(snapLen, 16)
  h.writeUInt32LE(linkType, 20)
  return h
}

/** A pcap record header: seconds, the fraction in the file's unit, captured and original length. */
export function pcapRecordHeader(sec, fraction, capLen, origLen = capLen) {
  const rec = Buffer.alloc(16)
  rec.writeUInt32LE(sec, 0)
  rec.writeUInt32LE(fraction, 4)
  rec.writeUInt32LE(capLen, 8)
  rec.writeUInt32LE(origLen, 12)
  return rec
}

const ETH = Buffer.from([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00])

function putAddress(h, at, a) {
  if (typeof a === 'number') h.writeUInt32BE(a >>> 0, at)
  else h.set(a, at)
}

/** An Ethernet frame carrying one IPv4 packet (a fragment when `fragOffset`/`more` say so). */
export function ipv4Frame(src, dst, proto, payload, id = 0, fragOffset = 0, more = false) {
  const h = Buffer.alloc(20)
  h[0] = 0x45
  h.writeUInt16BE(20 + payload.length, 2)
  h.writeUInt16BE(id, 4)
  h.writeUInt16BE((more ? 0x2000 : 0) | (fragOffset / 8), 6)
  h[8] = 64
  h[9] = proto
  putAddress(h, 12, src)
  putAddress(h, 16, dst)
  return Buffer.concat([ETH, h, payload])
}

/** A UDP header and payload (the IPv4 payload of a datagram). */
export function udpPacket(sport, dport, payload) {
  const h = Buffer.alloc(8)
  h.writeUInt16BE(sport, 0)
  h.writeUInt16BE(dport, 2)
  h.writeUInt16BE(8 + payload.length, 4)
  return Buffer.concat([h, payload])
}

/** A TCP segment without options (window 65535). */
export function tcpPacket(sport, dport, seq, ack, flags, payload = Buffer.alloc(0)) {
  const h = Buffer.alloc(20)
  h.writeUInt16BE(sport, 0)
  h.writeUInt16BE(dport, 2)
  h.writeUInt32BE(seq >>> 0, 4)
  h.writeUInt32BE(ack >>> 0, 8)
  h[12] = 0x50
  h[13] = flags
  h.writeUInt16BE(65535, 14)
  return Buffer.concat([h, payload])
}
