// A deep copy of an engine's decoding state, for checkpoints: a detail replay that reaches a point of a long
// conversation keeps a copy of its engine there, and a later visit further down starts from the copy instead
// of from the conversation's first frame.
//
// The copy follows the object graph as it is (class instances keep their prototype, Maps, Sets, arrays and
// typed arrays are copied), so a decoder needs no code of its own for it. What it cannot copy faithfully it
// refuses, and the caller then keeps no checkpoint: a function held in a field (a closure would still see the
// original's objects) unless marked `shareable`, an accessor, and objects of kinds it does not know. Objects
// the caller names in `shared` are not copied but mapped (the engine's options, registries, keys: the same for
// both, or replaced by the new engine's own). A class names its caches with `leftOutOfCopies`.

const SHAREABLE = new WeakSet<object>()
const LEFT_OUT = new WeakMap<object, ReadonlySet<PropertyKey>>()

/** Marks a function that reads nothing but its arguments (no state in its closure): copies share it. */
export function shareable<F extends (...args: never[]) => unknown>(fn: F): F {
  SHAREABLE.add(fn)
  return fn
}

/**
 * Fields of `cls`'s instances that a copy leaves unset: caches rebuilt on first use, such as a callback bound
 * to the instance (which would still call the original).
 */
export function leftOutOfCopies(cls: abstract new (...args: never[]) => unknown, fields: readonly string[]): void {
  LEFT_OUT.set(cls.prototype as object, new Set(fields))
}

/** Why a graph could not be copied: the path to the first value that could not be. */
export class StateCopyRefused {
  constructor(readonly path: string) {}
}

const TYPED_ARRAYS = new Set<unknown>([
  Uint8Array.prototype,
  Int8Array.prototype,
  Uint16Array.prototype,
  Int16Array.prototype,
  Uint32Array.prototype,
  Int32Array.prototype,
  Float32Array.prototype,
  Float64Array.prototype,
  BigInt64Array.prototype,
  BigUint64Array.prototype,
  Uint8ClampedArray.prototype
])

/**
 * A deep copy of `root`, or StateCopyRefused. `shared` maps objects to what the copy uses instead (itself for
 * objects both sides share). Frozen objects are shared as they are: state freezes only objects of plain
 * values (a request's frame and time), which nothing can change.
 */
export function copyState<T>(root: T, shared: ReadonlyMap<object, object>): T | StateCopyRefused {
  const done = new Map<object, unknown>(shared)
  let refused: StateCopyRefused | null = null

  const copy = (v: unknown, path: () => string): unknown => {
    if (refused) return undefined
    if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return v
    const o = v as object
    const seen = done.get(o)
    if (seen !== undefined || done.has(o)) return seen
    if (typeof v === 'function') {
      if (SHAREABLE.has(o)) return o
      refused = new StateCopyRefused(path())
      return undefined
    }
    if (Object.isFrozen(o)) {
      done.set(o, o)
      return o
    }
    if (ArrayBuffer.isView(o)) {
      const proto = Object.getPrototypeOf(o)
      let view: unknown
      if (o instanceof DataView) view = new DataView(o.buffer.slice(o.byteOffset, o.byteOffset + o.byteLength))
      else if (TYPED_ARRAYS.has(proto) || TYPED_ARRAYS.has(Object.getPrototypeOf(proto))) {
        // slice() copies the view's own bytes only (a slab's view does not copy the slab); a Buffer stays one.
        view = (o as Uint8Array).slice()
        if (Object.getPrototypeOf(view) !== proto) Object.setPrototypeOf(view, proto)
      } else {
        refused = new StateCopyRefused(path())
        return undefined
      }
      done.set(o, view)
      return view
    }
    if (o instanceof ArrayBuffer) {
      const b = o.slice(0)
      done.set(o, b)
      return b
    }
    if (Array.isArray(o)) {
      const a: unknown[] = new Array(o.length)
      done.set(o, a)
      for (let i = 0; i < o.length; i++) a[i] = copy(o[i], () => `${path()}[${i}]`)
      return a
    }
    const proto = Object.getPrototypeOf(o)
    if (proto === Map.prototype) {
      const m = new Map()
      done.set(o, m)
      let i = 0
      for (const [k, x] of o as Map<unknown, unknown>) {
        const at = i++
        m.set(
          copy(k, () => `${path()}.key(${at})`),
          copy(x, () => `${path()}.get(${String(k)})`)
        )
      }
      return m
    }
    if (proto === Set.prototype) {
      const s = new Set()
      done.set(o, s)
      let i = 0
      for (const x of o as Set<unknown>) {
        const at = i++
        s.add(copy(x, () => `${path()}.item(${at})`))
      }
      return s
    }
    // Anything else is a plain object or an instance of a class of ours (a subclass of Map or Error is not).
    if (proto !== Object.prototype && proto !== null && !isClassInstance(proto)) {
      refused = new StateCopyRefused(`${path()} (${proto?.constructor?.name ?? 'unknown kind'})`)
      return undefined
    }
    const c = Object.create(proto) as Record<PropertyKey, unknown>
    done.set(o, c)
    const leftOut = proto === null ? undefined : LEFT_OUT.get(proto)
    for (const key of Reflect.ownKeys(o)) {
      const d = Object.getOwnPropertyDescriptor(o, key)!
      const at = () => `${path()}.${String(key)}`
      if (leftOut?.has(key)) {
        Object.defineProperty(c, key, { ...d, value: undefined }) // the same shape as the original's
        continue
      }
      if (!('value' in d)) {
        refused = new StateCopyRefused(`${at()} (accessor)`)
        return undefined
      }
      const value = copy(d.value, at)
      // A plain field is assigned, as its constructor did (the same hidden class, so decoders stay fast on copies).
      if (d.writable && d.enumerable && d.configurable) c[key] = value
      else Object.defineProperty(c, key, { ...d, value })
    }
    return c
  }

  const out = copy(root, () => 'root')
  return refused ?? (out as T)
}

const CLASS_PROTOTYPES = new WeakMap<object, boolean>()

/** A prototype of a class written in this code (not one of the built-ins the copy does not know). */
function isClassInstance(proto: object): boolean {
  let known = CLASS_PROTOTYPES.get(proto)
  if (known === undefined) {
    known = true
    for (let p: object | null = proto; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
      const ctor = (p as { constructor?: unknown }).constructor
      if (typeof ctor !== 'function' || /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(ctor))) known = false
    }
    CLASS_PROTOTYPES.set(proto, known)
  }
  return known
}
