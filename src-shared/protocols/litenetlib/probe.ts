// How sure a first datagram is LiteNetLib (0..100). A ConnectRequest with a known protocol id and a valid
// .NET address size is near certain; packets of exact shape (MtuCheck, a Merged list, ConnectAccept, a
// 13-byte Ack) are good hints; a payload packet fits almost any bytes, so it says little.

import { connectRequestVersion, plausibility } from './version'
import { kindOf, MAX_SEQUENCE, type Table } from './wire'

function confidence(b: Uint8Array, table: Table): number {
  const fit = plausibility(b, 0, b.length, table)
  if (fit === 0) return 0
  const kind = kindOf(table, b[0] & 0x1f)
  switch (kind) {
    case 'MtuCheck':
    case 'MtuOk':
      return 70
    case 'Merged':
      return b.length > 3 + (b[1] | (b[2] << 8)) + 2 ? 60 : 40
    case 'ConnectAccept':
      return 50
    case 'Ack':
      return b.length === 13 ? 45 : fit === 2 ? 15 : 5
    case 'ReliableMerged':
      return 25
    case 'Pong':
      return 25
    case 'Channeled':
      return (b[1] | (b[2] << 8)) < MAX_SEQUENCE ? 20 : 5
    case 'Ping':
      return 15
    case 'Disconnect':
    case 'ShutdownOk':
    case 'PeerNotFound':
    case 'InvalidProtocol':
    case 'Empty':
    case 'ConnectRequest':
      return 10
    default:
      return 5
  }
}

export function probeLiteNetLib(bytes: Uint8Array): number {
  try {
    if (!bytes || bytes.length === 0) return 0
    if (connectRequestVersion(bytes)) return 98
    return Math.max(confidence(bytes, 'v1'), confidence(bytes, 'v2'))
  } catch {
    return 0
  }
}
