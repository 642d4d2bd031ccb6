// Realistic mixed game-server traffic for the benchmark, built with the tests' own independent encoders
// (not gamewire's decoders), so every byte is something gamewire must fully decode:
//
//   Photon UDP    16 peers: 6 on a master server (5055: lobby, big fragmented GameList) and 10 on a game
//                 server (5056: PUN-style gameplay). CONNECT/Init, InitEncryption + an AES-encrypted
//                 Authenticate on every third session (keys in the key file), reliable and unreliable
//                 commands, ACKs, pings, several commands per datagram, ~3 KB events in fragments,
//                 GpBinary 1.6 and 1.8, CRC on a quarter of the peers.
//   Photon TCP    2 connections (4530): FB frames, F0 pings, big events straddling segments.
//   Photon WS     1 connection (9090, subprotocol GpBinaryV18).
//   SFS2X TCP     4 connections (9933): handshake, login, join, extension calls; zlib packets above the
//                 1024-byte threshold that straddle segments; one connection AES-encrypted (key file).
//   SFS2X WS      2 connections to /BlueBox/websocket (8080), one with permessage-deflate.
//   FigNet ENet   8 peers (7777): vanilla ENet (half with CRC-32) and ENet-CSharp; RegisterIdentity,
//                 JoinRoom, InstantiateEntity, 30 Hz EntityUpdate with TransformLite (MemoryPack),
//                 entity state batches, room events, fragmented 3 KB room events, ACKs, pings.
//   FigNet LNL    4 peers over LiteNetLib 1.x / 2.x (9050): the same script on LiteNetLib channels.
//
// Each peer slot is a generator that runs session after session (new client port each time) on its own
// clock; a heap merges them into one time-ordered stream, as a capture on the server would see it.
// Everything comes from a seeded PRNG and fixed key labels, so a seed and a frame count always give the
// same bytes. Frames are streamed to disk (writeGameCapture), so a 4M-frame capture needs no more memory
// than a 2,000-frame one.

import { createCipheriv, createHash } from 'node:crypto'
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs'
import type { CaptureFrame } from '../../src-shared/capture/types'
import { PcapngWriter } from '../../src-shared/capture/pcapng-writer'
import { ACK, FIN, PSH, SYN, tcpFrame, udpFrame } from '../unit/helpers/frames'
import { rng } from '../unit/helpers/rng'
import { pmd, upgradeRequest, upgradeResponse, wsFrame } from '../unit/helpers/websocket'
import { cmd, datagram as photonDatagram, initMessage, splitMessage, tcpFrame as photonTcpFrame } from '../unit/protocols/photon/udp-encoder'
import { eventBody, pv, requestBody, responseBody, type PV, type Version as GpVersion } from '../unit/protocols/photon/gp-encoder'
import { envelope as sfsEnvelope, ext, packet as sfsPacket, t, type TV } from '../unit/protocols/sfs2x/helpers'
import * as enet from '../unit/protocols/enet/encoder'
import { BitWriter, MpWriter, packTransform, writeModel, type ModelValue } from '../unit/protocols/fignet/encoders'
import * as lnl from '../unit/protocols/litenetlib/encoder'

// ---- plumbing ----

/** One frame at `t` microseconds after the capture start. */
export interface Out {
  t: number
  frame: CaptureFrame
}
export type Gen = Generator<Out, void, undefined>
export type Rand = () => number

interface Env {
  /** Set once enough frames are out: sessions finish what they started, close, and slots stop. */
  stopping: boolean
  keyLines: string[]
  seed: number
}

export const MS = 1000
const int = (r: Rand, n: number) => Math.floor(r() * n)
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)]
const jitter = (r: Rand, ms: number) => Math.round(r() * ms * MS)
export const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
/** Key material from the seed and a label (never from the PRNG stream, so keys do not shift traffic). */
const secret = (n: number, seed: number, label: string) =>
  Uint8Array.from(createHash('sha256').update(`gamewire bench ${seed} ${label}`).digest().subarray(0, n))

const NAMES = [
  'Ada',
  'Grace',
  'Linus',
  'Ken',
  'Barbara',
  'Edsger',
  'Donald',
  'Margaret',
  'Alan',
  'Radia',
  'Frances',
  'John',
  'Niklaus',
  'Bjarne',
  'Guido',
  'Anders'
]
const ROOMS = ['arena', 'canyon', 'harbor', 'citadel', 'dunes', 'glacier', 'jungle', 'foundry']
const playerName = (r: Rand) => `${pick(r, NAMES)}${int(r, 1000)}`
const coord = (r: Rand, range = 200) => Math.round((r() - 0.5) * range * 100) / 100

/** Client ports: every session a fresh one (a new conversation), cycling through the ephemeral range. */
class Ports {
  private next: number
  constructor(base: number) {
    this.next = base
  }
  take(): number {
    const p = this.next
    this.next = this.next >= 64000 ? 33000 + (this.next % 97) : this.next + 7
    return p
  }
}

/** A peer slot: session after session until the capture has enough frames. */
function* slot(env: Env, session: (n: number) => Gen): Gen {
  for (let n = 0; !env.stopping; n++) yield* session(n)
}

// ---- TCP connections (frames.ts segments; MSS 1460) ----

const MSS = 1460

export class Tcp {
  private seq: [number, number]
  constructor(
    private readonly c: string,
    private readonly cport: number,
    private readonly s: string,
    private readonly sport: number,
    r: Rand
  ) {
    this.seq = [int(r, 2 ** 32), int(r, 2 ** 32)]
  }

  private seg(side: 0 | 1, at: number, flags: number, payload?: Uint8Array): Out {
    const f =
      side === 0
        ? tcpFrame(this.c, this.cport, this.s, this.sport, this.seq[0] >>> 0, flags, payload)
        : tcpFrame(this.s, this.sport, this.c, this.cport, this.seq[1] >>> 0, flags, payload)
    return { t: at, frame: f }
  }

  *open(at: number, rtt: number): Gen {
    yield this.seg(0, at, SYN)
    this.seq[0]++
    yield this.seg(1, at + rtt / 2, SYN | ACK)
    this.seq[1]++
    yield this.seg(0, at + rtt, ACK)
  }

  /** `bytes` from one side in MSS-sized segments (PSH on the last), 12 µs apart. */
  *send(side: 0 | 1, at: number, bytes: Uint8Array): Gen {
    for (let o = 0; o < bytes.length; o += MSS) {
      const part = bytes.subarray(o, Math.min(bytes.length, o + MSS))
      yield this.seg(side, at + (o / MSS) * 12, o + MSS >= bytes.length ? ACK | PSH : ACK, part)
      this.seq[side] = (this.seq[side] + part.length) >>> 0
    }
  }

  /** A pure ACK (delayed ACK of what the other side sent). */
  *ack(side: 0 | 1, at: number): Gen {
    yield this.seg(side, at, ACK)
  }

  *close(at: number, rtt: number): Gen {
    yield this.seg(0, at, FIN | ACK)
    this.seq[0]++
    yield this.seg(1, at + rtt / 2, FIN | ACK)
    this.seq[1]++
    yield this.seg(0, at + rtt, ACK)
  }
}

// ---- Photon ----

const PHOTON_MASTER = { ip: '10.1.0.10', port: 5055 }
const PHOTON_GAME = { ip: '10.1.0.11', port: 5056 }
const PHOTON_TCP = { ip: '10.1.0.12', port: 4530 }
const PHOTON_WS = { ip: '10.1.0.13', port: 9090 }

