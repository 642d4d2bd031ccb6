// The fallback for payloads no protocol claims: keep the bytes as a message so nothing is hidden.

import { defineFields } from '../../bytes/fields'
import type { ByteStream } from '../../net/byte-stream'
import type { Emit, Pdu, ProtocolDecoder, WireDir } from '../registry'
import { FULL_TREES, MessageDraft, type TreeSwitch } from '../../bytes/tree'
import { counted } from '../../model/text'

const F = defineFields('data', {
  data: ['Data', 'bytes']
})

const CARRIER_NAMES: Record<string, string> = { udp: 'UDP payload', tcp: 'TCP payload', websocket: 'WebSocket message' }

function payloadName(stack: string[]): string {
  return CARRIER_NAMES[stack[stack.length - 1]] ?? 'Data'
}

function addDataField(pdu: Pdu): void {
  const { bytes } = pdu
  pdu.draft.tree.add({
    key: F.data.key,
    label: `Data (${counted(bytes.length, 'byte')})`,
    type: 'bytes',
    value: bytes,
    source: pdu.source,
    start: pdu.offset,
    length: bytes.length
  })
}

export class UnknownDecoder implements ProtocolDecoder {
  /** `trees` is read per message: a replay may turn trees on part way. */
  constructor(private readonly trees: TreeSwitch = FULL_TREES) {}

  datagram(pdu: Pdu, emit: Emit): void {
    addDataField(pdu)
    emit({
      dir: pdu.dir,
      frames: pdu.frames,
      time: pdu.time,
      protocol: 'unknown',
      stack: pdu.stack,
      name: payloadName(pdu.stack),
      summary: counted(pdu.bytes.length, 'byte'),
      // Bytes stay bytes until exported (as hex): the row pass never pays for the conversion.
      value: { hex: pdu.bytes },
      draft: pdu.draft
    })
  }

  /** For a byte stream there are no message boundaries to find: each delivery of new bytes is one message. */
  stream(dir: WireDir, stream: ByteStream, stack: string[], emit: Emit, _final: boolean, error: string | null = null): void {
    if (stream.available === 0) return
    const taken = stream.takeAll()
    const draft = new MessageDraft(this.trees)
    draft.error = error
    const source = draft.addSource(payloadName(stack), taken.bytes)
    this.datagram({ dir, frames: taken.frames, time: taken.time, draft, source, offset: 0, bytes: taken.bytes, stack }, emit)
  }

  gap(dir: WireDir, stream: ByteStream, _missing: number, stack: string[], emit: Emit): void {
    this.stream(dir, stream, stack, emit, false)
  }
}
