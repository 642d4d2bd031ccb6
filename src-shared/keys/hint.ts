// What an encrypted message says when no key line covers its conversation: one warning naming the line
// types that would open it and the conversation as a key file writes it (`CLIENT-SERVER`, see keyfile.ts),
// so the user can copy it into a key file or the key panel. Every protocol words it through here.

import type { KeyDirection, KeyType } from './keyfile'

/**
 * The conversation field of a key line, `client-server`. `a`/`b` are the conversation's sides as
 * `ip:port` (IPv6 in brackets, as keys are matched); `clientDir` is the direction the client sends in,
 * when known (`a` is written first otherwise: the side that sent first, usually the client).
 */
export function keyConversation(a: string, b: string, clientDir?: 'a2b' | 'b2a'): string {
  return clientDir === 'b2a' ? `${b}-${a}` : `${a}-${b}`
}

const list = (xs: readonly string[]) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`)

/**
 * `encrypted, no key: add a PHOTON_SECRET, PHOTON_AES_KEY or PHOTON_DH_PRIVATE line for 10.0.0.1:50123-10.0.0.2:5055`.
 * `direction`: a FIGNET_KEY is per direction; the one this message was sent in (or `both`) opens it.
 */
export function missingKeyWarning(types: readonly KeyType[], conversation: string, direction?: Exclude<KeyDirection, 'both'>): string {
  const article = /^SFS/.test(types[0] ?? '') ? 'an' : 'a' // "an SFS2X_AES line"
  const dir = types.includes('FIGNET_KEY') ? ` with direction ${direction ? `${direction} or both` : 'both'}` : ''
  return `encrypted, no key: add ${article} ${list(types)} line for ${conversation}${dir}`
}
