// findFrame (a summary's frame link): the transports accept one frame number, 1 and up, and nothing else.
import { describe, expect, it } from 'vitest'
import { REQUEST_NAMES } from '../../../src-shared/api'
import { ApiArgumentError, validateRequest } from '../../../src-shared/api-validate'

describe('findFrame arguments', () => {
  it('is a request and takes exactly one whole frame number from 1', () => {
    expect(REQUEST_NAMES).toContain('findFrame')
    expect(validateRequest('findFrame', [3])).toEqual([3])
    for (const bad of [[], [0], [-1], [1.5], ['3'], [null], [3, 4], [2 ** 40]]) {
      expect(() => validateRequest('findFrame', bad), JSON.stringify(bad)).toThrow(ApiArgumentError)
    }
  })
})
