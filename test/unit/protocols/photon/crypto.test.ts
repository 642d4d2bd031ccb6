// Photon payload encryption against node:crypto as the independent implementation: DH over the Oakley
// 768-bit group with generator 22, SHA-256 of the MINIMAL secret bytes, AES-256-CBC with a zero IV.
import { describe, it, expect } from 'vitest'
import nodeCrypto from 'node:crypto'
import {
  OAKLEY_GROUP1_PRIME,
  PHOTON_DH_GENERATOR,
  aesKeyFromSecret,
  bigFromBytes,
  bytesFromBig,
  decryptPayload,
  isPlausibleDhPublicKey,
  matchPrivateExponent,
  modPow,
  publicKeyFor,
  sharedSecret
} from '../../../../src-shared/protocols/photon/crypto'

const P = OAKLEY_GROUP1_PRIME
const PRIME_BUF = Buffer.from(P.toString(16), 'hex')

const u8 = (b: Buffer | Uint8Array): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength).slice()
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex')
const sha256 = (b: Uint8Array): Uint8Array => u8(nodeCrypto.createHash('sha256').update(b).digest())
const stripZeros = (b: Uint8Array): Uint8Array => {
  let i = 0
  while (i < b.length && b[i] === 0) i++
  return b.subarray(i)
}

/** Deterministic bytes: SHA-256 chain of a label (a seeded RNG that needs no state). */
function seeded(label: string, n: number): Uint8Array {
  const out = new Uint8Array(n)
  for (let off = 0, i = 0; off < n; i++) {
    const h = sha256(new TextEncoder().encode(`${label}/${i}`))
    out.set(h.subarray(0, Math.min(32, n - off)), off)
    off += 32
  }
  return out
}

/** A node DH peer with a given private exponent (node computes the public key from it). */
function nodePeer(priv: Uint8Array) {
  const dh = nodeCrypto.createDiffieHellman(PRIME_BUF, Buffer.from([22]))
  dh.setPrivateKey(Buffer.from(priv))
  dh.generateKeys()
  return dh
}

function nodeEncrypt(key: Uint8Array, plain: Uint8Array, autoPadding = true): Uint8Array {
  const c = nodeCrypto.createCipheriv('aes-256-cbc', key, Buffer.alloc(16))
  c.setAutoPadding(autoPadding)
  return u8(Buffer.concat([c.update(plain), c.final()]))
}

describe('group constants', () => {
  it('the prime is RFC 2409 group 1 (node modp1) and g = 22', () => {
    expect(P.toString(16)).toBe(nodeCrypto.getDiffieHellman('modp1').getPrime('hex'))
    expect(PRIME_BUF.length).toBe(96)
    expect(PHOTON_DH_GENERATOR).toBe(22n)
  })
})

describe('bigint helpers', () => {
  it('bigFromBytes / bytesFromBig: big-endian, minimal, leading zeros ignored', () => {
    expect(bigFromBytes(new Uint8Array([]))).toBe(0n)
    expect(bigFromBytes(new Uint8Array([0, 0, 1, 2]))).toBe(0x0102n)
    expect(hex(bytesFromBig(0x0102n))).toBe('0102')
    expect(hex(bytesFromBig(0xabcn))).toBe('0abc')
    expect(bytesFromBig(0n).length).toBe(0)
    expect(hex(bytesFromBig(0x0102n, 4))).toBe('00000102')
    expect(() => bytesFromBig(0x010203n, 2)).toThrow()
    expect(() => bytesFromBig(-1n)).toThrow()
    const b = seeded('round', 96)
    expect(hex(bytesFromBig(bigFromBytes(b), 96))).toBe(hex(b))
    expect(bytesFromBig(P).length).toBe(96)
  })

  it('modPow agrees with naive powers and with edge cases', () => {
    for (const [b, e, m] of [
      [2n, 10n, 1000n],
      [3n, 0n, 7n],
      [0n, 0n, 7n],
      [5n, 1n, 1n],
      [-3n, 3n, 11n],
      [123456789n, 65537n, 1000000007n]
    ] as const) {
      let naive = 1n
      for (let i = 0n; i < e; i++) naive = (naive * b) % m
      naive = ((naive % m) + m) % m
      if (m === 1n) naive = 0n
      expect(modPow(b, e, m)).toBe(naive)
    }
    expect(() => modPow(2n, -1n, 7n)).toThrow()
    expect(() => modPow(2n, 1n, 0n)).toThrow()
  })
})

