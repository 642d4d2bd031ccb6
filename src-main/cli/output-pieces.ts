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
    yield `${first ? '[' : ','}\n    ${JSON.stringify(item, null, 2).replaceAll('\n', '\n    ')}`
    first = false
  }
  yield first ? '[]' : '\n  ]'
  const tail = after ? JSON.stringify({ [key]: mark, ...after() }, null, 2) : head
  yield `${tail.slice(tail.indexOf(quoted) + quoted.length)}\n`
}
