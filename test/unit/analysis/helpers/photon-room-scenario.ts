// Scripted Photon game-server sessions for the room analysis tests: several clients on one game server,
// every datagram built with the tests' own encoders (gp-encoder for GpBinary 1.8 bodies, udp-encoder via
// the bench's PhotonUdpLink for commands, ACKs and headers). What the server sends is scripted step by
// step, so a test says what the simulated server did (right or wrong) and which frames show it; the
// expected verdicts come from that script, never from the analyser.

import { createHash } from 'node:crypto'
import type { CaptureFrame } from '../../../../src-shared/capture/types'
import { PcapngWriter } from '../../../../src-shared/capture/pcapng-writer'
import { MS, PhotonUdpLink, hex, photonEncrypt, photonMsg, type Out } from '../../../bench/game-traffic'
import { eventBody, pv, requestBody, responseBody, type Params, type PV } from '../../protocols/photon/gp-encoder'
import { cmd, initMessage } from '../../protocols/photon/udp-encoder'
import { rng } from '../../helpers/rng'

export { pv, type PV }

export const SERVER = { ip: '10.20.0.1', port: 5056 }
const VER = 18
const START_SEC = 1796300000

export const OP = { CREATE_GAME: 227, JOIN_GAME: 226, LEAVE: 254, RAISE_EVENT: 253, SET_PROPERTIES: 252, AUTHENTICATE: 230 } as const
export const EV = { JOIN: 255, LEAVE: 254, PROPERTIES_CHANGED: 253 } as const

export class Scenario {
  readonly frames: CaptureFrame[] = []
  readonly keyLines: string[] = []
  readonly clients: Client[] = []
  private at = 0
  readonly r = rng(16)

  /** Adds a frame 5 ms after the previous one; returns its capture frame number. */
  push(o: Out): number {
    this.at += 5 * MS
    const number = this.frames.length + 1
    this.frames.push({ ...o.frame, number, tsSec: START_SEC + Math.floor(this.at / 1e6), tsNsec: (this.at % 1e6) * 1000 })
    return number
  }

  /** Moves the clock on (PlayerTTL is in ms of capture time). */
  wait(ms: number): void {
    this.at += ms * MS
  }

  get now(): number {
    return this.at
  }

  /** A client that connects, sends Init and authenticates as `userId` (conversation = its place, from 1). */
  client(name: string, userId: string): Client {
    const c = new Client(this, name, userId, this.clients.length + 1, `10.20.1.${this.clients.length + 1}`, 51000 + this.clients.length)
    this.clients.push(c)
    c.hello()
    return c
  }

  pcapng(): Uint8Array {
    const w = new PcapngWriter()
    const parts = [w.header([{ linkType: 1, tsUnitsPerSecond: 1e9, name: 'rooms' }], { application: 'gamewire test: photon-room-scenario' })]
    for (const f of this.frames) parts.push(w.frame({ interfaceId: 0, tsSec: f.tsSec, tsNsec: f.tsNsec, data: f.data }))
    return Uint8Array.from(Buffer.concat(parts))
  }

  keyFile(): string {
    return `${this.keyLines.join('\n')}\n`
  }
}

export class Client {
  readonly link: PhotonUdpLink
  actorNr = 0
  /** AES key this connection's events (or requests) are encrypted with (see encrypt). */
  private key: Uint8Array | null = null
  private encrypted: 'events' | 'requests' = 'events'

  constructor(
    private readonly s: Scenario,
    readonly name: string,
    readonly userId: string,
    readonly conversation: number,
    readonly ip: string,
    readonly port: number
  ) {
    this.link = new PhotonUdpLink(ip, port, SERVER, false, s.r)
  }

  hello(): void {
    this.s.push(this.link.dg(0, this.s.now, [cmd.connect({ mtu: 1200, channelCount: 2, seq: this.link.nextSeq(0, 255) })]))
    this.link.peerId = this.conversation + 100
    this.s.push(this.link.dg(1, this.s.now, [cmd.verifyConnect(this.link.peerId, this.link.nextSeq(1, 255))]))
    this.s.push(this.link.dg(0, this.s.now, [this.link.reliable(0, 0, initMessage(8, 'rooms-test'))]))
    this.s.push(this.link.dg(1, this.s.now, [this.link.reliable(1, 0, Uint8Array.from([0xf3, 0x01, 0x00]))]))
    this.request(OP.AUTHENTICATE, [
      [220, pv.str('1.0')],
      [225, pv.str(this.userId)]
    ])
    this.respond(OP.AUTHENTICATE, 0, [[225, pv.str(this.userId)]])
  }

