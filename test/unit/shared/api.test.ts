// The request table and the shared argument validators both transports use (IPC and the serve
// WebSocket): what they accept, what they refuse, and that hostile sizes are capped.
import { describe, expect, it } from 'vitest'
import {
  BUILTIN_COLUMNS,
  IPC_CHANNELS,
  MAX_CONVERSATIONS_PER_REQUEST,
  MAX_ROWS_PER_REQUEST,
  REQUEST_NAMES,
  requestChannel,
  type InspectorRequests
} from '../../../src-shared/api'
import {
  ApiArgumentError,
  MAX_COLUMNS,
  MAX_FILTER_LENGTH,
  MAX_KEY_TEXT,
  MAX_PATH_LENGTH,
  isRequestName,
  validateRequest
} from '../../../src-shared/api-validate'

const view = (over: Record<string, unknown> = {}) => ({ filter: '', sort: null, columns: [], ...over })

describe('the request table', () => {
  it('names every InspectorRequests method once, each on its own namespaced channel', () => {
    // a type-level check that the list and the interface agree
    const all: Record<keyof InspectorRequests, true> = Object.fromEntries(REQUEST_NAMES.map((n) => [n, true])) as never
    expect(Object.keys(all).sort()).toEqual([...REQUEST_NAMES].sort())
    expect(new Set(REQUEST_NAMES).size).toBe(REQUEST_NAMES.length)
    const channels = [...REQUEST_NAMES.map(requestChannel), ...Object.values(IPC_CHANNELS)]
    expect(new Set(channels).size).toBe(channels.length)
    for (const c of channels) expect(c).toMatch(/^gamewire:[A-Za-z]+$/)
  })

  it('knows request names and nothing else', () => {
    expect(isRequestName('getRows')).toBe(true)
    for (const bad of ['constructor', '__proto__', 'toString', 'close', '', 42, null]) expect(isRequestName(bad)).toBe(false)
    expect(() => validateRequest('__proto__' as never, [])).toThrow(ApiArgumentError)
  })
})