/** F3, message type (bit 7 = encrypted), body. */
export const photonMsg = (type: number, body: Uint8Array, encrypted = false) => Uint8Array.from([0xf3, type | (encrypted ? 0x80 : 0), ...body])

/** Photon's payload encryption: AES-256-CBC, zero IV, PKCS#7 (docs/photon.md, Encryption). */
export function photonEncrypt(key: Uint8Array, body: Uint8Array): Uint8Array {
  const c = createCipheriv('aes-256-cbc', key, Buffer.alloc(16))
  return Uint8Array.from(Buffer.concat([c.update(body), c.final()]))
}

/** Message bodies of a Photon Realtime / PUN session, in either GpBinary version. */
export class PhotonScript {
  constructor(
    readonly ver: GpVersion,
    private readonly r: Rand
  ) {}

  init(app: string): Uint8Array {
    return initMessage(this.ver === 18 ? 8 : 6, app)
  }
  initEncryption(): [Uint8Array, Uint8Array] {
    const pub = () => Uint8Array.from({ length: 96 }, () => int(this.r, 256))
    return [photonMsg(6, requestBody(this.ver, 0, [[1, pv.bytes(pub())]])), photonMsg(7, responseBody(this.ver, 0, 0, pv.null(), [[1, pv.bytes(pub())]]))]
  }
  authenticate(user: string, key?: Uint8Array): [Uint8Array, Uint8Array] {
    const token = hex(Uint8Array.from({ length: 24 }, () => int(this.r, 256)))
    const req = requestBody(this.ver, 230, [
      [220, pv.str('1.4.2')],
      [224, pv.str('b2f0c1d5-bench')],
      [225, pv.str(user)],
      [221, pv.str(token)],
      [210, pv.str('eu')]
    ])
    const res = responseBody(this.ver, 230, 0, pv.null(), [
      [225, pv.str(user)],
      [221, pv.str(token.slice(0, 32))],
      [196, pv.str(user)],
      [230, pv.str('10.1.0.11:5056')]
    ])
    if (!key) return [photonMsg(2, req), photonMsg(3, res)]
    return [photonMsg(2, photonEncrypt(key, req), true), photonMsg(3, photonEncrypt(key, res), true)]
  }
  playerProps(name: string): PV {
    return pv.hash(
      [pv.byte(255), pv.str(name)],
      [pv.str('team'), pv.byte(int(this.r, 2))],
      [pv.str('skin'), pv.int(int(this.r, 40))],
      [pv.str('ready'), pv.bool(this.r() < 0.5)]
    )
  }
  roomProps(): PV {
    return pv.hash(
      [pv.byte(255), pv.byte(16)],
      [pv.byte(254), pv.bool(true)],
      [pv.byte(253), pv.bool(true)],
      [pv.byte(249), pv.bool(true)],
      [pv.str('map'), pv.str(pick(this.r, ROOMS))],
      [pv.str('mode'), pv.str('ctf')],
      [pv.str('round'), pv.int(int(this.r, 20))],
      [pv.str('timeLeft'), pv.float(this.r() * 600)]
    )
  }
  joinGame(room: string, actor: number, name: string, actors: number[]): [Uint8Array, Uint8Array] {
    const req = requestBody(this.ver, 226, [
      [255, pv.str(room)],
      [249, this.playerProps(name)],
      [250, pv.bool(true)]
    ])
    const res = responseBody(this.ver, 226, 0, pv.null(), [
      [254, pv.int(actor)],
      [249, this.playerProps(name)],
      [248, this.roomProps()],
      [252, pv.ints(actors)]
    ])
    return [photonMsg(2, req), photonMsg(3, res)]
  }
  joinEvent(actor: number, name: string, actors: number[]): Uint8Array {
    return photonMsg(
      4,
      eventBody(this.ver, 255, [
        [254, pv.int(actor)],
        [249, this.playerProps(name)],
        [252, pv.ints(actors)]
      ])
    )
  }
  /** PUN's OnPhotonSerializeView batch (event 201): timestamp, then one Object[] per view. */
  private serializeContent(viewId: number, tick: number): PV {
    const r = this.r
    return pv.objs(
      pv.int(tick * 50),
      pv.null(),
      pv.objs(
        pv.int(viewId),
        pv.bool(false),
        pv.null(),
        pv.vec3(coord(r), coord(r, 20), coord(r)),
        pv.quat(r(), r(), r(), r()),
        pv.vec3(coord(r, 10), 0, coord(r, 10)),
        pv.float(r() * 100)
      )
    )
  }
  raiseSerialize(viewId: number, tick: number): Uint8Array {
    return photonMsg(
      2,
      requestBody(this.ver, 253, [
        [244, pv.byte(201)],
        [245, this.serializeContent(viewId, tick)]
      ])
    )
  }
  serializeEvent(actor: number, tick: number): Uint8Array {
    return photonMsg(
      4,
      eventBody(this.ver, 201, [
        [245, this.serializeContent(actor * 1000 + 1, tick)],
        [254, pv.int(actor)]
      ])
    )
  }
  /** A PUN RPC (event 200) with a chat line or a hit, raised reliably (encrypted with `key`: SendOptions.Encrypt). */
  rpc(actor: number, key?: Uint8Array): { req: Uint8Array; ev: Uint8Array } {
    const r = this.r
    const content =
      r() < 0.5
        ? pv.hash(
            [pv.byte(0), pv.int(actor * 1000 + 1)],
            [pv.byte(2), pv.int(int(r, 1e6))],
            [pv.byte(5), pv.byte(7)],
            [pv.byte(4), pv.objs(pv.str(`gg ${playerName(r)}`), pv.int(int(r, 100)))]
          )
        : pv.hash(
            [pv.byte(0), pv.int(actor * 1000 + 1)],
            [pv.byte(2), pv.int(int(r, 1e6))],
            [pv.byte(5), pv.byte(3)],
            [pv.byte(4), pv.objs(pv.int(int(r, 16)), pv.float(r() * 80), pv.vec3(coord(r), coord(r, 20), coord(r)))]
          )
    return {
      req: ((b) => (key ? photonMsg(2, photonEncrypt(key, b), true) : photonMsg(2, b)))(
        requestBody(this.ver, 253, [
          [244, pv.byte(200)],
          [245, content],
          [246, pv.byte(0)]
        ])
      ),
      ev: photonMsg(
        4,
        eventBody(this.ver, 200, [
          [245, content],
          [254, pv.int(actor)]
        ])
      )
    }
  }
  propertiesChanged(actor: number): Uint8Array {
    const r = this.r
    const props = pv.hash(
      [pv.str('score'), pv.int(int(r, 5000))],
      [pv.str('kills'), pv.short(int(r, 60))],
      [pv.str('loadout'), pv.strs(['rifle', 'smoke', pick(r, ['medkit', 'shield', 'mine'])])],
      [pv.str('ping'), pv.short(20 + int(r, 120))]
    )
    return photonMsg(
      4,
      eventBody(this.ver, 253, [
        [251, props],
        [253, pv.int(actor)],
        [254, pv.int(actor)]
      ])
    )
  }
  /** A ~3 KB scoreboard/world snapshot: needs 3 fragments at MTU 1200. */
  bigSnapshot(actors: number): Uint8Array {
    const r = this.r
    const rows: PV[] = []
    for (let i = 0; i < actors; i++) {
      rows.push(
        pv.hash(
          [pv.str('n'), pv.str(playerName(r))],
          [pv.str('s'), pv.int(int(r, 99999))],
          [pv.str('p'), pv.vec3(coord(r), coord(r, 20), coord(r))],
          [pv.str('a'), pv.bool(r() < 0.9)],
          [pv.str('h'), pv.ints([int(r, 100), int(r, 100), int(r, 100)])]
        )
      )
    }
    return photonMsg(
      4,
      eventBody(this.ver, 210, [
        [245, pv.objs(...rows)],
        [254, pv.int(0)]
      ])
    )
  }
  /** The master's GameList (event 230): one hashtable of room properties per room (~3 KB for 40 rooms). */
  gameList(rooms: number, update: boolean): Uint8Array {
    const r = this.r
    const entries: [PV, PV][] = []
    for (let i = 0; i < rooms; i++) {
      entries.push([
        pv.str(`${pick(r, ROOMS)}-${int(r, 99999)}`),
        pv.hash(
          [pv.byte(255), pv.byte(16)],
          [pv.byte(254), pv.bool(r() < 0.8)],
          [pv.byte(252), pv.byte(int(r, 17))],
          [pv.str('map'), pv.str(pick(r, ROOMS))],
          [pv.str('elo'), pv.int(800 + int(r, 1600))]
        )
      ])
    }
    return photonMsg(4, eventBody(this.ver, update ? 229 : 230, [[222, pv.hash(...entries)]]))
  }
  appStats(): Uint8Array {
    const r = this.r
    return photonMsg(
      4,
      eventBody(this.ver, 226, [
        [227, pv.int(int(r, 20000))],
        [228, pv.int(int(r, 3000))],
        [229, pv.int(int(r, 90000))]
      ])
    )
  }
  joinLobby(): [Uint8Array, Uint8Array] {
    return [photonMsg(2, requestBody(this.ver, 229, [])), photonMsg(3, responseBody(this.ver, 229, 0, pv.null(), []))]
  }
  leave(): [Uint8Array, Uint8Array] {
    return [photonMsg(2, requestBody(this.ver, 254, [[233, pv.bool(false)]])), photonMsg(3, responseBody(this.ver, 254, 0, pv.null(), []))]
  }
}

