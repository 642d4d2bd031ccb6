// A small, strict argument parser: every mistake is a UsageError with one clear line.

export class UsageError extends Error {
  constructor(
    message: string,
    /** The command line's shape is wrong (an unknown option, an extra argument): show the command's usage too. */
    readonly showUsage = false
  ) {
    super(message)
    this.name = 'UsageError'
  }
}

export interface OptionSpec {
  /** Long name without dashes, e.g. 'format'. */
  name: string
  short?: string
  /** Takes a value (else a boolean flag). */
  value?: boolean
  /** May be given several times (values collected). */
  repeat?: boolean
}

export interface ParsedArgs {
  positional: string[]
  options: Map<string, string[]>
  flags: Set<string>
}

export function parseArgs(argv: string[], specs: OptionSpec[], maxPositional: number): ParsedArgs {
  const byLong = new Map(specs.map((s) => [s.name, s]))
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short!, s]))
  const out: ParsedArgs = { positional: [], options: new Map(), flags: new Set() }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    let spec: OptionSpec | undefined
    let inline: string | undefined
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=')
      const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2)
      inline = eq >= 0 ? arg.slice(eq + 1) : undefined
      spec = byLong.get(name)
      if (!spec) throw new UsageError(`unknown option --${name}`, true)
    } else if (arg.startsWith('-') && arg.length === 2) {
      spec = byShort.get(arg[1])
      if (!spec) throw new UsageError(`unknown option ${arg}`, true)
    } else {
      out.positional.push(arg)
      if (out.positional.length > maxPositional) throw new UsageError(`unexpected argument '${arg}'`, true)
      continue
    }
    if (!spec.value) {
      if (inline !== undefined) throw new UsageError(`option --${spec.name} takes no value`)
      out.flags.add(spec.name)
      continue
    }
    const value = inline ?? argv[++i]
    if (value === undefined) throw new UsageError(`option --${spec.name} needs a value`)
    const list = out.options.get(spec.name) ?? []
    if (list.length && !spec.repeat) throw new UsageError(`option --${spec.name} given twice`)
    list.push(value)
    out.options.set(spec.name, list)
  }
  return out
}

/**
 * Whether `--help` or `-h` is given as an option (not as the value of one, as in `--filter -h`): it wins
 * over every other mistake on the line.
 */
export function wantsHelp(argv: string[], specs: OptionSpec[]): boolean {
  const takesValue = (s: OptionSpec | undefined) => !!s?.value
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--help' || arg === '-h') return true
    if (arg.startsWith('--') && arg.length > 2) {
      if (!arg.includes('=') && takesValue(specs.find((s) => s.name === arg.slice(2)))) i++
    } else if (arg.startsWith('-') && arg.length === 2 && takesValue(specs.find((s) => s.short === arg[1]))) {
      i++
    }
  }
  return false
}

export function one(a: ParsedArgs, name: string): string | undefined {
  return a.options.get(name)?.[0]
}

export function positiveNumber(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined
  const n = Number(text)
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number, got '${text}'`)
  return n
}