describe('validateRequest', () => {
  it('accepts the shapes the renderer sends', () => {
    expect(validateRequest('openCapture', [])).toEqual([])
    expect(validateRequest('openCapture', [undefined])).toEqual([])
    expect(validateRequest('openCapture', ['/tmp/a.pcapng'])).toEqual(['/tmp/a.pcapng'])
    expect(validateRequest('openCapture', ['x'.repeat(MAX_PATH_LENGTH)])[0]).toHaveLength(MAX_PATH_LENGTH)
    expect(validateRequest('getRows', [1, 0, MAX_ROWS_PER_REQUEST])).toEqual([1, 0, MAX_ROWS_PER_REQUEST])
    expect(validateRequest('setView', [view({ filter: 'photon', sort: { column: 'photon.op.code', desc: false }, columns: ['photon.op.code'] })])).toEqual([
      { filter: 'photon', sort: { column: 'photon.op.code', desc: false }, columns: ['photon.op.code'] }
    ])
    for (const c of BUILTIN_COLUMNS) expect(validateRequest('setView', [view({ sort: { column: c, desc: true } })])[0].sort).toEqual({ column: c, desc: true })
    expect(
      validateRequest('setDecodeAs', [
        [
          { match: 3, protocol: 'photon' },
          { match: '10.0.0.1:5055', protocol: 'unknown' }
        ]
      ])
    ).toHaveLength(1)
    expect(validateRequest('startExport', [{ format: 'pcapng', scope: 'selected', ids: [1, 5] }])).toEqual([
      { format: 'pcapng', scope: 'selected', ids: [1, 5] }
    ])
    expect(validateRequest('startExport', [{ format: 'json', scope: 'all', includeKeys: true }])).toEqual([{ format: 'json', scope: 'all', includeKeys: true }])
    expect(validateRequest('startExport', [{ format: 'ndjson', scope: 'all', tree: 'none' }])).toEqual([{ format: 'ndjson', scope: 'all', tree: 'none' }])
    expect(validateRequest('startExport', [{ format: 'json', scope: 'all', tree: 'full' }])).toEqual([{ format: 'json', scope: 'all', tree: 'full' }])
    expect(validateRequest('startCapture', [{ interface: 'eth0', filter: 'udp port 5055' }])).toEqual([{ interface: 'eth0', filter: 'udp port 5055' }])
    expect(validateRequest('addKeys', ['PHOTON_SECRET * 00'])).toEqual(['PHOTON_SECRET * 00'])
    expect(validateRequest('checkFilter', [''])).toEqual([''])
    expect(validateRequest('getConversationPage', [{ start: 0, count: 200 }])).toEqual([{ start: 0, count: 200 }])
    const page = { sort: 'bytes', desc: true, start: 400, count: MAX_CONVERSATIONS_PER_REQUEST, protocols: ['photon', 'unknown'], first: 7 }
    expect(validateRequest('getConversationPage', [page])).toEqual([page])
  })

  it.each([
    ['openCapture', [42], /path must be a string/],
    ['openCapture', [''], /must not be empty/],
    ['openCapture', ['/a\0b'], /NUL/],
    ['openCapture', ['x'.repeat(MAX_PATH_LENGTH + 1)], /longer than/],
    ['openCapture', ['/a', '/b'], /0 to 1 argument/],
    ['getStatus', [1], /expected 0/],
    ['getRows', [1, 0, MAX_ROWS_PER_REQUEST + 1], /count must be between/],
    ['getRows', [1, -1, 1], /start must be between/],
    ['getRows', [1, 0.5, 1], /start must be an integer/],
    ['getRows', ['1', 0, 1], /viewId must be an integer/],
    ['getConversationPage', [], /expected 1 argument/],
    ['getConversationPage', [{ start: 0 }], /count must be an integer/],
    ['getConversationPage', [{ start: 0, count: MAX_CONVERSATIONS_PER_REQUEST + 1 }], /count must be between/],
    ['getConversationPage', [{ start: -1, count: 1 }], /start must be between/],
    ['getConversationPage', [{ start: 0, count: 1, sort: 'notes' }], /sort must be one of id, protocol, frames, bytes, duration/],
    ['getConversationPage', [{ start: 0, count: 1, desc: 1 }], /true or false/],
    ['getConversationPage', [{ start: 0, count: 1, protocols: 'photon' }], /protocols must be an array/],
    ['getConversationPage', [{ start: 0, count: 1, protocols: ['Photon!'] }], /not a protocol id/],
    ['getConversationPage', [{ start: 0, count: 1, protocols: Array(17).fill('photon') }], /at most 16 protocols/],
    ['getConversationPage', [{ start: 0, count: 1, first: 0 }], /first must be between 1/],
    ['getConversationPage', [{ start: 0, count: 1, filter: 'x' }], /unknown property 'filter'/],
    ['getMessage', [0], /between 1/],
    ['getMessage', [Number.NaN], /integer/],
    ['setView', [null], /view must be an object/],
    ['setView', [[]], /view must be an object/],
    ['setView', [view({ extra: true })], /unknown property 'extra'/],
    ['setView', [view({ filter: 'x'.repeat(MAX_FILTER_LENGTH + 1) })], /longer than/],
    ['setView', [view({ columns: Array.from({ length: MAX_COLUMNS + 1 }, (_, i) => `f.${i}`) })], /at most/],
    ['setView', [view({ columns: ['bad key with spaces'] })], /not a field key/],
    ['setView', [view({ sort: { column: 'photon.x', desc: false } })], /neither a builtin nor an extra column/],
    ['setView', [view({ sort: { column: 'time', desc: 'yes' } })], /true or false/],
    ['setView', [Object.assign(Object.create({ polluted: 1 }), view())], /plain object/],
    ['setDecodeAs', [[{ match: 1, protocol: 'Photon!' }]], /not a protocol id/],
    ['setDecodeAs', [[{ match: 0, protocol: 'photon' }]], /between 1/],
    ['addKeys', ['x'.repeat(MAX_KEY_TEXT + 1)], /longer than/],
    ['addKeys', [''], /must not be empty/],
    ['startExport', [{ format: 'exe', scope: 'all' }], /format must be/],
    ['startExport', [{ format: 'json', scope: 'some' }], /scope must be/],
    ['startExport', [{ format: 'json', scope: 'selected' }], /needs ids/],
    ['startExport', [{ format: 'json', scope: 'selected', ids: [1, 'x'] }], /ids\[1\]/],
    ['startExport', [{ format: 'json', scope: 'all', path: '/etc/passwd' }], /unknown property 'path'/],
    ['startExport', [{ format: 'json', scope: 'all', tree: 'leaves' }], /tree must be 'full' or 'none'/],
    ['startExport', [{ format: 'json', scope: 'all', tree: false }], /tree must be 'full' or 'none'/],
    ['startCapture', [{ interface: 'eth0 -w /tmp/x' }], /whitespace/],
    ['cancelJob', [-1], /between 0/]
  ] as [keyof InspectorRequests, unknown[], RegExp][])('refuses %s%j', (name, args, message) => {
    let error: unknown
    try {
      validateRequest(name, args)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ApiArgumentError)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toMatch(message)
    expect((error as Error).message.startsWith(`${name}: `)).toBe(true)
  })

  it('refuses arguments that are not an array', () => {
    expect(() => validateRequest('getStatus', 'nope' as never)).toThrow(/arguments must be an array/)
    expect(() => validateRequest('getStatus', { length: 0 } as never)).toThrow(/arguments must be an array/)
  })
})