/**
 * One Photon UDP peer link: reliable sequence numbers per channel and side, ACKs owed to the other side
 * (sent in its next datagram), datagram headers with the peer's sent time.
 */
export class PhotonUdpLink {
  private readonly rel: Map<number, number>[] = [new Map(), new Map()]
  private readonly unrel: Map<number, number>[] = [new Map(), new Map()]
  private readonly owed: Uint8Array[][] = [[], []]
  private readonly challenge: number
  peerId = -1

  constructor(
    private readonly c: string,
    private readonly cport: number,
    private readonly s: { ip: string; port: number },
    private readonly crc: boolean,
    r: Rand
  ) {
    this.challenge = int(r, 2 ** 31)
  }

  nextSeq(side: 0 | 1, ch: number): number {
    const n = (this.rel[side].get(ch) ?? 0) + 1
    this.rel[side].set(ch, n)
    return n
  }
  reliable(side: 0 | 1, ch: number, msg: Uint8Array): Uint8Array {
    return cmd.reliable(ch, this.nextSeq(side, ch), msg)
  }
  unreliable(side: 0 | 1, ch: number, msg: Uint8Array): Uint8Array {
    const u = (this.unrel[side].get(ch) ?? 0) + 1
    this.unrel[side].set(ch, u)
    return cmd.unreliable(ch, this.rel[side].get(ch) ?? 0, u, msg)
  }
  fragments(side: 0 | 1, ch: number, msg: Uint8Array): Uint8Array[] {
    const start = (this.rel[side].get(ch) ?? 0) + 1
    const frags = splitMessage(msg, { startSeq: start, channel: ch, mtu: 1200 })
    this.rel[side].set(ch, start + frags.length - 1)
    return frags.map((f) => f.command)
  }

  /** A datagram from `side` at `at` (µs): ACKs it owes first, then `commands`; reliable ones become owed ACKs. */
  dg(side: 0 | 1, at: number, commands: Uint8Array[]): Out {
    const sentTime = Math.floor(at / MS) & 0x7fffffff
    const all = [...this.owed[side].splice(0), ...commands]
    for (const c of commands) {
      // type 6 reliable, 8 fragment, 5 ping, 2 connect, 3 verify: flags bit 0 = acknowledge me
      if (c[2] & 1) this.owed[side ^ 1].push(cmd.ack(c[1], new DataView(c.buffer, c.byteOffset).getInt32(8), sentTime))
    }
    const bytes = photonDatagram({ peerId: this.peerId, crc: this.crc, sentTime, challenge: this.challenge, commands: all }).bytes
    const frame = side === 0 ? udpFrame(this.c, this.cport, this.s.ip, this.s.port, bytes) : udpFrame(this.s.ip, this.s.port, this.c, this.cport, bytes)
    return { t: at, frame }
  }
  /** An ACK-only datagram, when `side` owes any. */
  *flush(side: 0 | 1, at: number): Gen {
    if (this.owed[side].length) yield this.dg(side, at, [])
  }
}

/** What every peer slot of the generated capture has: its random stream, address, ports and clock. */
interface PeerSlot {
  env: Env
  r: Rand
  ip: string
  ports: Ports
  clock: { t: number }
  id: number
}

interface PhotonSlot extends PeerSlot {
  server: { ip: string; port: number }
  master: boolean
}

