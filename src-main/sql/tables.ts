// The SQL tables of decoded captures (`decode --format parquet`, `query`): one definition used to create
// them, to document them (`query --tables`, README "SQL over decoded messages") and to test them.
// Column names are snake_case and avoid nothing but SQL's quoting rules: every name here is usable bare in
// DuckDB and Spark SQL.

export interface Column {
  name: string
  /** DuckDB type, as CREATE TABLE takes it. */
  type: string
  doc: string
}

export interface Table {
  name: 'messages' | 'fields' | 'conversations'
  doc: string
  columns: Column[]
}

/** What every table starts with: which capture a row comes from (ids restart in each capture). */
const CAPTURE: Column = { name: 'capture', type: 'VARCHAR', doc: "the capture file's name" }
/** In every table so that each can be partitioned by day (--partition-by date). */
const DATE = (of: string): Column => ({ name: 'date', type: 'DATE', doc: `the UTC day of ${of}` })

export const MESSAGES: Table = {
  name: 'messages',
  doc: 'one row per decoded message, as the NDJSON export writes it',
  columns: [
    CAPTURE,
    { name: 'id', type: 'INTEGER', doc: 'message id (1-based, per capture)' },
    { name: 'conversation', type: 'INTEGER', doc: 'conversation id (per capture; conversations.id)' },
    { name: 'direction', type: 'VARCHAR', doc: 'c2s, s2c (roles decided) or a2b, b2a' },
    { name: 'frames', type: 'INTEGER[]', doc: '1-based numbers of the frames that carried a byte of it' },
    { name: 'time', type: 'TIMESTAMP', doc: 'UTC time of the frame that completed it (microseconds)' },
    DATE('time'),
    { name: 'protocol', type: 'VARCHAR', doc: 'top-most protocol decoded (photon, sfs2x, fignet, enet, ...)' },
    { name: 'stack', type: 'VARCHAR[]', doc: 'the layers, bottom up' },
    { name: 'name', type: 'VARCHAR', doc: "the message's name" },
    { name: 'summary', type: 'VARCHAR', doc: 'one-line summary' },
    { name: 'length', type: 'INTEGER', doc: 'bytes of the data it was read from (its first data source after any frame layers)' },
    { name: 'value', type: 'JSON', doc: "the typed value, the export's JSON text" },
    { name: 'warnings', type: 'VARCHAR[]', doc: 'decoder warnings' },
    { name: 'error', type: 'VARCHAR', doc: 'decode error, or NULL' }
  ]
}

export const FIELDS: Table = {
  name: 'fields',
  doc: "one row per leaf of each message's field tree",
  columns: [
    CAPTURE,
    { name: 'message', type: 'INTEGER', doc: 'messages.id' },
    { name: 'protocol', type: 'VARCHAR', doc: "the message's protocol" },
    DATE("the message's time"),
    { name: 'ord', type: 'INTEGER', doc: "the leaf's place among the message's leaves, in tree order, from 0" },
    { name: 'key', type: 'VARCHAR', doc: 'field key, as the filter names it (photon.param.245, sfs2x.param.name, ...)' },
    { name: 'label', type: 'VARCHAR', doc: "the tree's label" },
    { name: 'type', type: 'VARCHAR', doc: "the field's wire type (u8, i32, f32, string, bytes, none, ...)" },
    { name: 'int', type: 'BIGINT', doc: 'an integer value (one of int/float/text/bool/bytes holds the value, or none)' },
    { name: 'float', type: 'DOUBLE', doc: 'a floating-point value' },
    { name: 'text', type: 'VARCHAR', doc: 'a string value; also an integer beyond BIGINT, in decimal' },
    { name: 'bool', type: 'BOOLEAN', doc: 'a boolean value' },
    { name: 'bytes', type: 'BLOB', doc: 'a byte-array value' },
    { name: 'source', type: 'VARCHAR', doc: 'the data source it was read from (UDP payload, Inflated payload, ...)' },
    { name: 'start', type: 'INTEGER', doc: 'byte offset in that source' },
    { name: 'length', type: 'INTEGER', doc: 'bytes in that source' }
  ]
}

export const CONVERSATIONS: Table = {
  name: 'conversations',
  doc: 'one row per conversation, as the export lists them',
  columns: [
    CAPTURE,
    { name: 'id', type: 'INTEGER', doc: 'conversation id (per capture)' },
    { name: 'transport', type: 'VARCHAR', doc: 'udp or tcp' },
    { name: 'client', type: 'VARCHAR', doc: 'ip:port of the client' },
    { name: 'server', type: 'VARCHAR', doc: 'ip:port of the server' },
    { name: 'role_from', type: 'VARCHAR', doc: 'what decided client and server: handshake, semantics, port, first-packet' },
    { name: 'protocol', type: 'VARCHAR', doc: 'the decoder that runs it' },
    { name: 'stack', type: 'VARCHAR[]', doc: 'the layers, bottom up' },
    { name: 'frames', type: 'BIGINT', doc: 'frames, counted as Wireshark does' },
    { name: 'bytes', type: 'BIGINT', doc: 'bytes on the wire' },
    { name: 'first_time', type: 'TIMESTAMP', doc: 'UTC time of its first frame' },
    { name: 'last_time', type: 'TIMESTAMP', doc: 'UTC time of its last frame' },
    DATE('first_time'),
    { name: 'notes', type: 'VARCHAR[]', doc: 'notes: retransmissions, gaps, TLS, a forced protocol, ...' }
  ]
}

export const TABLES: readonly Table[] = [MESSAGES, FIELDS, CONVERSATIONS]

/** What --partition-by takes: a column every table has. */
export const PARTITION_KEYS = ['capture', 'protocol', 'date'] as const
export type PartitionKey = (typeof PARTITION_KEYS)[number]

export function createTableSql(t: Table, temporary = false): string {
  return `CREATE ${temporary ? 'TEMP ' : ''}TABLE ${t.name} (${t.columns.map((c) => `"${c.name}" ${c.type}`).join(', ')})`
}

/** The tables' columns as text (`gamewire query --tables`). */
export function describeTables(): string {
  const lines: string[] = []
  for (const t of TABLES) {
    lines.push(`${t.name}: ${t.doc}`)
    const width = Math.max(...t.columns.map((c) => c.name.length))
    const typeWidth = Math.max(...t.columns.map((c) => c.type.length))
    for (const c of t.columns) lines.push(`  ${c.name.padEnd(width)}  ${c.type.padEnd(typeWidth)}  ${c.doc}`)
    lines.push('')
  }
  return lines.join('\n')
}
