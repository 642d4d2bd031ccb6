// Photon payload encryption (docs/photon.md): Diffie-Hellman over the 768-bit Oakley group 1
// prime with generator 22, AES key = SHA-256 of the shared secret, AES-256-CBC with a zero IV and PKCS#7.
// Runs in browsers too: native bigint and @noble only, no Node modules.
//
// Numbers on the wire (public keys) and the secret that is hashed are big-endian unsigned and
// minimal-length: the official client's BigInteger.GetBytes() form, so a secret whose top byte is zero is
// hashed as 95 (or fewer) bytes, not 96.

import { cbc } from '@noble/ciphers/aes.js'
import { sha256 } from '@noble/hashes/sha2.js'

/** RFC 2409 Oakley group 1 (768-bit MODP) prime, as in the official client's OakleyGroups table. */
export const OAKLEY_GROUP1_PRIME = BigInt(
  '0xFFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD' +
    'EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A63A3620FFFFFFFFFFFFFFFF'
)

/** Photon's DH generator: 22, not the RFC's 2. */
export const PHOTON_DH_GENERATOR = 22n

/** Byte length of the prime (and so the longest valid public key). */
export const OAKLEY_GROUP1_BYTES = 96

const P = OAKLEY_GROUP1_PRIME
const P_MINUS_1 = P - 1n

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

/** Big-endian unsigned bytes → bigint. Empty → 0n. Leading zero bytes are allowed. */
export function bigFromBytes(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n
  let s = '0x'
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]]
  return BigInt(s)
}

/**
 * bigint → big-endian unsigned bytes. Without `length`: minimal length (no leading zero byte; 0n gives an
 * empty array), the form Photon puts on the wire. With `length`: left-padded with zeros to exactly that
 * many bytes (throws when the value does not fit).
 */
export function bytesFromBig(n: bigint, length?: number): Uint8Array {
  if (n < 0n) throw new RangeError('bytesFromBig: negative value')
  let hex = n === 0n ? '' : n.toString(16)
  if (hex.length % 2) hex = '0' + hex
  const min = hex.length / 2
  const len = length ?? min
  if (len < min) throw new RangeError(`bytesFromBig: value needs ${min} bytes, does not fit in ${len}`)
  const out = new Uint8Array(len)
  const off = len - min
  for (let i = 0; i < min; i++) out[off + i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return out
}

/** base^exp mod m by left-to-right square-and-multiply. exp ≥ 0, m ≥ 1. */
export function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  if (mod < 1n) throw new RangeError('modPow: modulus must be positive')
  if (exp < 0n) throw new RangeError('modPow: negative exponent')
  if (mod === 1n) return 0n
  let b = base % mod
  if (b < 0n) b += mod
  let result = 1n
  const bits = exp.toString(2)
  for (let i = 0; i < bits.length; i++) {
    result = (result * result) % mod
    if (bits.charCodeAt(i) === 49 /* '1' */) result = (result * b) % mod
  }
  return result
}

/**
 * The exponent as used: reduced mod p-1. g^(x mod (p-1)) = g^x for any base coprime to p (Fermat), so an
 * over-long key-file exponent costs no more than a 768-bit one.
 */
function exponentOf(privateExp: Uint8Array): bigint {
  const x = bigFromBytes(privateExp) % P_MINUS_1
  if (x === 0n) throw new Error('Photon DH private exponent is zero (mod p-1); not a usable key')
  return x
}

/** Throws unless 1 < y < p-1 (rejects 0, 1, p-1 and anything ≥ p: small-subgroup / garbage values). */
function checkPublic(y: bigint, what: string): void {
  if (y <= 1n || y >= P_MINUS_1) {
    throw new Error(`Photon DH ${what} public key is out of range (must be 1 < y < p-1 for the 768-bit Oakley prime)`)
  }
}