function* photonUdpSession(o: PhotonSlot, n: number): Gen {
  const { r, env } = o
  const script = new PhotonScript(r() < 0.5 ? 18 : 16, r)
  const cport = o.ports.take()
  const link = new PhotonUdpLink(o.ip, cport, o.server, o.id % 4 === 1, r)
  const rtt = (20 + int(r, 60)) * MS
  let at = o.clock.t
  const encrypted = n % 3 === o.id % 3
  let key: Uint8Array | undefined
  if (encrypted) {
    key = secret(32, env.seed, `photon ${o.ip}:${cport}`)
    env.keyLines.push(`PHOTON_AES_KEY ${o.ip}:${cport}-${o.server.ip}:${o.server.port} ${hex(key)}`)
  }
  const name = playerName(r)
  const actor = 1 + int(r, 12)
  const others = Array.from({ length: 2 + int(r, 6) }, (_, i) => ((actor + 1 + i) % 16) + 1)

  // connect, Init, optionally the key exchange and the encrypted Authenticate
  yield link.dg(0, at, [cmd.connect({ mtu: 1200, channelCount: 2, seq: link.nextSeq(0, 255) })])
  link.peerId = 1 + int(r, 30000)
  yield link.dg(1, (at += rtt / 2), [cmd.verifyConnect(link.peerId, link.nextSeq(1, 255))])
  yield link.dg(0, (at += rtt / 2), [link.reliable(0, 0, script.init(o.master ? 'bench-master' : 'bench-game'))])
  yield link.dg(1, (at += rtt / 2), [link.reliable(1, 0, Uint8Array.from([0xf3, 0x01, 0x00]))])
  if (encrypted) {
    const [req, res] = script.initEncryption()
    yield link.dg(0, (at += rtt / 2), [link.reliable(0, 0, req)])
    yield link.dg(1, (at += rtt / 2 + 2 * MS), [link.reliable(1, 0, res)])
  }
  const [auth, authRes] = script.authenticate(name, key)
  yield link.dg(0, (at += rtt / 2), [link.reliable(0, 0, auth)])
  yield link.dg(1, (at += rtt / 2 + 5 * MS), [link.reliable(1, 0, authRes)])

  if (o.master) {
    const [lobby, lobbyRes] = script.joinLobby()
    yield link.dg(0, (at += rtt / 2), [link.reliable(0, 0, lobby)])
    yield link.dg(1, (at += rtt / 2), [link.reliable(1, 0, lobbyRes)])
    // the room list arrives in fragments, one datagram each
    for (const f of link.fragments(1, 0, script.gameList(36 + int(r, 8), false))) yield link.dg(1, (at += 300), [f])
    yield* link.flush(0, (at += rtt / 2))
    const ticks = 60 + int(r, 120)
    for (let i = 0; i < ticks && !env.stopping; i++) {
      at += 250 * MS + jitter(r, 10)
      const cmds: Uint8Array[] = []
      if (i % 2 === 0) cmds.push(link.reliable(1, 0, script.gameList(1 + int(r, 4), true)))
      if (i % 12 === 5) cmds.push(link.reliable(1, 0, script.appStats()))
      if (cmds.length) yield link.dg(1, at, cmds)
      if (i % 4 === 3) yield link.dg(0, at + jitter(r, 30), [cmd.ping(link.nextSeq(0, 255))])
      yield* link.flush(0, at + rtt / 2 + jitter(r, 5))
      yield* link.flush(1, at + rtt + jitter(r, 5))
    }
  } else {
    const room = `${pick(r, ROOMS)}-${int(r, 99999)}`
    const [join, joinRes] = script.joinGame(room, actor, name, [actor, ...others])
    yield link.dg(0, (at += rtt / 2), [link.reliable(0, 0, join)])
    yield link.dg(1, (at += rtt / 2 + 3 * MS), [link.reliable(1, 0, joinRes), link.reliable(1, 0, script.joinEvent(actor, name, [actor, ...others]))])
    const ticks = 300 + int(r, 900)
    for (let i = 0; i < ticks && !env.stopping; i++) {
      at += 50 * MS + jitter(r, 4)
      // client: its own view, unreliable on channel 1; now and then a reliable RPC or a ping
      const mine: Uint8Array[] = [link.unreliable(0, 1, script.raiseSerialize(actor * 1000 + 1, i))]
      let rpc: { req: Uint8Array; ev: Uint8Array } | undefined
      if (i % 23 === 7) {
        rpc = script.rpc(actor, key)
        mine.push(link.reliable(0, 0, rpc.req))
      }
      if (i % 20 === 0) mine.push(cmd.ping(link.nextSeq(0, 255)))
      yield link.dg(0, at, mine)
      // server: the other players' views batched into one datagram, plus reliable events
      const theirs: Uint8Array[] = []
      for (const a of others) if (r() < 0.8) theirs.push(link.unreliable(1, 1, script.serializeEvent(a, i)))
      if (rpc) theirs.push(link.reliable(1, 0, script.rpc(pick(r, others)).ev))
      if (i % 15 === 4) theirs.push(link.reliable(1, 0, script.propertiesChanged(pick(r, others))))
      yield link.dg(1, at + 8 * MS + jitter(r, 6), theirs)
      if (i % 120 === 60) {
        let ft = at + 20 * MS
        for (const f of link.fragments(1, 0, script.bigSnapshot(24 + int(r, 4)))) yield link.dg(1, (ft += 200), [f])
      }
      yield* link.flush(0, at + 30 * MS + jitter(r, 5))
    }
    at += 50 * MS
    const [leave, leaveRes] = script.leave()
    yield link.dg(0, at, [link.reliable(0, 0, leave)])
    yield link.dg(1, (at += rtt / 2), [link.reliable(1, 0, leaveRes)])
  }
  yield link.dg(0, (at += rtt / 2), [cmd.disconnect()])
  o.clock.t = at + (200 + int(r, 2000)) * MS
}

/** Photon over TCP (FB frames) or WebSocket (one message per binary frame): the game script. */
function* photonStreamSession(o: PhotonSlot, ws: boolean): Gen {
  const { r, env } = o
  const script = new PhotonScript(ws ? 18 : r() < 0.5 ? 18 : 16, r)
  const cport = o.ports.take()
  const tcp = new Tcp(o.ip, cport, o.server.ip, o.server.port, r)
  const rtt = (30 + int(r, 60)) * MS
  let at = o.clock.t
  yield* tcp.open(at, rtt)
  at += rtt
  const proto = `GpBinaryV${script.ver}`
  if (ws) {
    yield* tcp.send(0, (at += MS), new TextEncoder().encode(upgradeRequest(`/?libversion=4.1.6.25&sid=30&app=bench-${o.id}`, '', proto)))
    yield* tcp.send(1, (at += rtt / 2), new TextEncoder().encode(upgradeResponse('', proto)))
  }
  const wrap = (side: 0 | 1, msg: Uint8Array, ch = 0) => (ws ? wsFrame(msg, { mask: side === 0 }) : photonTcpFrame(msg, ch, 1))
  const send = function* (side: 0 | 1, when: number, ...msgs: Uint8Array[]): Gen {
    yield* tcp.send(side, when, Uint8Array.from(Buffer.concat(msgs.map((m) => wrap(side, m)))))
  }
  const name = playerName(r)
  const actor = 1 + int(r, 12)
  const others = Array.from({ length: 2 + int(r, 5) }, (_, i) => ((actor + 1 + i) % 16) + 1)
  yield* send(0, (at += MS), script.init('bench-tcp'))
  yield* send(1, (at += rtt / 2), Uint8Array.from([0xf3, 0x01, 0x00]))
  const [auth, authRes] = script.authenticate(name)
  yield* send(0, (at += rtt / 2), auth)
  yield* send(1, (at += rtt / 2 + 4 * MS), authRes)
  const [join, joinRes] = script.joinGame(`${pick(r, ROOMS)}-${int(r, 99999)}`, actor, name, [actor, ...others])
  yield* send(0, (at += rtt / 2), join)
  yield* send(1, (at += rtt / 2), joinRes, script.joinEvent(actor, name, [actor, ...others]))
  const ticks = 200 + int(r, 600)
  for (let i = 0; i < ticks && !env.stopping; i++) {
    at += 100 * MS + jitter(r, 5)
    yield* send(0, at, script.raiseSerialize(actor * 1000 + 1, i))
    const evs = others.filter(() => r() < 0.7).map((a) => script.serializeEvent(a, i))
    if (i % 15 === 4) evs.push(script.propertiesChanged(pick(r, others)))
    if (i % 90 === 25) evs.push(script.bigSnapshot(24 + int(r, 4)))
    if (evs.length) yield* send(1, at + 6 * MS, ...evs)
    if (!ws && i % 10 === 0) {
      // F0 pings: the client's 5 bytes, the server's 9-byte reply
      const ms = Math.floor(at / MS) >>> 0
      yield* tcp.send(0, at + 20 * MS, Uint8Array.from([0xf0, ms >>> 24, (ms >>> 16) & 255, (ms >>> 8) & 255, ms & 255]))
      yield* tcp.send(1, at + 20 * MS + rtt / 2, Uint8Array.from([0xf0, 0, 0, 0, 1, ms >>> 24, (ms >>> 16) & 255, (ms >>> 8) & 255, ms & 255]))
    }
    yield* tcp.ack(0, at + 40 * MS)
  }
  const [leave, leaveRes] = script.leave()
  yield* send(0, (at += 100 * MS), leave)
  yield* send(1, (at += rtt / 2), leaveRes)
  yield* tcp.close((at += rtt), rtt)
  o.clock.t = at + rtt + (500 + int(r, 3000)) * MS
}

