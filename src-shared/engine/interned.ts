// Values stored once each and referred to by number: the compact tables' names, shapes and notes.

/** Interns values by a text key: each distinct one is stored once and referred to by number. */
export class Interned<T> {
  private readonly ids = new Map<string, number>()
  readonly values: T[] = []

  /** Interns `values` in order (ids 0..n-1), each under its key. */
  static of<T>(values: readonly T[], key: (v: T) => string): Interned<T> {
    const t = new Interned<T>()
    for (const v of values) t.id(key(v), () => v)
    return t
  }

  id(key: string, value: () => T): number {
    let id = this.ids.get(key)
    if (id === undefined) {
      id = this.values.length
      this.values.push(value())
      this.ids.set(key, id)
    }
    return id
  }
}
