// Photon over real UDP sockets on 127.0.0.1 for the live-capture tests. Datagrams come from the tests'
// own Photon encoders (udp-encoder.ts, gp-encoder.ts, written from the reference, not from the decoder).
import { createSocket, type Socket } from 'node:dgram'
import { createCipheriv, randomBytes } from 'node:crypto'
import { command, datagram, T } from '../protocols/photon/udp-encoder'
import { eventBody, pv, requestBody, responseBody, type Params } from '../protocols/photon/gp-encoder'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Init (41 bytes): F3 00, protocol 1.6, sdk byte, lib 4.1.6.25, app id padded to 32. */
function init(): Uint8Array {
  const out = new Uint8Array(41)
  out.set([0xf3, 0x00, 1, 6, 0x1e, 0x41, 0x06, 0x19, 0x00])
  out.set(Buffer.from('Realtime'), 9)
  return out
}

const msg = (type: number, body: Uint8Array, encrypted = false) => Uint8Array.from([0xf3, type | (encrypted ? 0x80 : 0), ...body])

export class PhotonPeers {
  private seq = { c2s: 1, s2c: 1 }
  private constructor(
    readonly client: Socket,
    readonly server: Socket,
    readonly serverPort: number
  ) {}

  static async open(serverPort: number): Promise<PhotonPeers> {
    const server = createSocket('udp4')
    await new Promise<void>((r) => server.bind(serverPort, '127.0.0.1', () => r()))
    const client = createSocket('udp4')
    await new Promise<void>((r) => client.bind(0, '127.0.0.1', () => r()))
    return new PhotonPeers(client, server, serverPort)
  }

  get clientPort(): number {
    return this.client.address().port
  }

  private async send(dir: 'c2s' | 's2c', ...commands: Uint8Array[]): Promise<void> {
    const bytes = datagram({ peerId: dir === 'c2s' ? -1 : 7, commands, sentTime: 1000, challenge: 0x1234 }).bytes
    await new Promise<void>((resolve, reject) =>
      dir === 'c2s'
        ? this.client.send(bytes, this.serverPort, '127.0.0.1', (e) => (e ? reject(e) : resolve()))
        : this.server.send(bytes, this.clientPort, '127.0.0.1', (e) => (e ? reject(e) : resolve()))
    )
    await sleep(5)
  }

  private reliable(dir: 'c2s' | 's2c', m: Uint8Array): Uint8Array {
    return command({ type: T.SEND_RELIABLE, channel: 0, seq: this.seq[dir]++, body: m })
  }

  /** CONNECT / VERIFYCONNECT, then Init / InitResponse (protocol 1.6). */
  async handshake(): Promise<void> {
    await this.send('c2s', command({ type: T.CONNECT, channel: 255, seq: 1, body: new Uint8Array(32) }))
    await this.send('s2c', command({ type: T.VERIFYCONNECT, channel: 255, seq: 1, body: Uint8Array.from([0, 7, ...new Uint8Array(30)]) }))
    await this.send('c2s', this.reliable('c2s', init()))
    await this.send('s2c', this.reliable('s2c', Uint8Array.from([0xf3, 0x01, 0x00])))
  }

  async request(code: number, params: Params): Promise<void> {
    await this.send('c2s', this.reliable('c2s', msg(2, requestBody(16, code, params))))
  }

  async response(code: number, params: Params): Promise<void> {
    await this.send('s2c', this.reliable('s2c', msg(3, responseBody(16, code, 0, pv.null(), params))))
  }

  async event(code: number, params: Params): Promise<void> {
    await this.send('s2c', this.reliable('s2c', msg(4, eventBody(16, code, params))))
  }

  /** An operation request whose body is AES-256-CBC encrypted with `key` (zero IV), flagged 0x80. */
  async encryptedRequest(key: Uint8Array, code: number, params: Params): Promise<void> {
    const c = createCipheriv('aes-256-cbc', key, Buffer.alloc(16))
    const body = Uint8Array.from(Buffer.concat([c.update(requestBody(16, code, params)), c.final()]))
    await this.send('c2s', this.reliable('c2s', msg(2, body, true)))
  }

  /** Plain UDP datagrams (not Photon), numbered in their first 4 bytes. */
  async raw(n: number, size = 64): Promise<void> {
    for (let i = 0; i < n; i++) {
      const b = randomBytes(size)
      b.writeUInt32BE(i, 0)
      await new Promise<void>((r) => this.client.send(b, this.serverPort, '127.0.0.1', () => r()))
      await sleep(2)
    }
  }

  close(): void {
    this.client.close()
    this.server.close()
  }
}
