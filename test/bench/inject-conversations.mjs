// Live capture at scale: injects N Photon datagrams on the loopback device through libpcap (cap's send),
// each from the server 127.0.0.1:PORT to a client address of its own, so every datagram is a conversation
// of its own: 127.1.x.y, ports 10000-59999, 50,000 clients per address. A million conversations would
// need a million sockets from a sender; injected frames need none. Paced at RATE datagrams/s.
//
//   sudo node bin/gamewire.mjs capture -i lo -f 'udp src port 5055' --tree none -q > out.ndjson &
//   sudo node test/bench/inject-conversations.mjs 1000000 25000 5055
//
// Frames: Ethernet (the loopback device's all-zero addresses), IPv4 (checksummed), UDP (no checksum,
// allowed over IPv4), then photon-datagram.mjs's datagram numbered i.
import { createRequire } from 'node:module'
import { usage } from '../script-usage.mjs'
import { photonEventDatagram } from './photon-datagram.mjs'

const args = usage(`usage: sudo node test/bench/inject-conversations.mjs N RATE PORT
Injects N one-datagram Photon conversations on lo at RATE datagrams/s, from 127.0.0.1:PORT to clients
127.1.x.y:10000-59999. Needs capture rights (root) and cap (npm ci builds it).`)
const [n, rate, port] = args.map(Number)
if (args.length !== 3 || !(n >= 1 && n <= 50_000 * 254 * 256) || !(rate > 0) || !(port >= 1 && port <= 65535)) {
  console.error('inject-conversations: give N (1 to 3,251,200,000), RATE (datagrams/s) and PORT (1-65535)')
  process.exit(2)
}

const { Cap } = createRequire(import.meta.url)('cap')
const cap = new Cap()
// The handle is only for sending: its filter takes nothing in. cap reads into `readBuffer` for as long
// as the handle is open, so it must stay referenced (a collected one crashed the process).
const readBuffer = Buffer.alloc(65536)
cap.open('lo', 'ip proto 255', 1 << 16, readBuffer)

function frame(i) {
  const payload = photonEventDatagram(i)
  const f = Buffer.alloc(14 + 20 + 8 + payload.length)
  f.writeUInt16BE(0x0800, 12) // IPv4
  const ip = 14
  f[ip] = 0x45 // version 4, 20-byte header
  f.writeUInt16BE(20 + 8 + payload.length, ip + 2)
  f[ip + 8] = 64 // TTL
  f[ip + 9] = 17 // UDP
  f.set([127, 0, 0, 1], ip + 12)
  const client = Math.floor(i / 50_000)
  f.set([127, 1, Math.floor(client / 254), (client % 254) + 1], ip + 16)
  let sum = 0
  for (let k = 0; k < 20; k += 2) sum += f.readUInt16BE(ip + k)
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16)
  f.writeUInt16BE(~sum & 0xffff, ip + 10)
  const udp = ip + 20
  f.writeUInt16BE(port, udp)
  f.writeUInt16BE(10_000 + (i % 50_000), udp + 2)
  f.writeUInt16BE(8 + payload.length, udp + 4)
  payload.copy(f, udp + 8)
  return f
}

const start = process.hrtime.bigint()
const elapsed = () => Number(process.hrtime.bigint() - start) / 1e9
let sent = 0
while (sent < n) {
  const due = Math.min(n, Math.floor(elapsed() * rate))
  while (sent < due) {
    const f = frame(sent++)
    cap.send(f, f.length)
  }
  if (sent < n) await new Promise((r) => setTimeout(r, 1))
}
console.log(`inject-conversations: sent ${sent.toLocaleString('en')} in ${elapsed().toFixed(1)} s`)
cap.close()
readBuffer.fill(0) // referenced until the handle is closed
