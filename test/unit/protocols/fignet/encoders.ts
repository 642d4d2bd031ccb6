// Independent encoders for the FigNet payload tests, written from the wire rules in
// docs/fignet.md (NetStack BitBuffer), §3 (MemoryPack), the msgpack
// spec, and the docs/fignet.md, guide §8–9 (model field lists, TransformData layout). They share no code with the
// decoders under test; the model field lists below are typed out again from the guide on purpose.

// ---------------- BitBuffer (NetStack) ----------------

export interface BitMark {
  name: string
  /** Stream bits [from, to). */
  from: number
  to: number
}

/** An LSB-first bit stream: stream bit i is bit (i & 7) of byte i >> 3. */
export class BitWriter {
  readonly bits: number[] = []
  readonly marks: BitMark[] = []

  add(n: number, v: number): this {
    for (let i = 0; i < n; i++) this.bits.push(Math.floor(v / 2 ** i) % 2)
    return this
  }

  private mark(name: string | undefined, fn: () => void): this {
    const from = this.bits.length
    fn()
    if (name) this.marks.push({ name, from, to: this.bits.length })
    return this
  }

  byte(v: number, name?: string): this {
    return this.mark(name, () => this.add(8, v & 0xff))
  }

  bool(v: boolean, name?: string): this {
    return this.mark(name, () => this.add(1, v ? 1 : 0))
  }

  /** 7-bit groups, least significant first, 0x80 = more; each group an 8-bit field. */
  uint(v: number, name?: string): this {
    return this.mark(name, () => {
      let x = v >>> 0
      do {
        let g = x & 0x7f
        x = Math.floor(x / 128)
        if (x > 0) g |= 0x80
        this.add(8, g)
      } while (x > 0)
    })
  }

  ushort(v: number, name?: string): this {
    return this.uint(v & 0xffff, name)
  }

  int(v: number, name?: string): this {
    return this.uint(((v << 1) ^ (v >> 31)) >>> 0, name)
  }

  short(v: number, name?: string): this {
    return this.int(v, name)
  }

  long(v: bigint, name?: string): this {
    const low = Number(BigInt.asIntN(32, v))
    const high = Number(BigInt.asIntN(32, v >> 32n))
    return this.mark(name, () => this.int(low).int(high))
  }

  ulong(v: bigint, name?: string): this {
    const low = Number(v & 0xffffffffn)
    const high = Number((v >> 32n) & 0xffffffffn)
    return this.mark(name, () => this.uint(low).uint(high))
  }

  /** 8-bit length then 7 bits per ASCII character. */
  string(s: string, name?: string): this {
    return this.mark(name, () => {
      this.add(8, s.length)
      for (const c of s) this.add(7, c.charCodeAt(0))
    })
  }

  /** ToArray: the sentinel 1-bit, then zero padding to a whole byte. */
  toBytes(sentinel = true): Uint8Array {
    const bits = sentinel ? [...this.bits, 1] : [...this.bits]
    const out = new Uint8Array(Math.ceil(bits.length / 8))
    bits.forEach((b, i) => (out[i >> 3] |= b << (i & 7)))
    return out
  }
}

// ---------------- MemoryPack ----------------

export type Prim = 'byte' | 'sbyte' | 'bool' | 'short' | 'ushort' | 'int' | 'uint' | 'float' | 'long' | 'ulong' | 'double'

export const PRIM_SIZE: Record<Prim, number> = { byte: 1, sbyte: 1, bool: 1, short: 2, ushort: 2, int: 4, uint: 4, float: 4, long: 8, ulong: 8, double: 8 }

export class MpWriter {
  private readonly out: number[] = []

  raw(bytes: ArrayLike<number>): this {
    for (let i = 0; i < bytes.length; i++) this.out.push(bytes[i] & 0xff)
    return this
  }

  private le(size: number, set: (dv: DataView) => void): this {
    const b = new Uint8Array(size)
    set(new DataView(b.buffer))
    return this.raw(b)
  }

  /** Object header: member count, or 255 for null. */
  header(count: number | null): this {
    return this.raw([count === null ? 255 : count])
  }

