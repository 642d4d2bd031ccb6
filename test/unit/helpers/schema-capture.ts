// An Albion-style Photon capture for the schema-pack and Query panel tests, built with the tests' own
// encoders (gp-encoder.ts, udp-encoder.ts): every request is operation 1 whose parameter 253 carries the
// real code (22 Move, 30 InventoryMoveItem: the example pack resources/schemas/albion-online.json), and
// events 22 (ItemDropped in TEST_PACK). Each game message carries an itemId in parameter 1; SCRIPT says
// which, so a filter on the named parameter has an expectation that does not come from the decoder.
import { PcapngWriter } from '../../../src-shared/capture/pcapng-writer'
import { command, datagram, initMessage, T, cmd } from '../protocols/photon/udp-encoder'
import { eventBody, pv, requestBody, type Params } from '../protocols/photon/gp-encoder'
import { resetFrames, udpFrame } from './frames'

export const CLIENT = '10.0.0.1:50123'
export const SERVER = '10.0.0.2:5056'

/** A pack as a user would write one: names for the parameters the example pack leaves unnamed. */
export const TEST_PACK = {
  format: 'gamewire-schema/1',
  name: 'Test items',
  appliesTo: { ports: [5056] },
  photon: {
    parameters: { '1': 'itemId', '2': 'slot' },
    events: [{ code: 22, name: 'ItemDropped', parameters: { '3': 'where' } }]
  }
}

export interface ScriptedMessage {
  kind: 'request' | 'event'
  /** The real code: parameter 253 of operation 1 (requests) or the event code. */
  code: number
  itemId: number
  slot: number
}

/** The game messages in capture order (the handshake's connect, verify and init come first). */
export const SCRIPT: ScriptedMessage[] = Array.from({ length: 24 }, (_, i) => ({
  kind: i % 3 === 2 ? 'event' : 'request',
  code: i % 3 === 2 ? 22 : i % 3 === 0 ? 22 : 30,
  itemId: (i * 7) % 10,
  slot: i
}))

/** The capture as pcapng bytes. */
export function schemaCapture(): Uint8Array {
  resetFrames()
  const [c, cp] = CLIENT.split(':')
  const [s, sp] = SERVER.split(':')
  const c2s = (b: Uint8Array) => udpFrame(c, Number(cp), s, Number(sp), b)
  const s2c = (b: Uint8Array) => udpFrame(s, Number(sp), c, Number(cp), b)
  const msg = (type: number, body: Uint8Array) => Uint8Array.from([0xf3, type, ...body])
  let seq = 1
  let eseq = 0
  const dg = (...commands: Uint8Array[]) => datagram({ peerId: 7, commands, sentTime: 1000, challenge: 0x1234 }).bytes
  const frames = [
    c2s(dg(command({ type: T.CONNECT, channel: 255, seq: 1, body: new Uint8Array(32) }))),
    s2c(dg(cmd.ack(255, 1, 1000), command({ type: T.VERIFYCONNECT, channel: 255, seq: 1, body: Uint8Array.from([0, 7, ...new Uint8Array(30)]) }))),
    c2s(dg(command({ type: T.SEND_RELIABLE, channel: 0, seq: 1, body: initMessage(8) })))
  ]
  for (const m of SCRIPT) {
    const params: Params = [
      [1, pv.int(m.itemId)],
      [2, pv.int(m.slot)]
    ]
    if (m.kind === 'request')
      frames.push(c2s(dg(command({ type: T.SEND_RELIABLE, channel: 0, seq: ++seq, body: msg(2, requestBody(18, 1, [[253, pv.short(m.code)], ...params])) }))))
    else frames.push(s2c(dg(command({ type: T.SEND_RELIABLE, channel: 0, seq: ++eseq, body: msg(4, eventBody(18, m.code, params)) }))))
  }
  const w = new PcapngWriter()
  const parts = [w.header([{ linkType: 1, tsUnitsPerSecond: 1e9, name: 'schema' }], { application: 'gamewire test: schema-capture' })]
  for (const f of frames) parts.push(w.frame({ interfaceId: 0, tsSec: f.tsSec, tsNsec: f.tsNsec, data: f.data }))
  return Uint8Array.from(Buffer.concat(parts))
}
