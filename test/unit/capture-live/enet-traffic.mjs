// FigNet messages over a real ENet 1.3.5 peer pair (npm `enet`, emscripten-compiled vanilla ENet) on
// 127.0.0.1, for the live-capture tests. Each payload is the FigNet envelope (u16 LE message id, flags
// byte: bit 7 encrypted, bits 0-6 callbackId) followed by a BitBuffer body, per
// docs/fignet.md. No gamewire code is involved.
//   node enet-traffic.mjs PORT   -> prints one JSON line: what the client sent and the server received
import { createRequire } from 'node:module'
import { usage } from '../../script-usage.mjs'

usage(`usage: node test/unit/capture-live/enet-traffic.mjs PORT
FigNet messages over a real ENet peer pair on 127.0.0.1:PORT, for the live-capture tests; prints one JSON
line (what the client sent and the server received). Writes no files.
`)

const enet = createRequire(import.meta.url)('enet')
const port = Number(process.argv[2])
const fail = (m) => {
  console.error(`enet-traffic: ${m}`)
  process.exit(1)
}
setTimeout(() => fail('timed out'), 15000).unref()

const envelope = (msgId, callbackId, body) => Buffer.concat([Buffer.from([msgId & 0xff, msgId >> 8, callbackId & 0x7f]), Buffer.from(body)])
// Ping (60002) with PingModel {peerType = 1}: BitBuffer `01 01`; RegisterIdentity (60000) as in the shared capture.
const SENT = [
  { msgId: 60002, callbackId: 0, channel: 0, reliable: true, body: [0x01, 0x01] },
  { msgId: 60002, callbackId: 5, channel: 1, reliable: false, body: [0x01, 0x01] },
  { msgId: 60000, callbackId: 1, channel: 0, reliable: true, body: [0x01, 0x06, 0xf3, 0xf2, 0x58, 0x5e, 0xa6, 0x0f, 0x84, 0xe1, 0xf0] }
]
const received = []

const server = await new Promise((resolve, reject) =>
  enet.createServer({ address: { address: '127.0.0.1', port }, peers: 4, channels: 4, down: 0, up: 0 }, (err, host) => (err ? reject(err) : resolve(host)))
)
server.on('connect', (peer) => {
  peer.on('message', (packet, channel) => {
    received.push({ channel, hex: packet.data().toString('hex') })
  })
})
server.start(10)

const client = await new Promise((resolve, reject) =>
  enet.createClient({ peers: 1, channels: 4, down: 0, up: 0 }, (err, host) => (err ? reject(err) : resolve(host)))
)
const peer = await new Promise((resolve, reject) => client.connect(new enet.Address('127.0.0.1', port), 4, 0, (err, p) => (err ? reject(err) : resolve(p))))
for (const m of SENT) {
  const packet = new enet.Packet(envelope(m.msgId, m.callbackId, m.body), m.reliable ? enet.PACKET_FLAG.RELIABLE : enet.PACKET_FLAG.UNSEQUENCED)
  await new Promise((resolve) => peer.send(m.channel, packet, () => resolve()))
  await new Promise((r) => setTimeout(r, 50))
}
while (received.length < SENT.length) await new Promise((r) => setTimeout(r, 20))
peer.disconnectLater()
await new Promise((r) => setTimeout(r, 200))
const clientPort = client.address().port
console.log(
  JSON.stringify({
    server: `127.0.0.1:${port}`,
    clientPort,
    sent: SENT.map((m) => ({ ...m, hex: envelope(m.msgId, m.callbackId, m.body).toString('hex') })),
    received
  })
)
client.destroy()
server.destroy()
process.exit(0)
