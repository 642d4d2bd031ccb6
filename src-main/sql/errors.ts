// Kept apart from the modules that load DuckDB (a native module): the CLI imports those only when a
// command needs them, and tells this error by its class.

/** A problem with a query's sources or statement, or with writing Parquet: one line for the user. */
export class SqlError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SqlError'
  }
}

/** DuckDB's messages carry the failing line and a caret on later lines: the first line says what is wrong. */
export function sqlErrorMessage(e: unknown): string {
  return String((e as Error)?.message ?? e)
    .split('\n')[0]
    .trim()
}