// ---- SFS2X ----

const SFS_TCP = { ip: '10.1.0.20', port: 9933 }
const SFS_WS = { ip: '10.1.0.21', port: 8080 }
const SFS_THRESHOLD = 1024

interface SfsSlot extends PeerSlot {
  ws: boolean
  deflate: boolean
  aes: boolean
}

/** SFS2X sessions: handshake, login, JoinRoom, then extension traffic. Packets above 1024 bytes are zlib'ed. */
function* sfsSession(o: SfsSlot): Gen {
  const { r, env } = o
  const server = o.ws ? SFS_WS : SFS_TCP
  const cport = o.ports.take()
  const tcp = new Tcp(o.ip, cport, server.ip, server.port, r)
  const rtt = (25 + int(r, 50)) * MS
  let at = o.clock.t
  yield* tcp.open(at, rtt)
  at += rtt
  let aes: { key: Uint8Array; iv: Uint8Array } | undefined
  if (o.aes) {
    aes = { key: secret(16, env.seed, `sfs2x key ${o.ip}:${cport}`), iv: secret(16, env.seed, `sfs2x iv ${o.ip}:${cport}`) }
    env.keyLines.push(`SFS2X_AES ${o.ip}:${cport}-${server.ip}:${server.port} ${hex(aes.key)} ${hex(aes.iv)}`)
  }
  if (o.ws) {
    const extHeader = o.deflate ? 'permessage-deflate; client_max_window_bits' : ''
    yield* tcp.send(0, (at += MS), new TextEncoder().encode(upgradeRequest('/BlueBox/websocket', extHeader)))
    yield* tcp.send(1, (at += rtt / 2), new TextEncoder().encode(upgradeResponse(o.deflate ? 'permessage-deflate' : '')))
  }
  /** One SFS2X packet on the wire: zlib above the threshold, AES for extension traffic on the AES slot, WS framing. */
  const wire = (side: 0 | 1, body: TV, encrypt = false): Uint8Array => {
    const plain = sfsPacket(body)
    const p = plain.length - 3 > SFS_THRESHOLD || encrypt ? sfsPacket(body, { zlib: plain.length - 3 > SFS_THRESHOLD, aes: encrypt ? aes : undefined }) : plain
    if (!o.ws) return p
    return o.deflate ? wsFrame(pmd(p), { mask: side === 0, rsv1: true }) : wsFrame(p, { mask: side === 0 })
  }
  const send = function* (side: 0 | 1, when: number, ...bodies: TV[]): Gen {
    yield* tcp.send(side, when, Uint8Array.from(Buffer.concat(bodies.map((b) => wire(side, b, !!aes && (b.value as Map<string, TV>).get('c')?.value === 1)))))
  }
  const user = playerName(r)
  const uid = 1 + int(r, 50000)
  const roomId = 1 + int(r, 40)
  const userObj = (id: number, name: string) =>
    t.arr(
      t.int(id),
      t.str(name),
      t.short(0),
      t.short(int(r, 4)),
      t.arr(t.arr(t.str('lvl'), t.byte(4), t.int(int(r, 60))), t.arr(t.str('x'), t.byte(4), t.int(int(r, 1000))))
    )
  const roomArr = (id: number) =>
    t.arr(
      t.int(id),
      t.str(`${pick(r, ROOMS)}-${id}`),
      t.str('default'),
      t.bool(true),
      t.bool(false),
      t.bool(false),
      t.short(int(r, 20)),
      t.short(20),
      t.arr(),
      t.short(0),
      t.short(0)
    )

  yield* send(0, (at += MS), sfsEnvelope(0, 0, { api: t.str('1.7.11'), cl: t.str(o.ws ? 'JavaScript' : 'Unity / .Net') }))
  yield* send(1, (at += rtt / 2), sfsEnvelope(0, 0, { tk: t.str(hex(secret(16, env.seed, `tk ${cport}`))), ct: t.int(SFS_THRESHOLD), ms: t.int(500000) }))
  yield* send(0, (at += rtt / 2), sfsEnvelope(0, 1, { zn: t.str('BenchZone'), un: t.str(user), pw: t.str(''), p: t.obj({ ver: t.str('2.3.1') }) }))
  yield* send(
    1,
    (at += rtt / 2 + 3 * MS),
    sfsEnvelope(0, 1, {
      zn: t.str('BenchZone'),
      un: t.str(user),
      pi: t.short(0),
      id: t.int(uid),
      rs: t.short(0),
      rl: t.arr(...Array.from({ length: 40 }, (_, i) => roomArr(i + 1)))
    })
  )
  yield* send(0, (at += rtt / 2), sfsEnvelope(0, 4, { r: t.int(roomId), p: t.str('') }))
  const others = Array.from({ length: 6 + int(r, 10) }, () => [1 + int(r, 50000), playerName(r)] as const)
  yield* send(1, (at += rtt / 2), sfsEnvelope(0, 4, { r: roomArr(roomId), ul: t.arr(...others.map(([id, n]) => userObj(id, n))) }))
  const ticks = 150 + int(r, 600)
  for (let i = 0; i < ticks && !env.stopping; i++) {
    at += 100 * MS + jitter(r, 8)
    const pos = { x: t.float(coord(r)), y: t.float(coord(r, 20)), z: t.float(coord(r)), rot: t.float(r() * 360), seq: t.int(i) }
    yield* send(0, at, ext('player.move', pos, roomId))
    const world = t.arr(
      ...others
        .filter(() => r() < 0.6)
        .map(([id]) => t.obj({ id: t.int(id), x: t.float(coord(r)), z: t.float(coord(r)), hp: t.short(int(r, 100)), st: t.byte(int(r, 4)) }))
    )
    const bodies: TV[] = [ext('world.update', { t: t.long(BigInt(at)), p: world }, null)]
    if (i % 40 === 20) {
      // a full snapshot: ~150 entities with names and stats, zlib'ed to a few KB (several segments)
      bodies.push(
        ext(
          'world.snapshot',
          {
            e: t.arr(
              ...Array.from({ length: 150 }, (_, k) =>
                t.obj({
                  id: t.int(k),
                  n: t.str(playerName(r)),
                  x: t.float(coord(r)),
                  z: t.float(coord(r)),
                  hp: t.short(int(r, 100)),
                  inv: t.intArr([int(r, 1e5), int(r, 1e5), int(r, 1e5)])
                })
              )
            )
          },
          null
        )
      )
    }
    if (i % 25 === 12) bodies.push(sfsEnvelope(0, 7, { t: t.byte(0), r: t.int(roomId), u: t.int(others[0][0]), m: t.str(`gl hf from ${others[0][1]}`) }))
    if (i % 60 === 30)
      bodies.push(
        sfsEnvelope(0, 12, {
          u: t.int(others[1][0]),
          vl: t.arr(t.arr(t.str('score'), t.byte(4), t.int(int(r, 9999))), t.arr(t.str('status'), t.byte(8), t.str('in-game')))
        })
      )
    yield* send(1, at + 5 * MS + jitter(r, 3), ...bodies)
    if (i % 30 === 0) {
      yield* send(0, at + 30 * MS, sfsEnvelope(0, 29))
      yield* send(1, at + 30 * MS + rtt / 2, sfsEnvelope(0, 29))
    }
    yield* tcp.ack(0, at + 45 * MS)
  }
  yield* send(0, (at += 100 * MS), sfsEnvelope(0, 2))
  yield* send(1, (at += rtt / 2), sfsEnvelope(0, 2, { zn: t.str('BenchZone') }))
  yield* tcp.close((at += rtt), rtt)
  o.clock.t = at + rtt + (500 + int(r, 3000)) * MS
}

