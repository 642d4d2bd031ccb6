// Counts in summaries and labels: "1 byte", "2 bytes".

/** `n` and the word, plural unless n is 1. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}
