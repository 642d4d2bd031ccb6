// The shipped example pack, resources/schemas/albion-online.json (public facts, cited in docs/schema-packs.md).
// The repository holds no real Albion Online capture, so the pack is tested on (1) Albion-style Protocol16
// traffic built with the tests' encoders (operation 1, real code in parameter 253, as the cited enum's own
// comments show: `… 253:170` for ReadMail), and (2) the committed Photon capture test/fixtures/ui/
// photon-session.pcapng, a LoadBalancing session, where it must rename nothing.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { resetFrames, udpFrame } from '../helpers/frames'
import { CaptureReader } from '../../../src-shared/capture/reader'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { command, datagram, initMessage, T } from '../protocols/photon/udp-encoder'
import { requestBody, pv } from '../protocols/photon/gp-encoder'
import { registerSchemaFields } from '../../../src-shared/schema/set'
import { parseSchemaPack } from '../../../src-shared/schema/validate'
import { runWithPacks } from './helpers'

const ROOT = join(__dirname, '../../..')
const PACK = parseSchemaPack(readFileSync(join(ROOT, 'resources/schemas/albion-online.json'), 'utf8'))

function albionFrames(): CaptureFrame[] {
  resetFrames()
  const c2s = (b: Uint8Array) => udpFrame('10.0.0.1', 50000, '10.0.0.2', 5056, b)
  const dg = (seq: number, m: Uint8Array) =>
    datagram({ peerId: 3, commands: [command({ type: T.SEND_RELIABLE, channel: 0, seq, body: m })], sentTime: 1, challenge: 9 }).bytes
  const op = (ps: Parameters<typeof requestBody>[2]) => Uint8Array.from([0xf3, 2, ...requestBody(16, 1, ps)])
  return [
    c2s(dg(1, initMessage(6))),
    c2s(
      dg(
        2,
        op([
          [0, pv.long(637852747555964630n)],
          [253, pv.short(170)]
        ])
      )
    ),
    c2s(
      dg(
        3,
        op([
          [0, pv.int(1)],
          [253, pv.short(22)]
        ])
      )
    ),
    c2s(dg(4, op([[253, pv.short(999)]])))
  ]
}

function fileFrames(path: string): CaptureFrame[] {
  const frames: CaptureFrame[] = []
  const reader = new CaptureReader({ onFrame: (f) => frames.push(f), onWarning: () => undefined })
  reader.push(new Uint8Array(readFileSync(path)))
  reader.end()
  return frames
}

beforeEach(() => registerSchemaFields([]))

describe('the example pack (Albion Online operations)', () => {
  it('validates, and names operation 1 by the code in parameter 253', () => {
    expect(PACK.name).toBe('Albion Online (operations, partial)')
    const ms = runWithPacks(albionFrames(), [PACK]).filter((m) => m.name !== 'Init' && m.protocol === 'photon' && !/^(ACK|Init)/.test(m.name))
    expect(ms.map((m) => m.summary)).toEqual(['ReadMail mailId=637852747555964630', 'Move', 'Operation 1 {253}'])
    expect(runWithPacks(albionFrames(), [PACK], { filter: 'schema.code == ReadMail' }).map((m) => m.name)).toEqual(['ReadMail'])
  })

  it('renames nothing in a LoadBalancing session (the committed photon-session capture)', () => {
    const file = join(ROOT, 'test/fixtures/ui/photon-session.pcapng')
    const without = runWithPacks(fileFrames(file), [])
    const withPack = runWithPacks(fileFrames(file), [PACK])
    expect(withPack.length).toBeGreaterThan(100)
    expect(withPack.map((m) => [m.name, m.summary])).toEqual(without.map((m) => [m.name, m.summary]))
  })
})