describe('Diffie-Hellman against node:crypto', () => {
  it('public keys and shared secrets match node for random peers (minimal bytes, same value)', () => {
    for (let i = 0; i < 4; i++) {
      const a = nodeCrypto.createDiffieHellman(PRIME_BUF, Buffer.from([22]))
      const b = nodeCrypto.createDiffieHellman(PRIME_BUF, Buffer.from([22]))
      a.generateKeys()
      b.generateKeys()
      const aPriv = u8(a.getPrivateKey())
      const bPriv = u8(b.getPrivateKey())
      const aPub = publicKeyFor(aPriv)
      expect(bigFromBytes(aPub)).toBe(bigFromBytes(u8(a.getPublicKey())))
      expect(aPub[0]).not.toBe(0)
      const s1 = sharedSecret(aPriv, u8(b.getPublicKey()))
      const s2 = sharedSecret(bPriv, aPub)
      const nodeSecret = u8(a.computeSecret(b.getPublicKey()))
      expect(hex(s1)).toBe(hex(stripZeros(nodeSecret)))
      expect(hex(s2)).toBe(hex(s1))
      expect(hex(aesKeyFromSecret(s1))).toBe(hex(sha256(stripZeros(nodeSecret))))
    }
  })

  it('Photon-sized 160-bit exponents work too', () => {
    const aPriv = seeded('small-a', 20)
    const bPriv = seeded('small-b', 20)
    const a = nodePeer(aPriv)
    const b = nodePeer(bPriv)
    expect(bigFromBytes(publicKeyFor(aPriv))).toBe(bigFromBytes(u8(a.getPublicKey())))
    expect(hex(sharedSecret(aPriv, publicKeyFor(bPriv)))).toBe(hex(stripZeros(u8(a.computeSecret(b.getPublicKey())))))
  })

  it('a secret with a zero top byte is hashed in its minimal form (95 bytes), as Photon does', () => {
    // seeded search (deterministic): one fixed peer B, node computes B's secret with candidate exponents a
    const b = nodePeer(seeded('lz-b', 20))
    const bPub = u8(b.getPublicKey())
    const a = nodeCrypto.createDiffieHellman(PRIME_BUF, Buffer.from([22]))
    let found: { aPriv: Uint8Array; nodeSecret: Uint8Array } | null = null
    for (let i = 0; i < 5000 && !found; i++) {
      const aPriv = seeded(`lz-a-${i}`, 20)
      a.setPrivateKey(Buffer.from(aPriv))
      const s = u8(a.computeSecret(Buffer.from(bPub)))
      // node pads the secret to the prime's length; a short or zero-led one has a zero top byte
      if (s.length < 96 || s[0] === 0) found = { aPriv, nodeSecret: s }
    }
    expect(found).not.toBeNull()
    const { aPriv, nodeSecret } = found!
    const padded = bytesFromBig(bigFromBytes(nodeSecret), 96)
    expect(padded[0]).toBe(0)
    const ours = sharedSecret(aPriv, bPub)
    expect(ours.length).toBeLessThan(96)
    expect(ours[0]).not.toBe(0)
    expect(hex(ours)).toBe(hex(stripZeros(padded)))
    const key = aesKeyFromSecret(ours)
    expect(hex(key)).toBe(hex(sha256(stripZeros(padded))))
    expect(hex(key)).not.toBe(hex(sha256(padded))) // hashing the padded form would be wrong
    expect(hex(aesKeyFromSecret(padded))).toBe(hex(key)) // a padded PHOTON_SECRET still works
  })

  it('an exponent longer than the group is reduced mod p-1 (same public key)', () => {
    const x = seeded('long', 20)
    const longer = bytesFromBig(bigFromBytes(x) + 3n * (P - 1n))
    expect(longer.length).toBeGreaterThan(96)
    expect(hex(publicKeyFor(longer))).toBe(hex(publicKeyFor(x)))
    expect(() => publicKeyFor(new Uint8Array([0, 0]))).toThrow(/zero/)
    expect(() => publicKeyFor(bytesFromBig(P - 1n))).toThrow(/zero/)
  })

  it('rejects hostile or garbage public keys with a clear error', () => {
    const priv = seeded('hostile', 20)
    const bad: Array<[string, Uint8Array]> = [
      ['empty', new Uint8Array(0)],
      ['0', new Uint8Array([0])],
      ['1', new Uint8Array([1])],
      ['1 padded', new Uint8Array([0, 0, 1])],
      ['p-1', bytesFromBig(P - 1n)],
      ['p', bytesFromBig(P)],
      ['p+1', bytesFromBig(P + 1n)],
      ['97 bytes of ff', new Uint8Array(97).fill(0xff)]
    ]
    for (const [what, key] of bad) {
      expect(() => sharedSecret(priv, key), what).toThrow(/Photon DH/)
      expect(isPlausibleDhPublicKey(key), what).toBe(false)
    }
    for (const ok of [new Uint8Array([2]), bytesFromBig(P - 2n), publicKeyFor(priv)]) {
      expect(() => sharedSecret(priv, ok)).not.toThrow()
      expect(isPlausibleDhPublicKey(ok)).toBe(true)
    }
    // value in range but longer than 96 bytes: not plausible on the wire, still usable for the math
    const padded = new Uint8Array(97)
    padded.set(publicKeyFor(priv), 97 - publicKeyFor(priv).length)
    expect(isPlausibleDhPublicKey(padded)).toBe(false)
  })

  it('matchPrivateExponent tells which side the exponent belongs to', () => {
    const cPriv = seeded('match-c', 20)
    const sPriv = seeded('match-s', 20)
    const cPub = publicKeyFor(cPriv)
    const sPub = u8(nodePeer(sPriv).getPublicKey())
    expect(matchPrivateExponent(cPriv, cPub, sPub)).toBe('client')
    expect(matchPrivateExponent(sPriv, cPub, sPub)).toBe('server')
    expect(matchPrivateExponent(seeded('other', 20), cPub, sPub)).toBeNull()
    expect(matchPrivateExponent(new Uint8Array([0]), cPub, sPub)).toBeNull()
    expect(matchPrivateExponent(new Uint8Array(0), cPub, sPub)).toBeNull()
    expect(matchPrivateExponent(cPriv, new Uint8Array(0), new Uint8Array(0))).toBeNull()
    // keys compared by value: a zero-padded public key still matches
    expect(matchPrivateExponent(cPriv, bytesFromBig(bigFromBytes(cPub), 100), sPub)).toBe('client')
    // both sides derive the same secret: the exponent's side uses the OTHER side's key
    expect(hex(sharedSecret(cPriv, sPub))).toBe(hex(sharedSecret(sPriv, cPub)))
  })
})

