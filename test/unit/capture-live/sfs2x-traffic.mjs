// One short SFS2X session over WebSocket for the live-capture tests: the official `sfs2x-api` SmartFox
// client (with the `ws` package as its WebSocket) against a stub server whose replies are written by the
// SDK's own packet codec. No gamewire code is involved.
//   node sfs2x-traffic.mjs PORT   -> prints one JSON line: the extension commands and parameters sent
import { WebSocketServer, WebSocket } from 'ws'
import { SFS2X, sdkCodec, toSdkObject } from '../../fixtures/sfs2x/sfs-lib.mjs'
import { usage } from '../../script-usage.mjs'

usage(`usage: node test/unit/capture-live/sfs2x-traffic.mjs PORT
One short SFS2X session over WebSocket on 127.0.0.1:PORT (the sfs2x-api client against a stub server), for
the live-capture tests; prints one JSON line (the extension commands and parameters sent). Writes no files.
`)

const port = Number(process.argv[2])
const HOST = '127.0.0.1'
const ZONE = 'LiveZone'
const fail = (m) => {
  console.error(`sfs2x-traffic: ${m}`)
  process.exit(1)
}
setTimeout(() => fail('timed out'), 15000).unref()
globalThis.WebSocket = WebSocket

const codec = sdkCodec()
const wss = new WebSocketServer({ host: HOST, port, path: '/BlueBox/websocket', perMessageDeflate: false })
await new Promise((r) => wss.on('listening', r))
const str = (value) => ({ type: 'UTF_STRING', value })
const reply = (ws, controller, action, content) =>
  ws.send(Buffer.from(codec.onPacketWrite({ targetController: controller, id: action, content })), { binary: true })
wss.on('connection', (ws) => {
  ws.on('message', (data) => {
    const msg = codec.onPacketRead(new Uint8Array(data))
    const c = msg.targetController
    const a = msg.id
    const p = msg.content
    if (c === 0 && a === 0)
      reply(
        ws,
        0,
        0,
        toSdkObject({
          type: 'SFS_OBJECT',
          value: { tk: str('0123456789abcdef0123456789abcdef'), ct: { type: 'INT', value: 1024 }, ms: { type: 'INT', value: 500000 } }
        })
      )
    else if (c === 0 && a === 1)
      reply(
        ws,
        0,
        1,
        toSdkObject({
          type: 'SFS_OBJECT',
          value: {
            zn: str(p.getUtfString('zn')),
            un: str(p.getUtfString('un')),
            id: { type: 'INT', value: 7 },
            pi: { type: 'SHORT', value: 1 },
            rl: { type: 'SFS_ARRAY', value: [] },
            rs: { type: 'SHORT', value: 0 }
          }
        })
      )
    else if (c === 1 && a === 13) {
      const echo = new SFS2X.SFSObject()
      echo.putUtfString('c', p.getUtfString('c'))
      echo.putSFSObject('p', SFS2X.SFSObject.newFromBinaryData(p.getSFSObject('p').toBinary()))
      reply(ws, 1, 13, echo)
    }
  })
})

const sfs = new SFS2X.SmartFox({ host: HOST, port, zone: ZONE, debug: false })
const next = (type) => new Promise((resolve) => sfs.addEventListener(type, resolve))
const E = SFS2X.SFSEvent
sfs.addEventListener(E.LOGIN_ERROR, (e) => fail(`login error ${e.errorMessage}`))
const connected = next(E.CONNECTION)
sfs.connect(HOST, port)
if (!(await connected).success) fail('no connection')
const loggedIn = next(E.LOGIN)
sfs.send(new SFS2X.LoginRequest('alice', '', null, ZONE))
await loggedIn
const params = { type: 'SFS_OBJECT', value: { x: { type: 'INT', value: 120 }, y: { type: 'SHORT', value: -45 }, who: str('alice') } }
const answered = next(E.EXTENSION_RESPONSE)
sfs.send(new SFS2X.ExtensionRequest('move', toSdkObject(params)))
const response = await answered
if (response.cmd !== 'move' || response.params.getInt('x') !== 120) fail('the stub did not echo the request')
sfs.disconnect()
await new Promise((r) => setTimeout(r, 100))
wss.close()
console.log(JSON.stringify({ server: `${HOST}:${port}`, user: 'alice', zone: ZONE, command: 'move', params }))
process.exit(0)