  /** From now on the server's events to this client, or this client's requests, are AES-encrypted (the key goes to the scenario's key file). */
  encrypt(label: string, what: 'events' | 'requests' = 'events'): void {
    this.encrypted = what
    this.key = Uint8Array.from(createHash('sha256').update(`rooms test ${label}`).digest())
    this.s.keyLines.push(`PHOTON_AES_KEY ${this.ip}:${this.port}-${SERVER.ip}:${SERVER.port} ${hex(this.key)}`)
  }

  request(code: number, ps: Params): number {
    const body = requestBody(VER, code, ps)
    const msg = this.key && this.encrypted === 'requests' ? photonMsg(2, photonEncrypt(this.key, body), true) : photonMsg(2, body)
    return this.s.push(this.link.dg(0, this.s.now, [this.link.reliable(0, 0, msg)]))
  }

  respond(code: number, rc: number, ps: Params = []): number {
    return this.s.push(this.link.dg(1, this.s.now, [this.link.reliable(1, 0, photonMsg(3, responseBody(VER, code, rc, pv.null(), ps)))]))
  }

  /** One event from the server to this client, in a datagram of its own. */
  event(code: number, ps: Params): number {
    const body = eventBody(VER, code, ps)
    const msg = this.key && this.encrypted === 'events' ? photonMsg(4, photonEncrypt(this.key, body), true) : photonMsg(4, body)
    return this.s.push(this.link.dg(1, this.s.now, [this.link.reliable(1, 0, msg)]))
  }

  /** A custom event as the server delivers it: data 245 and sender 254 (null: no sender parameter). */
  deliver(code: number, data: PV, sender: number | null): number {
    return this.event(
      code,
      sender === null
        ? [[245, data]]
        : [
            [245, data],
            [254, pv.int(sender)]
          ]
    )
  }

  /** JoinGame / CreateGame request. `ps` adds room options (241, 235, 248…) or a JoinMode (215). */
  joinRequest(room: string, op: number = OP.JOIN_GAME, ps: Params = []): number {
    return this.request(op, [[255, pv.str(room)], [249, pv.hash([pv.byte(255), pv.str(this.name)])], ...ps])
  }

  /** The server's answer to the join: the response with the actor number, then the Join event, one datagram each. */
  joinResponse(op: number, actorNr: number, actors: number[]): { response: number; joinEvent: number } {
    this.actorNr = actorNr
    const response = this.respond(op, 0, [
      [254, pv.int(actorNr)],
      [252, pv.ints(actors)]
    ])
    const joinEvent = this.event(EV.JOIN, [
      [254, pv.int(actorNr)],
      [252, pv.ints(actors)]
    ])
    return { response, joinEvent }
  }

  /** RaiseEvent: event code, data, cache option (absent when undefined), and more parameters (246, 252…). */
  raise(code: number, data: PV | undefined, cache?: number, ps: Params = []): number {
    const params: Params = [[244, pv.byte(code)]]
    if (data !== undefined) params.push([245, data])
    if (cache !== undefined) params.push([247, pv.byte(cache)])
    return this.request(OP.RAISE_EVENT, [...params, ...ps])
  }

  leave(comingBack = false): number {
    return this.request(OP.LEAVE, comingBack ? [[233, pv.bool(true)]] : [])
  }

  /** The client's DISCONNECT command (no Leave operation first: the connection just goes). */
  disconnect(): number {
    return this.s.push(this.link.dg(0, this.s.now, [cmd.disconnect()]))
  }

  setProperties(props: PV, expected?: PV, actorNr?: number): number {
    const ps: Params = [
      [251, props],
      [250, pv.bool(true)]
    ]
    if (actorNr !== undefined) ps.push([254, pv.int(actorNr)])
    if (expected !== undefined) ps.push([231, expected])
    return this.request(OP.SET_PROPERTIES, ps)
  }
}

/** Shorthands for event data. */
export const data = (...entries: [string, string | number][]) =>
  pv.hash(...entries.map(([k, v]) => [pv.str(k), typeof v === 'number' ? pv.int(v) : pv.str(v)] as [PV, PV]))
export const roomProps = (...entries: [number, PV][]) => pv.hash(...entries.map(([k, v]) => [pv.byte(k), v] as [PV, PV]))
