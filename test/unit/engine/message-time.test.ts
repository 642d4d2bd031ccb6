// A message's `time` is the time of the frame that completed it, the latest of its frames, whatever order
// its pieces arrived in; `frames` lists every frame that carried a byte of it, ascending (README, The
// decoded JSON). Frames from the helpers are one second apart (frame n at 1_700_000_000 + n) unless set.
import { beforeEach, describe, expect, it } from 'vitest'
import { resetFrames, tcpFrame, udpFrame, ACK, PSH, SYN } from '../helpers/frames'
import { runEngine } from '../helpers/decode'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { datagram, splitMessage, tcpFrame as photonTcpFrame } from '../protocols/photon/udp-encoder'
import { eventBody, pv } from '../protocols/photon/gp-encoder'
import { connect, datagram as enetDatagram, envelope, fragment, split } from '../protocols/enet/encoder'

const C = '10.0.0.1'
const S = '10.0.0.2'
const T0 = 1_700_000_000
const at = (f: CaptureFrame, sec: number) => ({ ...f, tsSec: sec })
const event = (size: number) => Uint8Array.from([0xf3, 4, ...eventBody(18, 22, [[245, pv.bytes(new Uint8Array(size).fill(7))]])])

beforeEach(() => resetFrames())

describe('message time', () => {
  it('over TCP is the time of the frame that completed the message, not of the segment holding its last bytes', () => {
    const frame = photonTcpFrame(event(600))
    const first = frame.subarray(0, 300)
    const rest = frame.subarray(300)
    const frames = [
      tcpFrame(C, 40000, S, 4530, 1000, SYN), // 1
      tcpFrame(S, 4530, C, 40000, 5000, SYN | ACK), // 2
      ...[3, 4, 5, 6].map(() => tcpFrame(C, 40000, S, 4530, 1001, ACK)), // 3-6: nothing new
      tcpFrame(S, 4530, C, 40000, 5001 + 300, ACK | PSH, rest), // 7: bytes 300… arrive first
      tcpFrame(S, 4530, C, 40000, 5001, ACK | PSH, first) // 8: bytes 0…299 complete the message
    ]
    const { messages } = runEngine(frames)
    expect(messages).toHaveLength(1)
    expect(messages[0]).toMatchObject({ name: 'Event 22', frames: [7, 8], time: T0 + 8, error: null })
  })

  it('over TCP in order is still the time of the last frame', () => {
    const frame = photonTcpFrame(event(600))
    const { messages } = runEngine([
      tcpFrame(C, 40000, S, 4530, 1000, SYN),
      tcpFrame(S, 4530, C, 40000, 5001, ACK | PSH, frame.subarray(0, 300)),
      tcpFrame(S, 4530, C, 40000, 5301, ACK | PSH, frame.subarray(300))
    ])
    expect(messages[0]).toMatchObject({ frames: [2, 3], time: T0 + 3 })
  })

  it("of Photon UDP fragments arriving out of order is the completing frame's, even when the clock stepped back", () => {
    const frags = splitMessage(event(2500), { startSeq: 10, fragmentSize: 1000 })
    expect(frags).toHaveLength(3)
    const dg = (c: Uint8Array) => datagram({ peerId: 1, commands: [c], sentTime: 1, challenge: 2 }).bytes
    const f = (i: number) => udpFrame(S, 5056, C, 50000, dg(frags[i].command))
    // Fragment 2 at T0+20, fragment 0 at T0+30, then fragment 1 completes it at T0+25 (the clock went back).
    const { messages } = runEngine([at(f(2), T0 + 20), at(f(0), T0 + 30), at(f(1), T0 + 25)])
    const whole = messages.find((m) => m.name === 'Event 22')!
    expect(whole).toMatchObject({ frames: [1, 2, 3], time: T0 + 25, error: null })
  })

  it("of ENet fragments arriving out of order is the completing frame's", () => {
    const payload = envelope(
      60002,
      0,
      Array.from({ length: 250 }, (_, i) => i & 0xff)
    )
    const parts = split(payload, { reliable: true, channel: 0, seq: 1, fragmentSize: 100 }).map(fragment)
    expect(parts).toHaveLength(3)
    const h = (peerId: number) => ({ variant: 'csharp' as const, peerId, sentTime: 100 })
    const c2s = (b: Uint8Array) => udpFrame(C, 50000, S, 7777, b)
    const { messages } = runEngine([
      c2s(enetDatagram(h(0xfff), [connect({ connectId: 5, mtu: 1280, channels: 1 })])), // 1
      at(c2s(enetDatagram(h(3), [parts[1]])), T0 + 40), // 2
      at(c2s(enetDatagram(h(3), [parts[2]])), T0 + 50), // 3
      at(c2s(enetDatagram(h(3), [parts[0]])), T0 + 45) // 4 completes it
    ])
    const whole = messages.find((m) => m.frames.length === 3)!
    expect(whole).toMatchObject({ frames: [2, 3, 4], time: T0 + 45, error: null })
  })
})
