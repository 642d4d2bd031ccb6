// Which LiteNetLib a conversation speaks. 0.9 and 1.x share a property table, 2.x inserts ReliableMerged at 2.
// A ConnectRequest settles it (protocol id 11 = 0.9, 13 = 1.x or 2.x, told apart by the property number the
// request itself uses). Without one, each datagram is scored under both tables: packets of fixed size or
// structure (Ping 3 bytes, Pong 11, Ack 4 or 13, ConnectAccept 11/15, MtuCheck, a Merged list that parses
// exactly) fit one table and not the other; the sum decides, and locks once clear.

import { FieldReader } from '../../bytes/reader'
import { TreeBuilder } from '../../bytes/tree'
import {
  kindOf,
  MAX_SEQUENCE,
  PONG_SIZE,
  PROTOCOL_ID_09,
  PROTOCOL_ID_1X,
  splitMerged,
  splitReliableMerged,
  TABLE_NAMES,
  type Table,
  type Version
} from './wire'

const le16 = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8)
const le32 = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)

/** Evidence at which the table is locked without a ConnectRequest (two packets that only one table explains). */
const LOCK_EVIDENCE = 4

/** The protocol id of a well-formed ConnectRequest body at [start, end) (either layout), else undefined. */
export function connectRequestProtocol(b: Uint8Array, start: number, end: number): number | undefined {
  const size = end - start
  if (size < 14) return undefined
  const id = le32(b, start + 1)
  const header = id === PROTOCOL_ID_09 ? 14 : id === PROTOCOL_ID_1X ? 18 : 0
  if (!header || size < header) return undefined
  const addr = b[start + header - 1]
  return (addr === 16 || addr === 28) && header + addr <= size ? id : undefined
}

/** A datagram that is a ConnectRequest of a known protocol id, and the version it proves. */
export function connectRequestVersion(b: Uint8Array): { version: Version; protocolId: number; property: number } | undefined {
  if (b.length === 0) return undefined
  const property = b[0] & 0x1f
  const id = connectRequestProtocol(b, 0, b.length)
  if (id === undefined) return undefined
  if (property === 5) return { version: id === PROTOCOL_ID_09 ? '0.9' : '1.x', protocolId: id, property }
  if (property === 6 && id === PROTOCOL_ID_1X) return { version: '2.x', protocolId: id, property }
  return undefined
}

/**
 * How well the packet at [start, end) fits `table`: 2 = its fixed size or structure matches exactly,
 * 1 = possible (payload packets fit anything), 0 = impossible or never sent that way.
 */
export function plausibility(b: Uint8Array, start: number, end: number, table: Table, inMerged = false): number {
  const size = end - start
  if (size <= 0) return 0
  const kind = kindOf(table, b[start] & 0x1f)
  switch (kind) {
    case undefined:
      return 0
    case 'Unreliable':
    case 'UnconnectedMessage':
    case 'Broadcast':
    case 'NatMessage':
      return 1
    case 'Channeled':
      if (size < 4) return 0
      if (b[start] & 0x80) return size >= 10 && le16(b, start + 8) > le16(b, start + 6) ? 1 : 0
      return 1
    case 'ReliableMerged': {
      if (size < 6) return 0
      const s = splitReliableMerged(new FieldReader(b, new TreeBuilder(false), 0, start, end))
      return !s.error && s.items.length > 0 && s.trailing === 0 ? 1 : 0
    }
    case 'Ack':
      if (size === 4) return 2
      if (size === 13) return le16(b, start + 1) < MAX_SEQUENCE ? 2 : 0
      return size > 5 ? 1 : 0
    case 'Ping':
      return size === 3 ? 2 : 0
    case 'Pong':
      return size === PONG_SIZE ? 2 : 0
    case 'ConnectRequest':
      return connectRequestProtocol(b, start, end) !== undefined ? 2 : size >= 14 ? 1 : 0
    case 'ConnectAccept':
      return (size === 11 || size === 15) && b[start + 9] < 4 && b[start + 10] <= 1 ? 2 : 0
    case 'PeerNotFound':
      return size === 1 || (size === 15 && b[start + 10] === 1) ? 2 : 0
    case 'Disconnect':
      return size >= 9 ? 1 : 0
    case 'MtuCheck':
    case 'MtuOk':
      return size >= 9 && le32(b, start + 1) === size && le32(b, end - 4) === size ? 2 : 0
    case 'Merged': {
      if (inMerged) return 0
      const s = splitMerged(new FieldReader(b, new TreeBuilder(false), 0, start, end))
      if (s.error || s.items.length === 0) return 0
      return s.items.every((it) => plausibility(b, it.start, it.end, table, true) > 0) ? 2 : 0
    }
    case 'ShutdownOk':
    case 'InvalidProtocol':
    case 'Empty':
      return size === 1 ? 2 : 0
  }
}

