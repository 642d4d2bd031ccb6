import { describe, expect, it } from 'vitest'
import {
  INVOKE_CHANNELS,
  IPC_CHANNELS,
  MAX_PATH_LENGTH,
  validateNoArgs,
  validateOpenCaptureArgs
} from '../../../src-shared/api'

describe('IPC channels', () => {
  it('are distinct, namespaced strings', () => {
    const names = Object.values(IPC_CHANNELS)
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) expect(name).toMatch(/^gamewire:[a-z-]+$/)
  })

  it('lists every request channel as invokable, and not the progress event', () => {
    expect([...INVOKE_CHANNELS].sort()).toEqual([IPC_CHANNELS.getSummary, IPC_CHANNELS.openCapture].sort())
    expect(INVOKE_CHANNELS).not.toContain(IPC_CHANNELS.progress)
  })
})

describe('validateOpenCaptureArgs', () => {
  it('accepts no argument or an explicit undefined (the demo capture)', () => {
    expect(validateOpenCaptureArgs([])).toEqual({})
    expect(validateOpenCaptureArgs([undefined])).toEqual({})
  })

  it('accepts a non-empty path', () => {
    expect(validateOpenCaptureArgs(['/tmp/a.pcapng'])).toEqual({ path: '/tmp/a.pcapng' })
    expect(validateOpenCaptureArgs(['C:\\caps\\b.pcap'])).toEqual({ path: 'C:\\caps\\b.pcap' })
    expect(validateOpenCaptureArgs(['x'.repeat(MAX_PATH_LENGTH)]).path).toHaveLength(MAX_PATH_LENGTH)
  })

  it.each([
    ['a number', [42]],
    ['null', [null]],
    ['an object', [{ path: '/tmp/a.pcapng' }]],
    ['an array', [['/tmp/a.pcapng']]],
    ['a boolean', [true]],
    ['a String object', [new String('/tmp/a.pcapng')]],
    ['an empty string', ['']],
    ['a string with a NUL byte', ['/tmp/a.pcapng\0.txt']],
    ['a string longer than the limit', ['x'.repeat(MAX_PATH_LENGTH + 1)]],
    ['two arguments', ['/tmp/a.pcapng', '/tmp/b.pcapng']],
    ['a path plus an extra undefined', ['/tmp/a.pcapng', undefined]]
  ])('rejects %s', (_name, args) => {
    expect(() => validateOpenCaptureArgs(args as unknown[])).toThrow(TypeError)
  })

  it('rejects a non-array argument list', () => {
    expect(() => validateOpenCaptureArgs('/tmp/a.pcapng' as unknown as unknown[])).toThrow(TypeError)
  })
})

describe('validateNoArgs', () => {
  it('accepts an empty list and rejects anything else', () => {
    expect(() => validateNoArgs('getSummary', [])).not.toThrow()
    expect(() => validateNoArgs('getSummary', [undefined])).toThrow(/getSummary/)
    expect(() => validateNoArgs('getSummary', ['x'])).toThrow(TypeError)
  })
})
