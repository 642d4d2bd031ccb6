// IPv4/IPv6 text parsing shared by the filter language (address literals, CIDR) and the key files
// (conversation endpoints). Pure and allocation-light; no Node modules.

/** Parses dotted-quad IPv4 (`10.0.0.1`, no leading `+`, each part 0..255, at most 3 digits). */
export function parseIPv4(s: string): Uint8Array | null {
  const parts = s.split('.')
  if (parts.length !== 4) return null
  const out = new Uint8Array(4)
  for (let i = 0; i < 4; i++) {
    const p = parts[i]
    if (p.length === 0 || p.length > 3 || !/^[0-9]+$/.test(p)) return null
    const n = Number(p)
    if (n > 255) return null
    out[i] = n
  }
  return out
}

/** Parses IPv6 text (`::1`, `fe80::1`, `::ffff:1.2.3.4`, full 8-group form). Brackets and a `%zone` are not accepted here. */
export function parseIPv6(s: string): Uint8Array | null {
  if (s.length < 2 || s.length > 45) return null
  const dbl = s.indexOf('::')
  if (dbl !== -1 && s.indexOf('::', dbl + 1) !== -1) return null
  const groups: number[] = []
  const parseGroups = (part: string, allowV4Tail: boolean): number[] | null => {
    if (part === '') return []
    const items = part.split(':')
    const out: number[] = []
    for (let i = 0; i < items.length; i++) {
      const it = items[i]
      if (allowV4Tail && i === items.length - 1 && it.includes('.')) {
        const v4 = parseIPv4(it)
        if (!v4) return null
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3])
        continue
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(it)) return null
      out.push(parseInt(it, 16))
    }
    return out
  }
  if (dbl === -1) {
    const g = parseGroups(s, true)
    if (g?.length !== 8) return null
    groups.push(...g)
  } else {
    const head = parseGroups(s.slice(0, dbl), false)
    const tail = parseGroups(s.slice(dbl + 2), true)
    if (!head || !tail) return null
    const missing = 8 - head.length - tail.length
    if (missing < 1) return null
    groups.push(...head)
    for (let i = 0; i < missing; i++) groups.push(0)
    groups.push(...tail)
  }
  const out = new Uint8Array(16)
  for (let i = 0; i < 8; i++) {
    out[i * 2] = groups[i] >> 8
    out[i * 2 + 1] = groups[i] & 0xff
  }
  return out
}

/** Parses either family; strips `[...]` brackets around IPv6. */
export function parseIP(s: string): Uint8Array | null {
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1)
  return s.includes(':') ? parseIPv6(s) : parseIPv4(s)
}

/** True when the first `prefix` bits of `a` and `b` are equal (same length required). */
export function prefixEqual(a: Uint8Array, b: Uint8Array, prefix: number): boolean {
  if (a.length !== b.length) return false
  const full = prefix >> 3
  for (let i = 0; i < full; i++) if (a[i] !== b[i]) return false
  const rest = prefix & 7
  if (rest === 0) return true
  const mask = (0xff << (8 - rest)) & 0xff
  return (a[full] & mask) === (b[full] & mask)
}

/**
 * Parses an endpoint `ip:port` (IPv6 as `[addr]:port`) and returns it normalised (IPv6 lowercased),
 * or null when it is not a valid endpoint.
 */
export function parseEndpoint(s: string): { ip: string; port: number; text: string } | null {
  let host: string
  let portText: string
  if (s.startsWith('[')) {
    const close = s.indexOf(']')
    if (close === -1 || s[close + 1] !== ':') return null
    host = s.slice(1, close)
    portText = s.slice(close + 2)
    if (!parseIPv6(host)) return null
    host = host.toLowerCase()
  } else {
    const colon = s.lastIndexOf(':')
    if (colon === -1) return null
    host = s.slice(0, colon)
    portText = s.slice(colon + 1)
    if (!parseIPv4(host)) return null
  }
  if (!/^[0-9]{1,5}$/.test(portText)) return null
  const port = Number(portText)
  if (port > 65535) return null
  const text = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
  return { ip: host, port, text }
}
