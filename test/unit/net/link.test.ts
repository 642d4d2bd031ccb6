import { describe, it, expect } from 'vitest'
import { decodeLink } from '../../../src-shared/net/link'
import { LinkType } from '../../../src-shared/capture/types'

describe('decodeLink', () => {
  it('follows Ethernet, stacked 802.1Q tags included', () => {
    const f = new Uint8Array(14 + 8 + 20)
    f.set([0x81, 0x00, 0x00, 0x64, 0x88, 0xa8, 0x00, 0x05, 0x08, 0x00].slice(0, 2), 12)
    f.set([0x00, 0x64, 0x81, 0x00, 0x00, 0x05, 0x08, 0x00], 14)
    expect(decodeLink(LinkType.ETHERNET, f)).toEqual({ network: 'ipv4', offset: 22, vlans: [100, 5] })
  })

  it('reads the protocol of Linux cooked SLL and SLL2', () => {
    const sll = new Uint8Array(17)
    sll[14] = 0x86
    sll[15] = 0xdd
    expect(decodeLink(LinkType.LINUX_SLL, sll)).toMatchObject({ network: 'ipv6', offset: 16 })
    const sll2 = new Uint8Array(21)
    sll2[0] = 0x08
    expect(decodeLink(LinkType.LINUX_SLL2, sll2)).toMatchObject({ network: 'ipv4', offset: 20 })
  })

  it('reads BSD loopback families in either byte order', () => {
    expect(decodeLink(LinkType.NULL, new Uint8Array([2, 0, 0, 0, 0x45]))).toMatchObject({ network: 'ipv4', offset: 4 })
    expect(decodeLink(LinkType.NULL, new Uint8Array([0, 0, 0, 30, 0x60]))).toMatchObject({ network: 'ipv6', offset: 4 })
    expect(decodeLink(LinkType.LOOP, new Uint8Array([0, 0, 0, 24, 0x60]))).toMatchObject({ network: 'ipv6', offset: 4 })
  })

  it('picks the IP version of raw frames from the first nibble', () => {
    expect(decodeLink(LinkType.RAW, new Uint8Array([0x60]))).toMatchObject({ network: 'ipv6' })
    expect(decodeLink(LinkType.RAW, new Uint8Array([0x45]))).toMatchObject({ network: 'ipv4' })
    expect(decodeLink(LinkType.RAW, new Uint8Array([0x15]))).toMatchObject({ network: 'other' })
  })

  it('never reads past a short frame', () => {
    for (const lt of [0, 1, 101, 108, 113, 276, 228, 229, 147]) {
      expect(decodeLink(lt, new Uint8Array(0)).network === 'other' || lt === 228 || lt === 229).toBe(true)
    }
    expect(decodeLink(LinkType.ETHERNET, new Uint8Array([...Array(12).fill(0), 0x81, 0x00, 0]))).toMatchObject({ network: 'other' })
  })
})