  prim(kind: Prim, v: number | bigint | boolean): this {
    switch (kind) {
      case 'byte':
        return this.le(1, (d) => d.setUint8(0, v as number))
      case 'sbyte':
        return this.le(1, (d) => d.setInt8(0, v as number))
      case 'bool':
        return this.le(1, (d) => d.setUint8(0, v ? 1 : 0))
      case 'short':
        return this.le(2, (d) => d.setInt16(0, v as number, true))
      case 'ushort':
        return this.le(2, (d) => d.setUint16(0, v as number, true))
      case 'int':
        return this.le(4, (d) => d.setInt32(0, v as number, true))
      case 'uint':
        return this.le(4, (d) => d.setUint32(0, v as number, true))
      case 'float':
        return this.le(4, (d) => d.setFloat32(0, v as number, true))
      case 'long':
        return this.le(8, (d) => d.setBigInt64(0, v as bigint, true))
      case 'ulong':
        return this.le(8, (d) => d.setBigUint64(0, v as bigint, true))
      case 'double':
        return this.le(8, (d) => d.setFloat64(0, v as number, true))
    }
  }

  i32(v: number): this {
    return this.prim('int', v)
  }

  /** UTF-8 form: ~byteCount, UTF-16 length, bytes. UTF-16 form: length then code units. Null: -1. */
  string(s: string | null, form: 'utf8' | 'utf16' = 'utf8', utf16Length?: number): this {
    if (s === null) return this.i32(-1)
    if (s === '') return this.i32(0)
    if (form === 'utf16') {
      this.i32(s.length)
      for (let i = 0; i < s.length; i++) this.prim('ushort', s.charCodeAt(i))
      return this
    }
    const b = new TextEncoder().encode(s)
    return this.i32(~b.length)
      .i32(utf16Length ?? s.length)
      .raw(b)
  }

  bytes(b: ArrayLike<number> | null): this {
    if (b === null) return this.i32(-1)
    return this.i32(b.length).raw(b)
  }

  /** Nullable<T> of unmanaged T: hasValue, padding to T's size, then T's image. */
  nullable(kind: Prim, v: number | bigint | boolean | null): this {
    const size = PRIM_SIZE[kind]
    this.raw([v === null ? 0 : 1])
    this.raw(new Array(size - 1).fill(0))
    return v === null ? this.raw(new Array(size).fill(0)) : this.prim(kind, v)
  }

  /** MemoryPack VarInt. */
  varint(v: number | bigint): this {
    const n = BigInt(v)
    if (n >= -120n && n <= 127n) return this.prim('sbyte', Number(n))
    if (n >= 0n && n <= 255n) return this.raw([-121 & 0xff]).prim('byte', Number(n))
    if (n >= -128n && n <= 127n) return this.raw([-122 & 0xff]).prim('sbyte', Number(n))
    if (n >= 0n && n <= 0xffffn) return this.raw([-123 & 0xff]).prim('ushort', Number(n))
    if (n >= -32768n && n <= 32767n) return this.raw([-124 & 0xff]).prim('short', Number(n))
    if (n >= 0n && n <= 0xffffffffn) return this.raw([-125 & 0xff]).prim('uint', Number(n))
    if (n >= -(2n ** 31n) && n < 2n ** 31n) return this.raw([-126 & 0xff]).prim('int', Number(n))
    if (n >= 0n) return this.raw([-127 & 0xff]).prim('ulong', n)
    return this.raw([-128 & 0xff]).prim('long', n)
  }

  get length(): number {
    return this.out.length
  }

  done(): Uint8Array {
    return Uint8Array.from(this.out)
  }
}

// The guide's models (§8–9; types per docs/fignet.md, Model field types), in declaration order. Types: a primitive, 'string',
// 'byte[]', a byte enum (EntityType, RoomResponseCode), a model name, or 'List<Model>'.
export const BYTE_ENUMS: Record<string, Record<number, string>> = {
  EntityType: { 0: 'Player', 1: 'Agent', 2: 'Item' },
  RoomResponseCode: { 0: 'Sucess', 1: 'InvalidPassword', 2: 'RoomLocked', 3: 'RoomFull', 4: 'Unknown', 5: 'Failure' }
}
export const DELIVERY_METHOD_NAMES: Record<number, string> = { 0: 'Unreliable', 1: 'Reliable', 2: 'ReliableUnordered', 3: 'Sequenced' }

