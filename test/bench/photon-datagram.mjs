// The Photon datagram the live benchmarks send (layouts from docs/photon.md): a Photon UDP header (peer
// id, flags, 1 command, sent time, challenge), one SEND_UNRELIABLE command (type 7, channel 0, length,
// reliable seq, unreliable seq) carrying a GpBinary16 event F3 04: code 200, one Int32 parameter (key 1,
// type 'i') holding the datagram's number `i`. 39 bytes.
export function photonEventDatagram(i) {
  const b = Buffer.alloc(12 + 16 + 11)
  b.writeInt16BE(1, 0)
  b[2] = 0
  b[3] = 1
  b.writeUInt32BE(i >>> 0, 4)
  b.writeUInt32BE(0x1234, 8)
  b[12] = 7
  b[13] = 0
  b[14] = 0
  b[15] = 4
  b.writeInt32BE(16 + 11, 16)
  b.writeInt32BE(0, 20)
  b.writeInt32BE(i + 1, 24)
  b[28] = 0xf3
  b[29] = 0x04
  b[30] = 200
  b.writeInt16BE(1, 31)
  b[33] = 1
  b[34] = 0x69
  b.writeInt32BE(i | 0, 35)
  return b
}
