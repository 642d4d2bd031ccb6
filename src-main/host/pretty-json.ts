// Indents compact JSON text without parsing it, so object keys keep the order jsonText wrote them in
// (JSON.parse would move integer-like keys such as Photon parameter codes to the front).

export function prettyJson(compact: string, indent = '  '): string {
  let out = ''
  let depth = 0
  let inString = false
  for (let i = 0; i < compact.length; i++) {
    const c = compact[i]
    if (inString) {
      out += c
      if (c === '\\') out += compact[++i] ?? ''
      else if (c === '"') inString = false
      continue
    }
    switch (c) {
      case '"':
        inString = true
        out += c
        break
      case '{':
      case '[': {
        const close = c === '{' ? '}' : ']'
        if (compact[i + 1] === close) {
          out += c + close
          i++
        } else {
          depth++
          out += c + '\n' + indent.repeat(depth)
        }
        break
      }
      case '}':
      case ']':
        depth--
        out += '\n' + indent.repeat(Math.max(0, depth)) + c
        break
      case ',':
        out += ',\n' + indent.repeat(depth)
        break
      case ':':
        out += ': '
        break
      case ' ':
      case '\n':
      case '\t':
      case '\r':
        break
      default:
        out += c
    }
  }
  return out
}