/** A datagram's fit under `table`; a Merged datagram adds up its items so each one counts. */
export function datagramFit(b: Uint8Array, table: Table): number {
  const whole = plausibility(b, 0, b.length, table)
  if (whole === 0 || b.length === 0 || kindOf(table, b[0] & 0x1f) !== 'Merged') return whole
  const s = splitMerged(new FieldReader(b, new TreeBuilder(false), 0))
  return whole + s.items.reduce((n, it) => n + plausibility(b, it.start, it.end, table, true), 0)
}

export interface VersionChoice {
  version: Version
  table: Table
  reason: string
  /** From a ConnectRequest (true) or from packet sizes / an assumption (false). */
  certain: boolean
}

export class VersionChooser {
  private fromConnect: VersionChoice | null = null
  private evidence = 0
  private locked: Table | null = null
  private readonly hints: Partial<Record<Table, string>> = {}
  private variant: { version: '0.9' | '1.x'; reason: string } | null = null

  /** Takes one datagram into account (before it is decoded, so it counts for itself). */
  observe(b: Uint8Array, frame: number): void {
    if (this.fromConnect || b.length === 0) return
    const cr = connectRequestVersion(b)
    if (cr) {
      this.fromConnect = {
        version: cr.version,
        table: cr.version === '2.x' ? 'v2' : 'v1',
        reason: `ConnectRequest in frame ${frame}: protocol id ${cr.protocolId} as property ${cr.property}`,
        certain: true
      }
      return
    }
    if (!this.variant && (b[0] & 0x1f) === 6 && plausibility(b, 0, b.length, 'v1') === 2) {
      // A ConnectAccept of the 0.9/1.x table: 0.9's has no peer id (11 bytes), 1.x's has (15).
      this.variant =
        b.length === 11
          ? { version: '0.9', reason: `an 11-byte ConnectAccept (no peer id) in frame ${frame}` }
          : { version: '1.x', reason: `a 15-byte ConnectAccept (with peer id) in frame ${frame}` }
    }
    if (this.locked) return
    const v1 = datagramFit(b, 'v1')
    const v2 = datagramFit(b, 'v2')
    if (v1 === v2) return
    const favours: Table = v1 > v2 ? 'v1' : 'v2'
    if (!this.hints[favours]) {
      const p = b[0] & 0x1f
      const k1 = kindOf('v1', p) ?? 'nothing'
      const k2 = kindOf('v2', p) ?? 'nothing'
      const [fits, fails] =
        favours === 'v1'
          ? [`${k1} in the ${TABLE_NAMES.v1}`, `${k2} in the ${TABLE_NAMES.v2}`]
          : [`${k2} in the ${TABLE_NAMES.v2}`, `${k1} in the ${TABLE_NAMES.v1}`]
      this.hints[favours] = `frame ${frame}: a ${b.length}-byte datagram with property ${p} fits as ${fits}, not as ${fails}`
    }
    this.evidence += v1 - v2
    if (Math.abs(this.evidence) >= LOCK_EVIDENCE) this.locked = this.evidence > 0 ? 'v1' : 'v2'
  }

  get current(): VersionChoice {
    if (this.fromConnect) return this.fromConnect
    const table: Table = this.locked ?? (this.evidence < 0 ? 'v2' : 'v1')
    const basis = this.hints[table]
      ? `no ConnectRequest seen; packet sizes ${this.locked ? 'fit only' : 'so far favour'} the ${TABLE_NAMES[table]} (${this.hints[table]})`
      : 'no ConnectRequest and no packet only one table explains yet'
    if (table === 'v2') return { version: '2.x', table, reason: basis, certain: false }
    if (this.variant) return { version: this.variant.version, table, reason: `${basis}; ${this.variant.version} from ${this.variant.reason}`, certain: false }
    return { version: '1.x', table, reason: `${basis}; 1.x assumed (0.9 shares its table)`, certain: false }
  }
}