/** g^x mod p as minimal big-endian bytes (what the peer with exponent x sends in InitEncryption). */
export function publicKeyFor(privateExp: Uint8Array): Uint8Array {
  return bytesFromBig(modPow(PHOTON_DH_GENERATOR, exponentOf(privateExp), P))
}

/**
 * The DH shared secret otherPublic^x mod p, minimal big-endian bytes. Throws an Error with a readable message
 * when the other public key is empty or out of range, or the exponent is zero.
 */
export function sharedSecret(privateExp: Uint8Array, otherPublic: Uint8Array): Uint8Array {
  if (otherPublic.length === 0) throw new Error('Photon DH other public key is empty')
  const y = bigFromBytes(otherPublic)
  checkPublic(y, 'other')
  return bytesFromBig(modPow(y, exponentOf(privateExp), P))
}

/**
 * AES-256 key = SHA-256 of the secret's minimal big-endian bytes. Leading zero bytes are stripped first, so a
 * secret written padded to 96 bytes (as some tools, e.g. OpenSSL-based ones, print it) gives the same key
 * as Photon's minimal form.
 */
export function aesKeyFromSecret(secret: Uint8Array): Uint8Array {
  let i = 0
  while (i < secret.length && secret[i] === 0) i++
  return sha256(secret.subarray(i))
}

export type DecryptResult = { ok: true; plain: Uint8Array; padding: number } | { ok: false; reason: string }

const ZERO_IV = new Uint8Array(16)

/** AES-256-CBC, IV = 16 zero bytes, PKCS#7 checked byte by byte. Never throws. */
export function decryptPayload(key: Uint8Array, ciphertext: Uint8Array): DecryptResult {
  if (key.length !== 32) return { ok: false, reason: `AES key must be 32 bytes, got ${key.length}` }
  if (ciphertext.length === 0 || ciphertext.length % 16 !== 0) {
    return { ok: false, reason: `ciphertext length ${ciphertext.length} is not a positive multiple of 16` }
  }
  let plain: Uint8Array
  try {
    plain = cbc(key, ZERO_IV, { disablePadding: true }).decrypt(ciphertext)
  } catch (e) {
    return { ok: false, reason: `AES-CBC failed: ${(e as Error).message}` }
  }
  const pad = plain[plain.length - 1]
  if (pad < 1 || pad > 16) return { ok: false, reason: `bad PKCS#7 padding byte ${pad} (wrong key?)` }
  for (let i = plain.length - pad; i < plain.length - 1; i++) {
    if (plain[i] !== pad) return { ok: false, reason: `bad PKCS#7 padding: expected ${pad} bytes of ${pad} (wrong key?)` }
  }
  return { ok: true, plain: plain.subarray(0, plain.length - pad), padding: pad }
}

/**
 * Which side's public key `privateExp` produces, so a PHOTON_DH_PRIVATE line works whichever peer's exponent
 * the user has. The shared secret is then `sharedSecret(privateExp, <the OTHER side's public key>)`.
 * Keys are compared by value (leading zero bytes do not matter). Returns null on no match or a
 * zero exponent; never throws.
 */
export function matchPrivateExponent(privateExp: Uint8Array, clientPublic: Uint8Array, serverPublic: Uint8Array): 'client' | 'server' | null {
  let mine: bigint
  try {
    mine = modPow(PHOTON_DH_GENERATOR, exponentOf(privateExp), P)
  } catch {
    return null
  }
  if (clientPublic.length && bigFromBytes(clientPublic) === mine) return 'client'
  if (serverPublic.length && bigFromBytes(serverPublic) === mine) return 'server'
  return null
}

/** A byte string that can be a Photon DH public key: 1..96 bytes, value in 1 < y < p-1. */
export function isPlausibleDhPublicKey(bytes: Uint8Array): boolean {
  if (bytes.length < 1 || bytes.length > OAKLEY_GROUP1_BYTES) return false
  const y = bigFromBytes(bytes)
  return y > 1n && y < P_MINUS_1
}
