// The tables as Apache Parquet, written and read by DuckDB itself. A directory holds `messages.parquet`,
// `fields.parquet` and `conversations.parquet`, or, partitioned, `messages/KEY=VALUE/*.parquet` and so on
// (Hive-style: the layout Spark, Trino and DuckDB read as a partitioned table).

import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { DuckDBConnection } from '@duckdb/node-api'
import { SqlError } from './errors'
import { createTableSql, TABLES, type PartitionKey, type Table } from './tables'

/** A SQL string literal. */
export function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`
}

/** Writes the connection's three tables into `dir` (which exists), partitioned by `partitionBy` if given. */
export async function writeParquet(connection: DuckDBConnection, dir: string, partitionBy?: PartitionKey): Promise<void> {
  for (const t of TABLES) {
    const target = partitionBy ? join(dir, t.name) : join(dir, `${t.name}.parquet`)
    const options = partitionBy ? `FORMAT parquet, PARTITION_BY ("${partitionBy}")` : 'FORMAT parquet'
    await connection.run(`COPY ${t.name} TO ${sqlString(target)} (${options})`)
  }
}

interface TableFiles {
  /** Paths or globs for read_parquet. */
  paths: string[]
  /** The Hive partition column, when partitioned. */
  partition?: string
}

/** Where a Parquet directory keeps `t`: one file, or a partitioned folder (its key read from its first subfolder). */
function tableFiles(dir: string, t: Table): TableFiles | 'empty' {
  const file = join(dir, `${t.name}.parquet`)
  if (existsSync(file) && statSync(file).isFile()) return { paths: [file] }
  const folder = join(dir, t.name)
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new SqlError(
      `${dir} is not a gamewire Parquet directory: it has no ${t.name}.parquet or ${t.name}/ (write one with gamewire decode CAPTURE --format parquet -o DIR)`
    )
  }
  const part = readdirSync(folder)
    .map((n) => /^([A-Za-z_]\w*)=/.exec(n)?.[1])
    .find((k) => k !== undefined)
  // A partitioned COPY of an empty table writes no files at all.
  if (!part) return existsSync(join(folder, 'data_0.parquet')) ? { paths: [join(folder, '*.parquet')] } : 'empty'
  return { paths: [join(folder, '**', '*.parquet')], partition: part }
}

/**
 * Views named messages, fields and conversations over the Parquet directories `dirs`, with the columns in
 * the tables' own order whatever the layout (Hive partition columns would otherwise come last).
 */
export async function openParquet(connection: DuckDBConnection, dirs: readonly string[]): Promise<void> {
  for (const t of TABLES) {
    const paths: string[] = []
    let partition: string | undefined
    let first = true
    for (const dir of dirs) {
      const f = tableFiles(dir, t)
      if (f === 'empty') continue
      if (!first && f.partition !== partition) {
        throw new SqlError(
          `the Parquet directories are partitioned differently (${partition ?? 'not partitioned'}, ${f.partition ?? 'not partitioned'}): query them one layout at a time`
        )
      }
      first = false
      partition = f.partition
      paths.push(...f.paths)
    }
    if (paths.length === 0) {
      await connection.run(createTableSql(t, true))
      continue
    }
    const column = partition ? t.columns.find((c) => c.name === partition) : undefined
    if (partition && !column) throw new SqlError(`${t.name} is partitioned by '${partition}', which is not one of its columns`)
    const hive = column ? `hive_partitioning = true, hive_types = {${sqlString(column.name)}: ${column.type}}` : 'hive_partitioning = false'
    const columns = t.columns.map((c) => `"${c.name}"`).join(', ')
    await connection.run(`CREATE TEMP VIEW ${t.name} AS SELECT ${columns} FROM read_parquet([${paths.map(sqlString).join(', ')}], ${hive})`)
  }
}