export const GUIDE_MODELS: Record<string, [string, string][]> = {
  CreateRoomData: [
    ['RoomName', 'string'],
    ['MaxPlayers', 'ushort'],
    ['Password', 'string'],
    ['CellSize', 'ushort'],
    ['Width', 'ushort'],
    ['Height', 'ushort'],
    ['AoiActivationCount', 'byte'],
    ['LodLevel', 'byte'],
    ['ForcedRoomStateSyncInterval', 'short'],
    ['PresenterInGroupCast', 'bool'],
    ['FetchCachedEventsDelay', 'ushort']
  ],
  CreateRoomResponseData: [
    ['RoomId', 'uint'],
    ['RoomName', 'string'],
    ['ResponseCode', 'RoomResponseCode']
  ],
  RoomJoinOperationData: [
    ['RoomId', 'uint'],
    ['TeamId', 'uint'],
    ['Password', 'string'],
    ['UserName', 'string']
  ],
  RoomReJoinOperationData: [
    ['RoomId', 'uint'],
    ['TeamId', 'uint'],
    ['Password', 'string'],
    ['IsRejoin', 'bool'],
    ['RoomAuthToken', 'string'],
    ['PeerId', 'uint'],
    ['ResponseCode', 'RoomResponseCode'],
    ['RoomName', 'string']
  ],
  RoomEventData: [
    ['RoomId', 'uint'],
    ['EventId', 'byte'],
    ['DeliveryMethod', 'byte'],
    ['Tag', 'byte'],
    ['IsCached', 'bool'],
    ['UniqueId', 'uint'],
    ['Data', 'byte[]']
  ],
  InstantiateOperationData: [
    ['RoomId', 'uint'],
    ['EntityId', 'short'],
    ['EntityType', 'EntityType'],
    ['TransLite', 'TransformLite']
  ],
  InstantiateOperationResponseData: [
    ['RoomId', 'uint'],
    ['OwnerId', 'uint'],
    ['NetworkId', 'uint'],
    ['EntityId', 'short'],
    ['EntityType', 'EntityType']
  ],
  EntityUpdateOperationData: [
    ['RoomId', 'uint'],
    ['EntityNetId', 'uint'],
    ['EntityType', 'EntityType'],
    ['TransLite', 'TransformLite']
  ],
  EntityUpdateResponseOperationData: [['EntitiesUpdate', 'List<EntityUpdateOperationData>']],
  EntityStateChangeOperationData: [
    ['RoomId', 'uint'],
    ['NetworkId', 'uint'],
    ['EntityType', 'EntityType'],
    ['State', 'EntangleEntityState']
  ],
  EntityStateChangeResponseOperationData: [['StatesBatch', 'List<EntityStateChangeOperationData>']],
  RequestOwnershipOperationData: [
    ['RoomId', 'uint'],
    ['IsLocked', 'bool'],
    ['EntityNetId', 'uint'],
    ['EntityType', 'EntityType']
  ],
  ClearOwnershipData: [
    ['RoomId', 'uint'],
    ['EntityNetId', 'uint']
  ],
  TransformLite: [
    ['TransformData', 'byte[]'],
    ['ConfigFlags', 'ushort'],
    ['SequenceNumber', 'ushort']
  ],
  EntangleEntityState: [
    ['DeliveryMethod', 'byte'],
    ['Delta', 'List<NetworkedObjectBinary>'],
    ['SequenceNumber', 'ushort']
  ],
  NetworkedObjectBinary: [
    ['Key', 'byte'],
    ['Data', 'byte[]']
  ]
}

/** A model value for the writer: field name → value (a nested model: an object or null; a list: an array or null). */
export type ModelValue = { [field: string]: unknown } | null

/** Writes a model as a MemoryPack object (GenerateType.Object: header, then members in order). */
export function writeModel(w: MpWriter, model: string, v: ModelValue, opts: { extraMembers?: (w: MpWriter) => number } = {}): MpWriter {
  if (v === null) return w.header(null)
  const fields = GUIDE_MODELS[model]
  if (!fields) throw new Error(`no guide model ${model}`)
  const mark = new MpWriter()
  const extra = opts.extraMembers ? opts.extraMembers(mark) : 0
  w.header(fields.length + extra)
  for (const [name, type] of fields) writeValue(w, type, v[name])
  return w.raw(mark.done())
}

