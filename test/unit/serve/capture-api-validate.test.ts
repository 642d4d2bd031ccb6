// The live-capture requests' arguments as they arrive from the untrusted side (renderer, browser).
import { describe, expect, it } from 'vitest'
import { validateRequest } from '../../../src-shared/api-validate'

describe('live-capture request validation', () => {
  it('passes well-formed options through', () => {
    const o = {
      interface: 'lo',
      filter: 'udp port 5055',
      presets: ['photon', 'enet:7777,7778'],
      promiscuous: false,
      snapLen: 1500,
      bufferSize: 1 << 25,
      ringFrames: 1000,
      ringBytes: 1 << 20
    }
    expect(validateRequest('startCapture', [o])).toEqual([o])
    expect(validateRequest('listCaptureDevices', [])).toEqual([])
    expect(validateRequest('restartCapture', [])).toEqual([])
    expect(validateRequest('saveCapture', [])).toEqual([])
  })

  it.each([
    [{ interface: 'lo', presets: 'photon' }, /presets must be an array/],
    [{ interface: 'lo', presets: ['photon; rm -rf'] }, /not a preset/],
    [{ interface: 'lo', presets: Array(33).fill('photon') }, /at most 32/],
    [{ interface: 'lo', promiscuous: 'yes' }, /promiscuous must be true or false/],
    [{ interface: 'lo', snapLen: 0 }, /snapLen must be between 1 and 262144/],
    [{ interface: 'lo', snapLen: 1.5 }, /snapLen must be an integer/],
    [{ interface: 'lo', bufferSize: 2 ** 31 }, /bufferSize must be between/],
    [{ interface: 'lo', ringFrames: -1 }, /ringFrames must be between/],
    [{ interface: 'lo', ringBytes: 2 ** 40 }, /ringBytes must be between/],
    [{ interface: 'lo', filter: 'udp\0' }, /NUL/],
    [{ interface: 'lo', output: { ndjson: true } }, /unknown property 'output'/],
    [{ interface: 'lo', writeFile: '/etc/passwd' }, /unknown property 'writeFile'/]
  ])('refuses %j', (o, message) => {
    expect(() => validateRequest('startCapture', [o])).toThrow(message)
  })

  it('refuses arguments to the argument-less requests', () => {
    for (const name of ['listCaptureDevices', 'restartCapture', 'saveCapture', 'stopCapture'] as const)
      expect(() => validateRequest(name, ['x'])).toThrow(/expected 0 arguments/)
  })
})
