// Writes the benchmark capture: about 200,000 Ethernet frames of mixed game-like traffic (UDP datagrams
// on Photon's port, TCP streams on SFS2X's port with real handshakes and sequence numbers, a few IP
// fragments), as a classic pcap. Deterministic (seeded), so runs compare.
// usage: node test/bench/make-bench-capture.mjs OUT.pcap [FRAMES]

import { createWriteStream } from 'node:fs'
import { ipv4Frame, pcapFileHeader, pcapRecordHeader, tcpPacket, udpPacket } from './packets.mjs'
import { usage } from '../script-usage.mjs'

usage(`usage: node test/bench/make-bench-capture.mjs OUT.pcap [FRAMES]
Writes the generic benchmark capture to OUT.pcap: about FRAMES (default 200000) Ethernet frames of
game-like UDP datagrams, TCP streams and IP fragments, classic pcap, deterministic (seeded).
`)

const out = process.argv[2]
const target = Number(process.argv[3] ?? 200_000)
if (!out) {
  console.error('usage: make-bench-capture.mjs OUT.pcap [FRAMES]')
  process.exit(2)
}

let seed = 12345
const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32
const randInt = (n) => Math.floor(rand() * n)

const file = createWriteStream(out)
const parts = [pcapFileHeader(262144)] // Ethernet
let frames = 0
let usec = 1_764_700_000n * 1_000_000n

function frame(bytes) {
  usec += BigInt(50 + randInt(400))
  parts.push(pcapRecordHeader(Number(usec / 1_000_000n), Number(usec % 1_000_000n), bytes.length), bytes)
  frames++
}

const ipv4 = ipv4Frame // fragments below pass an id and an offset

function udp(src, sport, dst, dport, payload) {
  frame(ipv4(src, dst, 17, udpPacket(sport, dport, payload)))
}

function tcpSeg(src, sport, dst, dport, seq, ack, flags, payload = Buffer.alloc(0)) {
  frame(ipv4(src, dst, 6, tcpPacket(sport, dport, seq, ack, flags, payload)))
}

const noise = (n) => Buffer.from(Array.from({ length: n }, () => randInt(256)))
const client = (i) => [10, 0, (i >> 8) & 0xff, i & 0xff]
const server = [10, 1, 0, 1]

// A TCP connection: handshake, alternating length-prefixed messages, FIN.
function tcpConversation(i, messages) {
  const c = client(i)
  const cport = 40000 + i
  let cseq = randInt(2 ** 32)
  let sseq = randInt(2 ** 32)
  tcpSeg(c, cport, server, 9933, cseq, 0, 0x02)
  tcpSeg(server, 9933, c, cport, sseq, cseq + 1, 0x12)
  cseq++
  sseq++
  tcpSeg(c, cport, server, 9933, cseq, sseq, 0x10)
  for (let m = 0; m < messages; m++) {
    const fromClient = m % 2 === 0
    const body = noise(20 + randInt(300))
    const msg = Buffer.concat([Buffer.from([0x80, body.length >> 8, body.length & 0xff]), body])
    if (fromClient) {
      tcpSeg(c, cport, server, 9933, cseq, sseq, 0x18, msg)
      cseq += msg.length
    } else {
      tcpSeg(server, 9933, c, cport, sseq, cseq, 0x18, msg)
      sseq += msg.length
    }
  }
  tcpSeg(c, cport, server, 9933, cseq, sseq, 0x11)
  tcpSeg(server, 9933, c, cport, sseq, cseq + 1, 0x11)
}

let conv = 0
let fragId = 1
while (frames < target) {
  const kind = rand()
  if (kind < 0.6) {
    // A burst of UDP datagrams in one of 200 conversations.
    const i = randInt(200)
    for (let k = 0; k < 20; k++) {
      const fromClient = rand() < 0.5
      const payload = Buffer.concat([Buffer.from([0, 1, 0, 1]), noise(12 + randInt(400))])
      if (fromClient) udp(client(i), 50000 + i, server, 5055, payload)
      else udp(server, 5055, client(i), 50000 + i, payload)
    }
  } else if (kind < 0.97) {
    tcpConversation(1000 + (conv++ % 20000), 10 + randInt(30))
  } else {
    // A 3000-byte datagram in three fragments.
    const payload = Buffer.concat([Buffer.from([0x13, 0x88, 0x13, 0x8f, 0x0b, 0xc0, 0, 0]), noise(2992)])
    const id = fragId++ & 0xffff
    frame(ipv4(client(7), server, 17, payload.subarray(0, 1480), id, 0, true))
    frame(ipv4(client(7), server, 17, payload.subarray(1480, 2960), id, 1480, true))
    frame(ipv4(client(7), server, 17, payload.subarray(2960), id, 2960, false))
  }
  if (parts.length > 4096) {
    file.write(Buffer.concat(parts.splice(0)))
  }
}
file.end(Buffer.concat(parts), () => console.error(`wrote ${frames} frames to ${out}`))
