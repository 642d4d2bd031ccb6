// Output made a piece at a time, for reports whose one long list (a capture's conversations) must not
// become one string: a million conversations would be hundreds of megabytes, past V8's longest string.

/** Joins small pieces into chunks of about `size` characters, for fewer writes. */
export function* chunked(pieces: Iterable<string>, size = 1 << 16): Generator<string> {
  let buf = ''
  for (const p of pieces) {
    buf += p
    if (buf.length >= size) {
      yield buf
      buf = ''
    }
  }
  if (buf) yield buf
}

/**
 * `JSON.stringify(value with value[key] = the items, null, 2)` and a newline, the same bytes, with the
 * array at top-level `key` written one item at a time (the rest of `value` is small). With `after`, the
 * members after the array are what it returns once the items are read (a report that counts as it goes):
 * `value` then holds the members before it.
 */
export function* jsonWithArray(value: object, key: string, items: Iterable<unknown>, after?: () => object): Generator<string> {
  const mark = `\u0000${key}`
  const quoted = JSON.stringify(mark)
  const head = JSON.stringify({ ...value, [key]: mark }, null, 2)
  yield head.slice(0, head.indexOf(quoted))
  // The array is a value of the top object: its items are indented four spaces, its `]` two.
  let first = true
  for (const item of items) {
    yield first ? '[\n    ' : ',\n    '
    yield* jsonPieces(item, '    ')
    first = false
  }
  yield first ? '[]' : '\n  ]'
  const tail = after ? JSON.stringify({ [key]: mark, ...after() }, null, 2) : head
  yield `${tail.slice(tail.indexOf(quoted) + quoted.length)}\n`
}

/** Arrays up to this long are written in one piece. */
const SMALL_ARRAY = 64

/**
 * `JSON.stringify(value, null, 2)` with each line after the first indented by `indent`, the same bytes, a
 * piece at a time: an array longer than SMALL_ARRAY, and an object holding one, are written member by
 * member, so that one item of a report (a conversation pair of two captures that differ throughout: tens of
 * megabytes) is never one string. Values are plain data (no toJSON, no Maps), as reports are.
 */
export function* jsonPieces(value: unknown, indent: string): Generator<string> {
  const inner = `${indent}  `
  if (Array.isArray(value) && value.length > SMALL_ARRAY) {
    for (let i = 0; i < value.length; i++) {
      yield i ? `,\n${inner}` : `[\n${inner}`
      const v = value[i]
      // as JSON.stringify writes an array's missing values
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') yield 'null'
      else yield* jsonPieces(v, inner)
    }
    yield `\n${indent}]`
    return
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && holdsLongArray(value)) {
    let first = true
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue // left out, as JSON.stringify does
      yield `${first ? '{' : ','}\n${inner}${JSON.stringify(k)}: `
      yield* jsonPieces(v, inner)
      first = false
    }
    yield `\n${indent}}`
    return
  }
  const text = JSON.stringify(value, null, 2)
  yield indent ? text.replaceAll('\n', `\n${indent}`) : text
}

function holdsLongArray(o: object): boolean {
  for (const v of Object.values(o)) if (Array.isArray(v) && v.length > SMALL_ARRAY) return true
  return false
}