export function writeValue(w: MpWriter, type: string, x: unknown): void {
  if (type === 'string') w.string(x as string | null)
  else if (type === 'byte[]') w.bytes(x as number[] | null)
  else if (type in BYTE_ENUMS) w.prim('byte', x as number)
  else if (type in PRIM_SIZE) w.prim(type as Prim, x as number)
  else if (type.startsWith('List<')) {
    const of = type.slice(5, -1)
    const list = x as ModelValue[] | null
    if (list === null) w.i32(-1)
    else {
      w.i32(list.length)
      for (const el of list) writeModel(w, of, el)
    }
  } else writeModel(w, type, x as ModelValue)
}

// ---------------- MessagePack ----------------

export type MsgPackInput =
  | { t: 'nil' }
  | { t: 'bool'; v: boolean }
  | { t: 'uint'; v: number | bigint; width?: 0 | 8 | 16 | 32 | 64 }
  | { t: 'int'; v: number | bigint; width?: 0 | 8 | 16 | 32 | 64 }
  | { t: 'f32' | 'f64'; v: number }
  | { t: 'str'; v: string; width?: 0 | 8 | 16 | 32 }
  | { t: 'bin'; v: number[]; width?: 8 | 16 | 32 }
  | { t: 'ext'; type: number; v: number[]; width?: 0 | 8 | 16 | 32 }
  | { t: 'arr'; v: MsgPackInput[]; width?: 0 | 16 | 32 }
  | { t: 'map'; v: [MsgPackInput, MsgPackInput][]; width?: 0 | 16 | 32 }

function be(size: number, v: number | bigint, signed = false): number[] {
  const b = new Uint8Array(size)
  const dv = new DataView(b.buffer)
  if (size === 1) signed ? dv.setInt8(0, Number(v)) : dv.setUint8(0, Number(v))
  else if (size === 2) signed ? dv.setInt16(0, Number(v)) : dv.setUint16(0, Number(v))
  else if (size === 4) signed ? dv.setInt32(0, Number(v)) : dv.setUint32(0, Number(v))
  else signed ? dv.setBigInt64(0, BigInt(v)) : dv.setBigUint64(0, BigInt(v))
  return [...b]
}

/** Encodes with the smallest format unless `width` forces one (0 = the fix form). */
export function msgpack(x: MsgPackInput): number[] {
  switch (x.t) {
    case 'nil':
      return [0xc0]
    case 'bool':
      return [x.v ? 0xc3 : 0xc2]
    case 'uint': {
      const v = BigInt(x.v)
      const w = x.width ?? (v < 128n ? 0 : v < 256n ? 8 : v < 65536n ? 16 : v < 2n ** 32n ? 32 : 64)
      if (w === 0) return [Number(v)]
      return [{ 8: 0xcc, 16: 0xcd, 32: 0xce, 64: 0xcf }[w], ...be(w / 8, v)]
    }
    case 'int': {
      const v = BigInt(x.v)
      const w =
        x.width ?? (v >= -32n && v < 0n ? 0 : v >= -128n && v < 128n ? 8 : v >= -32768n && v < 32768n ? 16 : v >= -(2n ** 31n) && v < 2n ** 31n ? 32 : 64)
      if (w === 0) return [Number(v) & 0xff]
      return [{ 8: 0xd0, 16: 0xd1, 32: 0xd2, 64: 0xd3 }[w], ...be(w / 8, v, true)]
    }
    case 'f32': {
      const b = new Uint8Array(4)
      new DataView(b.buffer).setFloat32(0, x.v)
      return [0xca, ...b]
    }
    case 'f64': {
      const b = new Uint8Array(8)
      new DataView(b.buffer).setFloat64(0, x.v)
      return [0xcb, ...b]
    }
    case 'str': {
      const b = [...new TextEncoder().encode(x.v)]
      const w = x.width ?? (b.length < 32 ? 0 : b.length < 256 ? 8 : b.length < 65536 ? 16 : 32)
      if (w === 0) return [0xa0 | b.length, ...b]
      return [{ 8: 0xd9, 16: 0xda, 32: 0xdb }[w], ...be(w / 8, b.length), ...b]
    }
    case 'bin': {
      const w = x.width ?? (x.v.length < 256 ? 8 : x.v.length < 65536 ? 16 : 32)
      return [{ 8: 0xc4, 16: 0xc5, 32: 0xc6 }[w], ...be(w / 8, x.v.length), ...x.v]
    }
    case 'ext': {
      const n = x.v.length
      const fix: Record<number, number> = { 1: 0xd4, 2: 0xd5, 4: 0xd6, 8: 0xd7, 16: 0xd8 }
      const w = x.width ?? (fix[n] ? 0 : n < 256 ? 8 : n < 65536 ? 16 : 32)
      if (w === 0) return [fix[n], x.type & 0xff, ...x.v]
      return [{ 8: 0xc7, 16: 0xc8, 32: 0xc9 }[w], ...be(w / 8, n), x.type & 0xff, ...x.v]
    }
    case 'arr': {
      const n = x.v.length
      const w = x.width ?? (n < 16 ? 0 : n < 65536 ? 16 : 32)
      const head = w === 0 ? [0x90 | n] : [w === 16 ? 0xdc : 0xdd, ...be(w / 8, n)]
      return [...head, ...x.v.flatMap(msgpack)]
    }
    case 'map': {
      const n = x.v.length
      const w = x.width ?? (n < 16 ? 0 : n < 65536 ? 16 : 32)
      const head = w === 0 ? [0x80 | n] : [w === 16 ? 0xde : 0xdf, ...be(w / 8, n)]
      return [...head, ...x.v.flatMap(([k, v]) => [...msgpack(k), ...msgpack(v)])]
    }
  }
}