describe('decryptPayload (AES-256-CBC, zero IV, PKCS#7)', () => {
  const key = sha256(new TextEncoder().encode('photon test key'))

  it('inverts node createCipheriv for several lengths', () => {
    for (const n of [0, 1, 15, 16, 17, 1000]) {
      const plain = seeded(`plain-${n}`, n)
      const ct = nodeEncrypt(key, plain)
      const res = decryptPayload(key, ct)
      expect(res.ok, `length ${n}`).toBe(true)
      if (!res.ok) continue
      expect(hex(res.plain)).toBe(hex(plain))
      expect(res.padding).toBe(16 - (n % 16))
    }
  })

  it('reports bad padding, wrong keys and bad lengths without throwing', () => {
    const bad = (last: number[]): Uint8Array => {
      const block = new Uint8Array(32).fill(0x41)
      block.set(last, 32 - last.length)
      return nodeEncrypt(key, block, false)
    }
    for (const tail of [[0], [17], [0xff], [2, 3], [4, 4, 3, 4], [15].concat(Array(15).fill(16))]) {
      const r = decryptPayload(key, bad(tail))
      expect(r.ok, `tail ${tail}`).toBe(false)
      if (!r.ok) expect(r.reason).toMatch(/padding/)
    }
    // a full block of padding is valid
    const full = decryptPayload(key, bad(Array(16).fill(16)))
    expect(full.ok && full.padding === 16 && full.plain.length === 16).toBe(true)

    const ct = nodeEncrypt(key, new TextEncoder().encode('hello photon, this is two blocks long'))
    const wrong = sha256(new TextEncoder().encode('some other key'))
    expect(decryptPayload(wrong, ct).ok).toBe(false)

    for (const len of [0, 1, 15, 17, 31]) {
      const r = decryptPayload(key, new Uint8Array(len))
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.reason).toMatch(/multiple of 16/)
    }
    for (const k of [new Uint8Array(16), new Uint8Array(0), new Uint8Array(33)]) {
      const r = decryptPayload(k, ct)
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.reason).toMatch(/32 bytes/)
    }
  })

  it('end to end: DH secret → AES key → decrypt what the other side encrypted', () => {
    const cPriv = seeded('e2e-c', 20)
    const s = nodePeer(seeded('e2e-s', 20))
    const serverKey = sha256(stripZeros(u8(s.computeSecret(Buffer.from(publicKeyFor(cPriv))))))
    const body = new Uint8Array([0xe6, 0x00, 0x01, 0xdd, 0x73, 0x00, 0x03, 0x61, 0x62, 0x63])
    const ct = nodeEncrypt(serverKey, body)
    const key = aesKeyFromSecret(sharedSecret(cPriv, u8(s.getPublicKey())))
    const res = decryptPayload(key, ct)
    expect(res.ok && hex(res.plain)).toBe(hex(body))
  })
})
