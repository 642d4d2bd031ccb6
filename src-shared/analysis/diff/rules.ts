// The volatile fields the diff skips: per-protocol defaults and the user's patterns, as one matcher per
// protocol. The digests of a side (side.ts) are made under these rules, so a report needs sides made under
// the same ones (`key`).

import { FieldPatterns } from './fields'

export interface DiffOptions {
  /** More volatile-field patterns (see FieldPatterns), for every protocol. */
  ignore?: readonly string[]
  /** Leave out the per-protocol defaults (DEFAULT_IGNORES). */
  noDefaults?: boolean
}

/**
 * Fields that differ between two runs of one scenario without meaning anything, per protocol: transport
 * sequence numbers, ACK and timing fields, checksums, peer and callback ids, tokens and session keys,
 * request ids, lengths that follow the content, the pairing links. Paths as in valueLeaves.
 */
export const DEFAULT_IGNORES: Readonly<Record<string, readonly string[]>> = {
  '*': ['/responseTo', '/responseTimeMs', '/decryptedWith'],
  photon: [
    '/peerId',
    '/channel',
    '/command',
    '/reliableSeq',
    '/unreliableSeq',
    '/fragment',
    '/sentTime',
    '/challenge',
    '/crc',
    '/acknowledges',
    '/ackedSeq',
    '/ackedSentTime',
    '/rttMs',
    '/serverTime',
    '/protocolFrom',
    '/parameters.221' // Token/Secret (docs/photon.md, parameter names)
  ],
  sfs2x: [
    '/length',
    '/lengthRule',
    '/header.bigSized',
    '/header.compressed',
    '/uncompressedLength',
    '/zlibHeaderHex',
    '/compressionRule',
    '/requestId',
    '_id', // the request id the Last War client injects (docs/sfs2x.md)
    '/body.p.tk', // the Handshake response's session token
    '/body.p.id' // the user id the Login response assigns
  ],
  fignet: ['/callbackId', '/enet', '/litenetlib']
}

export interface IgnoreRules {
  /** The patterns in effect per protocol ('*': every protocol), as the report lists them. */
  shown: Record<string, string[]>
  /** The same rules give the same key. */
  key: string
  matcher(protocol: string): (path: string) => boolean
  /** The same rules as patterns, for a walk that tests paths segment by segment (digest.ts). */
  patterns(protocol: string): FieldPatterns
  /** Whether these rules skip every field `other` skips (each of its patterns is among these, for its protocol or all). */
  covers(other: IgnoreRules): boolean
}

/** The patterns in effect per protocol, and a matcher for each protocol. */
export function ignoreRules(o: DiffOptions): IgnoreRules {
  const shown: Record<string, string[]> = {}
  if (!o.noDefaults) for (const [p, list] of Object.entries(DEFAULT_IGNORES)) shown[p] = [...list]
  if (o.ignore?.length) shown['*'] = [...(shown['*'] ?? []), ...o.ignore]
  const cache = new Map<string, (path: string) => boolean>()
  const compiled = new Map<string, FieldPatterns>()
  const patterns = (protocol: string): FieldPatterns => {
    let p = compiled.get(protocol)
    if (!p) {
      p = new FieldPatterns([...(shown['*'] ?? []), ...(shown[protocol] ?? [])])
      compiled.set(protocol, p)
    }
    return p
  }
  return {
    shown,
    key: JSON.stringify(shown),
    covers(other) {
      return Object.entries(other.shown).every(([p, list]) => list.every((x) => shown[p]?.includes(x) || shown['*']?.includes(x)))
    },
    patterns,
    matcher(protocol) {
      let m = cache.get(protocol)
      if (!m) {
        const p = patterns(protocol)
        // The same paths come back in every message of a conversation: each is tested once (bounded).
        const known = new Map<string, boolean>()
        m = (path) => {
          let skip = known.get(path)
          if (skip === undefined) {
            skip = p.test(path)
            if (known.size < 100_000) known.set(path, skip)
          }
          return skip
        }
        cache.set(protocol, m)
      }
      return m
    }
  }
}
