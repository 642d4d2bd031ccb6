// Writes a capture with many small conversations, to measure how memory grows with their number:
// N UDP conversations of two datagrams (a request and its reply) and N short TCP connections (handshake,
// one message each way, FIN both ways, the last ACK). Conversations start at a steady rate and overlap;
// frames are written in time order as a classic Ethernet pcap, streamed to disk. Deterministic (seeded).
// Every conversation has its own address pair, so none merge. Payloads are ASCII text no protocol claims.
// usage: node test/bench/make-conversations-capture.mjs OUT.pcap [--udp N] [--tcp N] [--rate PER_SECOND] [--seed S]

import { createWriteStream } from 'node:fs'
import { ipv4Frame, pcapFileHeader, pcapRecordHeader, tcpPacket, udpPacket } from './packets.mjs'
import { usage } from '../script-usage.mjs'

export async function writeConversationsCapture(out, { udp = 0, tcp = 0, rate = 2000, seed = 1 } = {}) {
  let s = seed >>> 0 || 1
  // xorshift32: fast, and enough for jitter and payload letters.
  const rand = () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    return s / 2 ** 32
  }
  const randInt = (n) => Math.floor(rand() * n)

  const file = createWriteStream(out)
  let pending = []
  let pendingBytes = 0
  let frames = 0
  const flush = async () => {
    if (!pending.length) return
    const ok = file.write(Buffer.concat(pending))
    pending = []
    pendingBytes = 0
    if (!ok) await new Promise((r) => file.once('drain', r))
  }
  pending.push(pcapFileHeader(65535)) // Ethernet

  // Frames wait in a binary heap ordered by (time in µs, sequence) until every earlier one is out.
  const heap = []
  let seq = 0
  const less = (a, b) => a.t < b.t || (a.t === b.t && a.seq < b.seq)
  const schedule = (t, bytes) => {
    const e = { t, seq: seq++, bytes }
    heap.push(e)
    for (let i = heap.length - 1; i > 0; ) {
      const p = (i - 1) >> 1
      if (!less(heap[i], heap[p])) break
      ;[heap[i], heap[p]] = [heap[p], heap[i]]
      i = p
    }
  }
  const pop = () => {
    const top = heap[0]
    const last = heap.pop()
    if (heap.length) {
      heap[0] = last
      for (let i = 0; ; ) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < heap.length && less(heap[l], heap[m])) m = l
        if (r < heap.length && less(heap[r], heap[m])) m = r
        if (m === i) break
        ;[heap[i], heap[m]] = [heap[m], heap[i]]
        i = m
      }
    }
    return top
  }
  const emit = (e) => {
    pending.push(pcapRecordHeader(Math.floor(e.t / 1e6), e.t % 1e6, e.bytes.length), e.bytes)
    pendingBytes += 16 + e.bytes.length
    frames++
  }

  const udpFrame = (src, sport, dst, dport, payload) => ipv4Frame(src, dst, 17, udpPacket(sport, dport, payload))
  const tcpFrame = (src, sport, dst, dport, seqNo, ack, flags, payload = Buffer.alloc(0)) =>
    ipv4Frame(src, dst, 6, tcpPacket(sport, dport, seqNo, ack, flags, payload))
  const text = (what, i) => Buffer.from(`${what} ${i} ${'abcdefghijklmnopqrstuvwxyz'.slice(randInt(20))}\n`)

  const SERVER = 0xc0000201 // 192.0.2.1
  const start0 = 1_764_700_000 * 1e6
  const gap = 1e6 / rate // µs between conversation starts
  const rtt = () => 200 + randInt(20_000) // µs
  const udpConversation = (i, t) => {
    const client = (10 << 24) | i // 10.x.y.z: one address per conversation
    const port = 20000 + (i % 40000)
    schedule(t, udpFrame(client, port, SERVER, 7000, text('ask', i)))
    schedule(t + 1000 + randInt(2_000_000), udpFrame(SERVER, 7000, client, port, text('answer', i)))
  }
  const tcpConversation = (i, t) => {
    const client = (11 << 24) | i
    const port = 20000 + (i % 40000)
    const c = (seqNo, ack, flags, payload) => tcpFrame(client, port, SERVER, 8000, seqNo, ack, flags, payload)
    const sv = (seqNo, ack, flags, payload) => tcpFrame(SERVER, 8000, client, port, seqNo, ack, flags, payload)
    let cs = randInt(2 ** 32)
    let ss = randInt(2 ** 32)
    const ask = text('ask', i)
    const answer = text('answer', i)
    schedule(t, c(cs, 0, 0x02))
    schedule((t += rtt()), sv(ss, cs + 1, 0x12))
    cs++
    ss++
    schedule((t += rtt()), c(cs, ss, 0x18, ask))
    cs += ask.length
    schedule((t += rtt()), sv(ss, cs, 0x18, answer))
    ss += answer.length
    schedule((t += rtt()), c(cs, ss, 0x11))
    schedule((t += rtt()), sv(ss, cs + 1, 0x11))
    schedule((t += rtt()), c(cs + 1, ss + 1, 0x10))
  }

  const total = Math.max(udp, tcp)
  let t = start0
  for (let i = 0; i < total; i++) {
    if (i < udp) udpConversation(i, Math.round(t))
    if (i < tcp) tcpConversation(i, Math.round(t + gap / 2))
    t += gap
    // Everything before this start is final: later conversations only schedule after it.
    while (heap.length && heap[0].t < t) emit(pop())
    if (pendingBytes > 1 << 20) await flush()
  }
  while (heap.length) emit(pop())
  await flush()
  await new Promise((r) => file.end(r))
  return { frames }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  usage(
    `usage: node test/bench/make-conversations-capture.mjs OUT.pcap [--udp N] [--tcp N] [--rate PER_SECOND] [--seed S]
Writes OUT.pcap: N UDP conversations (a request and its reply) and N short TCP connections (default 0 of
each), starting PER_SECOND a second (default 2000), deterministic for a seed S (default 1).
`,
    { options: ['--udp', '--tcp', '--rate', '--seed'] }
  )
  const args = process.argv.slice(2)
  const out = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'))
  const opt = (name, dflt) => {
    const i = args.indexOf(`--${name}`)
    return i >= 0 ? Number(args[i + 1]) : dflt
  }
  if (!out) {
    console.error('usage: make-conversations-capture.mjs OUT.pcap [--udp N] [--tcp N] [--rate PER_SECOND] [--seed S]')
    process.exit(2)
  }
  const o = { udp: opt('udp', 0), tcp: opt('tcp', 0), rate: opt('rate', 2000), seed: opt('seed', 1) }
  const { frames } = await writeConversationsCapture(out, o)
  console.error(`wrote ${frames} frames (${o.udp} UDP and ${o.tcp} TCP conversations) to ${out}`)
}