// ---------------- TransformData (docs/fignet.md, guide §9.1) ----------------

export interface TransformInput {
  x: number
  y: number
  z?: number
  rot?: [number, number, number, number]
  sx?: number
  sy?: number
  sz?: number
  vel?: [number, number, number]
  ang?: [number, number, number]
}

/**
 * Packs TransformData for `flags`: X, Y, [Z], [rotation ×1000 shorts], [scale X/Y/Z], [linear velocity],
 * [angular velocity]. Position/scale are float32 unless bit 5/6/7 (×1000/×100/×10 shorts; the first set
 * bit wins); velocity shorts ×1000, or ×100 with bit 10. Returns the bytes and the value each field must
 * decode to (what survives the quantisation).
 */
export function packTransform(flags: number, t: TransformInput): { bytes: Uint8Array; expect: Record<string, number> } {
  const out: number[] = []
  const expect: Record<string, number> = {}
  const scale = flags & 32 ? 1000 : flags & 64 ? 100 : flags & 128 ? 10 : 0
  const short = (v: number) => {
    const b = new Uint8Array(2)
    new DataView(b.buffer).setInt16(0, v, true)
    out.push(...b)
  }
  const posVal = (name: string, v: number) => {
    if (scale) {
      const raw = Math.max(-32768, Math.min(32767, Math.round(v * scale))) + 0 // no -0: the wire has none
      short(raw)
      expect[name] = raw / scale
    } else {
      const b = new Uint8Array(4)
      new DataView(b.buffer).setFloat32(0, v, true)
      out.push(...b)
      expect[name] = Math.fround(v)
    }
  }
  const shortVal = (name: string, v: number, s: number) => {
    const raw = Math.max(-32768, Math.min(32767, Math.round(v * s))) + 0
    short(raw)
    expect[name] = raw / s
  }
  posVal('X', t.x)
  posVal('Y', t.y)
  if (flags & 1) posVal('Z', t.z ?? 0)
  if (flags & 2) (t.rot ?? [0, 0, 0, 1]).forEach((v, i) => shortVal(['RotX', 'RotY', 'RotZ', 'RotW'][i], v, 1000))
  if (flags & 4) posVal('ScaleX', t.sx ?? 1)
  if (flags & 8) posVal('ScaleY', t.sy ?? 1)
  if (flags & 16) posVal('ScaleZ', t.sz ?? 1)
  const vs = flags & 1024 ? 100 : 1000
  if (flags & 256) (t.vel ?? [0, 0, 0]).forEach((v, i) => shortVal(['VelX', 'VelY', 'VelZ'][i], v, vs))
  if (flags & 512) (t.ang ?? [0, 0, 0]).forEach((v, i) => shortVal(['AngVelX', 'AngVelY', 'AngVelZ'][i], v, vs))
  return { bytes: Uint8Array.from(out), expect }
}

export function hex(b: ArrayLike<number>): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
}

export function unhex(s: string): Uint8Array {
  const c = s.replace(/\s+/g, '')
  return Uint8Array.from({ length: c.length / 2 }, (_, i) => parseInt(c.slice(i * 2, i * 2 + 2), 16))
}
