// Runs frames through an engine with schema packs loaded, as the session does (fields registered first).
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { Engine } from '../../../src-shared/engine/engine'
import { messageMetaFields } from '../../../src-shared/engine/meta-fields'
import { compileFilter, targetFromMessage } from '../../../src-shared/filter'
import type { DecodedMessage } from '../../../src-shared/model/types'
import { createDefaultRegistry } from '../../../src-shared/protocols'
import { registerSchemaFields, SchemaSet } from '../../../src-shared/schema/set'
import type { SchemaPack } from '../../../src-shared/schema/types'
import { validateSchemaPack } from '../../../src-shared/schema/validate'

export function runWithPacks(frames: CaptureFrame[], packs: unknown[], o: { recording?: boolean; filter?: string } = {}): DecodedMessage[] {
  const valid: SchemaPack[] = packs.map(validateSchemaPack)
  registerSchemaFields(valid)
  const filter = o.filter ? compileFilter(o.filter) : undefined
  const out: DecodedMessage[] = []
  const engine = new Engine({
    registry: createDefaultRegistry(),
    schemas: valid.length ? new SchemaSet(valid) : undefined,
    recording: o.recording ?? true,
    onMessage: (m, conv, dir) => {
      if (!filter || filter.matches(targetFromMessage(m, messageMetaFields(m, conv, dir)))) out.push(m)
    }
  })
  for (const f of frames) engine.addFrame(f)
  engine.finish()
  return out
}
