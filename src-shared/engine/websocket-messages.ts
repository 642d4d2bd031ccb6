// WebSocket events that are not protocol payloads (the HTTP upgrade, ping/pong/close, a message that
// could not be unpacked) become messages of their own so the timeline shows them.

import { toHex } from '../bytes/tree'
import type { WsControlEvent, WsErrorEvent, WsHandshakeEvent } from '../net/websocket'
import type { MessageOut, WireDir } from '../protocols/registry'
import { counted } from '../model/text'

const STACK = ['tcp', 'websocket']
const CONTROL_NAMES: Record<number, string> = { 8: 'WebSocket Close', 9: 'WebSocket Ping', 10: 'WebSocket Pong' }

export function websocketControlMessage(ev: WsControlEvent, dir: WireDir): MessageOut {
  const name = CONTROL_NAMES[ev.opcode] ?? `WebSocket control 0x${ev.opcode.toString(16)}`
  const value: Record<string, unknown> = { opcode: ev.opcode, hex: toHex(ev.payload) }
  let summary = counted(ev.payload.length, 'byte')
  if (ev.opcode === 8 && ev.closeCode !== undefined) {
    value.closeCode = ev.closeCode
    value.closeReason = ev.closeReason ?? ''
    summary = `code=${ev.closeCode}${ev.closeReason ? ` reason=${JSON.stringify(ev.closeReason)}` : ''}`
  }
  return { dir, frames: ev.frames, time: ev.time, protocol: 'websocket', stack: STACK, name, summary, value, draft: ev.draft }
}

export function websocketHandshakeMessage(ev: WsHandshakeEvent, dir: WireDir): MessageOut {
  if (ev.request) {
    const r = ev.request
    const summary = `${r.method} ${r.path}${r.protocols.length ? ` protocols=${r.protocols.join(',')}` : ''}${r.extensionsHeader ? ` extensions=${r.extensionsHeader}` : ''}`
    const value = { method: r.method, path: r.path, host: r.host ?? null, protocols: r.protocols, extensions: r.extensionsHeader ?? null }
    return { dir, frames: ev.frames, time: ev.time, protocol: 'websocket', stack: STACK, name: 'HTTP Upgrade request', summary, value, draft: ev.draft }
  }
  const r = ev.response!
  const summary = `${r.status} ${r.reason}${r.protocol ? ` protocol=${r.protocol}` : ''}${r.deflate ? ' permessage-deflate' : ''}`
  const value = { status: r.status, reason: r.reason, protocol: r.protocol ?? null, extensions: r.extensionsHeader ?? null, deflate: r.deflate }
  return { dir, frames: ev.frames, time: ev.time, protocol: 'websocket', stack: STACK, name: `HTTP ${r.status} response`, summary, value, draft: ev.draft }
}

export function websocketFailedMessage(ev: WsErrorEvent, dir: WireDir): MessageOut {
  const draft = ev.draft!
  draft.error ??= ev.message
  return { dir, frames: ev.frames, time: ev.time ?? 0, protocol: 'websocket', stack: STACK, name: 'WebSocket message', summary: ev.message, value: null, draft }
}