// ---- FigNet (ENet and LiteNetLib) ----

export const FIGNET_ENET = { ip: '10.1.0.30', port: 7777 }
const FIGNET_LNL = { ip: '10.1.0.31', port: 9050 }

/** FigNet envelope: u16 LE message id, flags (callback id), payload. */
export const fig = (msgId: number, callbackId: number, body: Uint8Array) => enet.envelope(msgId, callbackId, body)
export const mp = (model: string, v: ModelValue) => writeModel(new MpWriter(), model, v).done()

/** FigNet/Entangle payloads for one player. */
export class FigScript {
  private seq = 0
  constructor(private readonly r: Rand) {}

  registerIdentity(client: boolean): Uint8Array {
    const w = new BitWriter()
    w.byte(client ? 1 : 0)
    w.string(client ? 'bench-secret' : '')
    w.string(client ? 'BenchApp' : '')
    return w.toBytes()
  }
  ping(): Uint8Array {
    return new BitWriter().byte(1).toBytes()
  }
  private transLite(): ModelValue {
    const r = this.r
    // Z, rotation, ×1000 shorts; or float positions with linear velocity
    const flags = r() < 0.5 ? 0x23 : 0x103
    const data = packTransform(flags, {
      x: coord(r, 60),
      y: coord(r, 10),
      z: coord(r, 60),
      rot: [r() - 0.5, r() - 0.5, r() - 0.5, r()],
      vel: [coord(r, 10), 0, coord(r, 10)]
    }).bytes
    this.seq = (this.seq + 1) & 0xffff
    return { TransformData: data, ConfigFlags: flags, SequenceNumber: this.seq }
  }
  entityUpdate(room: number, netId: number): ModelValue {
    return { RoomId: room, EntityNetId: netId, EntityType: 0, TransLite: this.transLite() }
  }
  joinRoom(room: number, user: string, forReply: number | null): Uint8Array {
    return mp('RoomJoinOperationData', { RoomId: forReply ?? room, TeamId: int(this.r, 2), Password: '', UserName: user })
  }
  instantiate(room: number, entity: number): Uint8Array {
    return mp('InstantiateOperationData', { RoomId: room, EntityId: entity, EntityType: 0, TransLite: this.transLite() })
  }
  instantiated(room: number, owner: number, netId: number, entity: number): Uint8Array {
    // the guide's five members, then InitialState (an EntityDefaultStateData) as null
    const w = writeModel(
      new MpWriter(),
      'InstantiateOperationResponseData',
      { RoomId: room, OwnerId: owner, NetworkId: netId, EntityId: entity, EntityType: 0 },
      {
        extraMembers: (m) => (m.header(null), 1)
      }
    )
    return w.done()
  }
  updateBatch(room: number, netIds: number[]): Uint8Array {
    return mp('EntityUpdateResponseOperationData', { EntitiesUpdate: netIds.map((id) => this.entityUpdate(room, id)) })
  }
  stateBatch(room: number, netIds: number[]): Uint8Array {
    const r = this.r
    return mp('EntityStateChangeResponseOperationData', {
      StatesBatch: netIds.map((id) => ({
        RoomId: room,
        NetworkId: id,
        EntityType: int(r, 2),
        State: {
          DeliveryMethod: 1,
          Delta: [
            { Key: 1, Data: [int(r, 100)] },
            { Key: 4, Data: Array.from({ length: 8 }, () => int(r, 256)) }
          ],
          SequenceNumber: int(r, 65536)
        }
      }))
    })
  }
  roomEvent(roomOrSender: number, size: number): Uint8Array {
    const r = this.r
    return mp('RoomEventData', {
      RoomId: roomOrSender,
      EventId: 1 + int(r, 20),
      DeliveryMethod: 1,
      Tag: int(r, 4),
      IsCached: r() < 0.2,
      UniqueId: int(r, 2 ** 31),
      Data: Array.from({ length: size }, () => int(r, 256))
    })
  }
}

type FigSlot = PeerSlot

/** ENet peer: reliable sequence numbers per channel and side, owed ACKs, unreliable sequence numbers. */
export class EnetLink {
  private readonly rel: Map<number, number>[] = [new Map(), new Map()]
  private readonly unrel: Map<number, number>[] = [new Map(), new Map()]
  private readonly owed: Uint8Array[][] = [[], []]
  /** Header peer id of each side's datagrams: the client's is 0xFFF until VERIFY_CONNECT assigns one. */
  readonly peer: [number, number] = [0xfff, 0]

  constructor(
    private readonly c: string,
    private readonly cport: number,
    private readonly variant: enet.Variant,
    private readonly crc: boolean,
    readonly connectId: number
  ) {}

  seq(side: 0 | 1, ch: number): number {
    const n = ((this.rel[side].get(ch) ?? 0) + 1) & 0xffff
    this.rel[side].set(ch, n)
    return n
  }
  reliable(side: 0 | 1, ch: number, data: Uint8Array): Uint8Array {
    return enet.reliable(ch, this.seq(side, ch), data)
  }
  unreliable(side: 0 | 1, ch: number, data: Uint8Array): Uint8Array {
    const u = ((this.unrel[side].get(ch) ?? 0) + 1) & 0xffff
    this.unrel[side].set(ch, u)
    return enet.unreliable(ch, this.rel[side].get(ch) ?? 0, u, data)
  }
  fragments(side: 0 | 1, ch: number, data: Uint8Array): Uint8Array[] {
    const start = ((this.rel[side].get(ch) ?? 0) + 1) & 0xffff
    const specs = enet.split(data, { reliable: true, channel: ch, seq: start, fragmentSize: 1400 - 4 - 24 - (this.crc ? 4 : 0) })
    this.rel[side].set(ch, (start + specs.length - 1) & 0xffff)
    return specs.map(enet.fragment)
  }

  dg(side: 0 | 1, at: number, commands: Uint8Array[], connecting = false): Out {
    const sentTime = Math.floor(at / MS) & 0xffff
    const all = [...this.owed[side].splice(0), ...commands]
    for (const c of commands) if (c[0] & 0x80) this.owed[side ^ 1].push(enet.ack(c[1], (c[2] << 8) | c[3], sentTime))
    const bytes = enet.datagram(
      { variant: this.variant, peerId: this.peer[side], sentTime, checksum: this.crc, connectId: connecting ? undefined : this.connectId },
      all
    )
    const s = FIGNET_ENET
    return { t: at, frame: side === 0 ? udpFrame(this.c, this.cport, s.ip, s.port, bytes) : udpFrame(s.ip, s.port, this.c, this.cport, bytes) }
  }
  /** An ACK-only datagram, when `side` owes any. */
  *flush(side: 0 | 1, at: number): Gen {
    if (this.owed[side].length) yield this.dg(side, at, [])
  }
}

