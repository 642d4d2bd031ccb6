// FigNet secure-session payloads (docs/fignet.md, guide §3: ECDH P-256 + HKDF-SHA256 + ChaCha20-Poly1305). The
// handshake and the exact framing are not public, so with a FIGNET_KEY we try a fixed list of plausible
// layouts, in this order, and accept only one whose Poly1305 tag verifies — a wrong guess cannot produce
// a plaintext. The order is documented in docs/fignet.md.

import { chacha20poly1305 } from '@noble/ciphers/chacha.js'

export interface CryptoLayout {
  name: string
  /** Bytes of nonce material at the start of the payload. */
  prefix: number
  /** The 12-byte nonce from that prefix. */
  nonce(prefix: Uint8Array): Uint8Array
  /** Whether the envelope header (msg id + flags) is the associated data. */
  headerAsAad: boolean
}

const TAG = 16

const nonce12 = (p: Uint8Array) => p
/** A 64-bit little-endian counter in the last 8 nonce bytes (the IETF ChaCha20-Poly1305 convention). */
const counterNonce = (p: Uint8Array) => {
  const n = new Uint8Array(12)
  n.set(p, 4)
  return n
}

export const LAYOUTS: readonly CryptoLayout[] = [
  { name: '12-byte nonce + ciphertext + tag, header as associated data', prefix: 12, nonce: nonce12, headerAsAad: true },
  { name: '12-byte nonce + ciphertext + tag, no associated data', prefix: 12, nonce: nonce12, headerAsAad: false },
  { name: '8-byte LE counter nonce + ciphertext + tag, header as associated data', prefix: 8, nonce: counterNonce, headerAsAad: true },
  { name: '8-byte LE counter nonce + ciphertext + tag, no associated data', prefix: 8, nonce: counterNonce, headerAsAad: false }
]

export interface Decrypted {
  layout: CryptoLayout
  plaintext: Uint8Array
  /** Which key line opened it. */
  from: string
}

/** Tries every key with every layout; the first whose tag verifies wins. */
export function decryptPayload(keys: { key: Uint8Array; from: string }[], header: Uint8Array, payload: Uint8Array): Decrypted | null {
  for (const k of keys) {
    if (k.key.length !== 32) continue
    for (const layout of LAYOUTS) {
      if (payload.length < layout.prefix + TAG) continue
      const nonce = layout.nonce(payload.subarray(0, layout.prefix))
      try {
        const plaintext = chacha20poly1305(k.key, nonce, layout.headerAsAad ? header : undefined).decrypt(payload.subarray(layout.prefix))
        return { layout, plaintext, from: k.from }
      } catch {
        // tag mismatch: not this key or layout
      }
    }
  }
  return null
}
