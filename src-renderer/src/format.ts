// Display helpers shared by the panels.

const count = new Intl.NumberFormat('en-US')

export function num(n: number): string {
  return count.format(n)
}

export function plural(n: number, word: string): string {
  return `${num(n)} ${word}${n === 1 ? '' : 's'}`
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`
  return `${(n / 1024 ** 3).toFixed(2)} GiB`
}

export function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** Local wall-clock time with milliseconds. */
export function clock(epoch: number): string {
  const d = new Date(epoch * 1000)
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
}

export function relative(epoch: number, base: number): string {
  return (epoch - base).toFixed(6)
}

export function duration(seconds: number): string {
  if (seconds < 1) return `${(seconds * 1000).toFixed(0)} ms`
  if (seconds < 120) return `${seconds.toFixed(2)} s`
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`
}

export const DIRECTION_ARROW: Record<string, string> = { c2s: '→', s2c: '←', a2b: '→', b2a: '←' }

/** Protocols with a colour of their own; anything else uses the neutral one. */
export function protocolClass(protocol: string): string {
  return ['photon', 'sfs2x', 'fignet', 'websocket', 'enet', 'litenetlib', 'unknown'].includes(protocol) ? `proto-${protocol}` : 'proto-other'
}

/** A filter literal for a value shown in the tree. */
export function filterLiteral(value: string | number | boolean | null | undefined, type: string): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'boolean' || typeof value === 'number') return String(value)
  if (type === 'bytes') return value.match(/../g)?.join(':') ?? '""'
  if (/^-?\d+$/.test(value) && /^[iu]\d+|varint$/.test(type)) return value
  return JSON.stringify(value)
}

/** The display filter that shows one conversation (a click in Conversations or Statistics). */
export function conversationFilter(id: number): string {
  return `gamewire.conversation == ${id}`
}

/** The conversation a filter made by conversationFilter shows, or null for any other filter (or no possible id). */
export function filteredConversation(filter: string): number | null {
  const m = /^gamewire\.conversation == (\d{1,10})$/.exec(filter)
  const id = m ? Number(m[1]) : 0
  return id >= 1 && id <= 0xffffffff ? id : null
}