function* fignetEnetSession(o: FigSlot): Gen {
  const { r, env } = o
  const script = new FigScript(r)
  const cport = o.ports.take()
  const variant: enet.Variant = o.id % 4 === 3 ? 'csharp' : 'vanilla'
  const link = new EnetLink(o.ip, cport, variant, variant === 'vanilla' && o.id % 2 === 0, int(r, 2 ** 32))
  const rtt = (15 + int(r, 50)) * MS
  let at = o.clock.t
  const room = 1 + int(r, 500)
  const me = 1 + int(r, 5000)
  const netId = me * 10
  const others = Array.from({ length: 3 + int(r, 8) }, (_, i) => (me + 1 + i) * 10)

  const k = { connectId: link.connectId, mtu: 1400, channels: 4 }
  yield link.dg(0, at, [enet.connect({ ...k, outgoingPeerId: 0, data: 0 })], true)
  link.seq(0, 0xff)
  const serverPeer = int(r, 4000)
  yield link.dg(1, (at += rtt / 2), [enet.verifyConnect({ ...k, outgoingPeerId: serverPeer, seq: link.seq(1, 0xff) })])
  link.peer[0] = serverPeer
  let cb = 1
  const exchange = function* (msgId: number, req: Uint8Array, res: Uint8Array): Gen {
    const id = cb++ & 0x7f
    yield link.dg(0, (at += rtt / 2), [link.reliable(0, 0, fig(msgId, id, req))])
    yield link.dg(1, (at += rtt / 2 + 2 * MS), [link.reliable(1, 0, fig(msgId, id, res))])
  }
  yield* exchange(60000, script.registerIdentity(true), script.registerIdentity(false))
  yield* exchange(60301, script.joinRoom(room, playerName(r), null), script.joinRoom(room, playerName(r), me))
  yield* exchange(60404, script.instantiate(room, 1), script.instantiated(room, me, netId, 1))
  yield* link.flush(0, (at += 5 * MS))

  const ticks = 600 + int(r, 1800)
  for (let i = 0; i < ticks && !env.stopping; i++) {
    at += 33 * MS + jitter(r, 3)
    const mine = [link.unreliable(0, 1, fig(60413, 0, mp('EntityUpdateOperationData', script.entityUpdate(room, netId))))]
    if (i % 30 === 11) mine.push(link.reliable(0, 0, fig(60406, 0, script.roomEvent(room, 16 + int(r, 64)))))
    if (i % 60 === 0) mine.push(enet.ping(link.seq(0, 0xff)))
    yield link.dg(0, at, mine)
    const theirs = [
      link.unreliable(
        1,
        1,
        fig(
          60413,
          0,
          script.updateBatch(
            room,
            others.filter(() => r() < 0.7)
          )
        )
      )
    ]
    if (i % 20 === 5) theirs.push(link.reliable(1, 0, fig(60402, 0, script.stateBatch(room, others.slice(0, 2 + int(r, 3))))))
    if (i % 30 === 13) theirs.push(link.reliable(1, 0, fig(60406, 0, script.roomEvent(pick(r, others) / 10, 16 + int(r, 64)))))
    yield link.dg(1, at + 4 * MS + jitter(r, 3), theirs)
    if (i % 150 === 75) {
      let ft = at + 10 * MS
      for (const f of link.fragments(1, 0, fig(60406, 0, script.roomEvent(pick(r, others) / 10, 3000)))) yield link.dg(1, (ft += 150), [f])
    }
    yield* link.flush(0, at + 20 * MS)
    yield* link.flush(1, at + 25 * MS)
  }
  yield link.dg(0, (at += 33 * MS), [enet.disconnect(link.seq(0, 0xff))])
  yield* link.flush(1, (at += rtt / 2))
  o.clock.t = at + (300 + int(r, 2000)) * MS
}

/** LiteNetLib peer: per-channel sequences (mod 32768), ACK windows owed for reliable channels. */
function* fignetLnlSession(o: FigSlot): Gen {
  const { r, env } = o
  const version: lnl.Version = o.id % 2 === 0 ? '1.x' : '2.x'
  const P = lnl.packets(version)
  const script = new FigScript(r)
  const cport = o.ports.take()
  const s = FIGNET_LNL
  const rtt = (15 + int(r, 50)) * MS
  let at = o.clock.t
  const out = (side: 0 | 1, when: number, bytes: Uint8Array): Out => ({
    t: when,
    frame: side === 0 ? udpFrame(o.ip, cport, s.ip, s.port, bytes) : udpFrame(s.ip, s.port, o.ip, cport, bytes)
  })
  const RO = lnl.channelId(0, lnl.DELIVERY.ReliableOrdered)
  const RU = lnl.channelId(1, lnl.DELIVERY.ReliableUnordered)
  const SQ = lnl.channelId(2, lnl.DELIVERY.Sequenced)
  const seqs: Map<number, number>[] = [new Map(), new Map()]
  const next = (side: 0 | 1, ch: number) => {
    const n = seqs[side].get(ch) ?? 0
    seqs[side].set(ch, (n + 1) % 32768)
    return n
  }
  /** A reliable packet and the receiver's ACK window for it. */
  const reliable = function* (side: 0 | 1, when: number, ch: number, payload: Uint8Array): Gen {
    const seq = next(side, ch)
    yield out(side, when, P.channeled(seq, ch, payload))
    yield out((side ^ 1) as 0 | 1, when + rtt / 2, P.ackWindow(ch, seq, [seq]))
  }
  const time = lnl.ticksAt(1_796_233_260 + at / 1e6)
  const room = 1 + int(r, 500)
  const me = 1 + int(r, 5000)
  const netId = me * 10
  const others = Array.from({ length: 3 + int(r, 8) }, (_, i) => (me + 1 + i) * 10)
  yield out(0, at, P.connectRequest({ connectionTime: time, address: lnl.socketAddress(s.ip, s.port), peerId: int(r, 1000) }))
  yield out(1, (at += rtt / 2), P.connectAccept({ connectionTime: time, connectionNumber: 0, peerId: int(r, 1000) }))
  let cb = 1
  const exchange = function* (msgId: number, req: Uint8Array, res: Uint8Array): Gen {
    const id = cb++ & 0x7f
    yield* reliable(0, (at += rtt / 2), RO, fig(msgId, id, req))
    yield* reliable(1, (at += rtt / 2 + 2 * MS), RO, fig(msgId, id, res))
    at += rtt / 2
  }
  yield* exchange(60000, script.registerIdentity(true), script.registerIdentity(false))
  yield* exchange(60301, script.joinRoom(room, playerName(r), null), script.joinRoom(room, playerName(r), me))
  yield* exchange(60404, script.instantiate(room, 1), script.instantiated(room, me, netId, 1))
  const ticks = 600 + int(r, 1800)
  let fragmentId = 0
  for (let i = 0; i < ticks && !env.stopping; i++) {
    at += 33 * MS + jitter(r, 3)
    yield out(0, at, P.unreliable(fig(60413, 0, mp('EntityUpdateOperationData', script.entityUpdate(room, netId)))))
    yield out(
      1,
      at + 4 * MS + jitter(r, 2),
      P.channeled(
        next(1, SQ),
        SQ,
        fig(
          60413,
          0,
          script.updateBatch(
            room,
            others.filter(() => r() < 0.7)
          )
        )
      )
    )
    if (i % 20 === 5) yield* reliable(1, at + 8 * MS, RO, fig(60402, 0, script.stateBatch(room, others.slice(0, 2 + int(r, 3)))))
    if (i % 30 === 11) yield* reliable(0, at + 10 * MS, RO, fig(60406, 0, script.roomEvent(room, 16 + int(r, 64))))
    if (i % 30 === 0) {
      const ps = next(0, -1) // ping sequence
      yield out(0, at + 12 * MS, P.ping(ps))
      yield out(1, at + 12 * MS + rtt / 2, P.pong(ps, lnl.ticksAt(1_796_233_260 + at / 1e6)))
    }
    if (i % 150 === 75) {
      // a 3 KB room event in 1,200-byte parts on the reliable-unordered channel, acknowledged in one window
      const parts = lnl.splitParts(fig(60406, 0, script.roomEvent(pick(r, others) / 10, 3000)), 1200)
      const id = fragmentId++ & 0xffff
      const acked: number[] = []
      let ft = at + 14 * MS
      for (const [k, part] of parts.entries()) {
        const seq = next(1, RU)
        acked.push(seq)
        yield out(1, (ft += 150), P.fragment(seq, RU, id, k, parts.length, part))
      }
      yield out(0, ft + rtt / 2, P.ackWindow(RU, acked[0], acked))
    }
  }
  yield out(0, (at += 33 * MS), P.disconnect(time))
  o.clock.t = at + (300 + int(r, 2000)) * MS
}

