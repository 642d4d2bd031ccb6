import type { FieldScalar } from '../../../src-shared/model/types'
import { compileFilter, targetFromMessage, FilterError, type FilterTarget } from '../../../src-shared/filter'

/** A target holding exactly these fields (no tree). */
export function target(fields: Record<string, readonly FieldScalar[]>): FilterTarget {
  return targetFromMessage({ tree: [], protocol: '', stack: [] }, fields)
}

/** Matches over made-up keys (`a`, `x.y`): names are not checked here (see names-types.test.ts). */
export function m(expr: string, fields: Record<string, readonly FieldScalar[]>): boolean {
  return compileFilter(expr, { anyField: true }).matches(target(fields))
}

/** Compiles expecting a FilterError; returns it. */
export function err(expr: string): FilterError {
  try {
    compileFilter(expr)
  } catch (e) {
    if (e instanceof FilterError) return e
    throw e
  }
  throw new Error(`expected a FilterError for ${JSON.stringify(expr)}`)
}