// ---- merging ----

/** Min-heap of the next frame of each slot, by time, then slot index (stable, deterministic). */
class Heap {
  private items: { t: number; i: number; out: Out }[] = []
  get size(): number {
    return this.items.length
  }
  push(x: { t: number; i: number; out: Out }): void {
    const a = this.items
    a.push(x)
    let k = a.length - 1
    while (k > 0) {
      const p = (k - 1) >> 1
      if (this.less(a[p], a[k])) break
      ;[a[p], a[k]] = [a[k], a[p]]
      k = p
    }
  }
  pop(): { t: number; i: number; out: Out } {
    const a = this.items
    const top = a[0]
    const last = a.pop()!
    if (a.length) {
      a[0] = last
      let k = 0
      for (;;) {
        const l = 2 * k + 1
        const rr = l + 1
        let m = k
        if (l < a.length && this.less(a[l], a[m])) m = l
        if (rr < a.length && this.less(a[rr], a[m])) m = rr
        if (m === k) break
        ;[a[m], a[k]] = [a[k], a[m]]
        k = m
      }
    }
    return top
  }
  private less(x: { t: number; i: number }, y: { t: number; i: number }): boolean {
    return x.t < y.t || (x.t === y.t && x.i < y.i)
  }
}

export interface GameTrafficOptions {
  /** Stop starting new exchanges once this many frames are out (sessions then close: a few hundred more). */
  frames: number
  seed?: number
}

export interface GameTraffic {
  /** The frames in time order, timestamps set; `keyLines()` is complete once the iteration ends. */
  frames: Iterable<CaptureFrame>
  keyLines(): string[]
}

/** Capture start: 2026-12-02 17:41 UTC, near the other generated captures. */
export const START_SEC = 1796233260

/** Every slot of the server capture, each with its own PRNG stream and start offset. */
function slots(env: Env): Gen[] {
  const gens: Gen[] = []
  const seeded = (k: number) => rng((env.seed * 7919 + k * 104729) >>> 0)
  let k = 0
  const clock = (r: Rand) => ({ t: jitter(r, 1500) })
  for (let i = 0; i < 16; i++, k++) {
    const r = seeded(k)
    const o: PhotonSlot = {
      env,
      r,
      ip: `10.2.${i}.${10 + i}`,
      ports: new Ports(50000 + i * 1000),
      server: i < 6 ? PHOTON_MASTER : PHOTON_GAME,
      master: i < 6,
      clock: clock(r),
      id: i
    }
    gens.push(slot(env, (n) => photonUdpSession(o, n)))
  }
  for (let i = 0; i < 3; i++, k++) {
    const r = seeded(k)
    const ws = i === 2
    const o: PhotonSlot = {
      env,
      r,
      ip: `10.3.${i}.${20 + i}`,
      ports: new Ports(40000 + i * 1000),
      server: ws ? PHOTON_WS : PHOTON_TCP,
      master: false,
      clock: clock(r),
      id: 20 + i
    }
    gens.push(slot(env, () => photonStreamSession(o, ws)))
  }
  for (let i = 0; i < 6; i++, k++) {
    const r = seeded(k)
    const o: SfsSlot = {
      env,
      r,
      ip: `10.4.${i}.${30 + i}`,
      ports: new Ports(41000 + i * 1000),
      clock: clock(r),
      id: i,
      ws: i >= 4,
      deflate: i === 5,
      aes: i === 3
    }
    gens.push(slot(env, () => sfsSession(o)))
  }
  for (let i = 0; i < 8; i++, k++) {
    const r = seeded(k)
    const o: FigSlot = { env, r, ip: `10.5.${i}.${40 + i}`, ports: new Ports(52000 + i * 1000), clock: clock(r), id: i }
    gens.push(slot(env, () => fignetEnetSession(o)))
  }
  for (let i = 0; i < 4; i++, k++) {
    const r = seeded(k)
    const o: FigSlot = { env, r, ip: `10.6.${i}.${50 + i}`, ports: new Ports(53000 + i * 1000), clock: clock(r), id: i }
    gens.push(slot(env, () => fignetLnlSession(o)))
  }
  return gens
}

/** The traffic as a lazy, time-ordered frame stream. */
export function gameTraffic(o: GameTrafficOptions): GameTraffic {
  const env: Env = { stopping: false, keyLines: [], seed: o.seed ?? 1 }
  const frames = function* (): Generator<CaptureFrame> {
    const gens = slots(env)
    const heap = new Heap()
    const last = new Float64Array(gens.length)
    const pull = (i: number) => {
      const n = gens[i].next()
      if (n.done) return
      // a session never goes back in time (an ACK computed "earlier" than a burst it follows)
      const t = Math.max(n.value.t, last[i])
      last[i] = t
      heap.push({ t, i, out: n.value })
    }
    for (let i = 0; i < gens.length; i++) pull(i)
    let count = 0
    while (heap.size) {
      const { t: at, i, out } = heap.pop()
      const ns = Math.round(at * 1000)
      const f = out.frame
      f.number = ++count
      f.tsSec = START_SEC + Math.floor(ns / 1e9)
      f.tsNsec = ns % 1e9
      yield f
      if (count >= o.frames) env.stopping = true
      pull(i)
    }
  }
  return { frames: { [Symbol.iterator]: frames }, keyLines: () => env.keyLines }
}

/** The key file for the traffic: one line per encrypted conversation. */
export function keyFileText(lines: string[]): string {
  return `# gamewire bench: keys of the encrypted Photon and SFS2X conversations\n${lines.join('\n')}\n`
}

/**
 * Writes the capture as pcapng to `path` (streamed: 4 MiB writes) and its key file to `keyPath`.
 * Returns the frame count and bytes written.
 */
export function writeGameCapture(path: string, keyPath: string, o: GameTrafficOptions): { frames: number; bytes: number; keys: number } {
  const traffic = gameTraffic(o)
  const w = new PcapngWriter()
  const fd = openSync(path, 'w')
  let bytes = 0
  let frames = 0
  const parts: Uint8Array[] = []
  let pending = 0
  const flush = () => {
    const buf = Buffer.concat(parts.splice(0))
    writeSync(fd, buf)
    bytes += buf.length
    pending = 0
  }
  try {
    parts.push(w.header([{ linkType: 1, tsUnitsPerSecond: 1e9, name: 'bench-game-server' }], { application: 'gamewire test/bench/game-traffic.ts' }))
    for (const f of traffic.frames) {
      const b = w.frame({ interfaceId: 0, tsSec: f.tsSec, tsNsec: f.tsNsec, data: f.data })
      parts.push(b)
      pending += b.length
      frames++
      if (pending >= 4 << 20) flush()
    }
    flush()
  } finally {
    closeSync(fd)
  }
  writeFileSync(keyPath, keyFileText(traffic.keyLines()))
  return { frames, bytes, keys: traffic.keyLines().length }
}
