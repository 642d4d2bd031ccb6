// Names and types are checked as Wireshark checks them: a name that is neither a registered field, a
// protocol/layer, a subtree of fields nor a key of a family the decoders build from the traffic is an
// error with its position, and so is a literal of the wrong type. The decoders' real registry is loaded.

import { describe, expect, it, test } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isKnownKey } from '../../../src-shared/bytes/fields'
import { registerSchemaFields } from '../../../src-shared/schema/set'
import { parseSchemaPack } from '../../../src-shared/schema/validate'
import { compileFilter, FilterError } from '../../../src-shared/filter'
import { FIELD_RE } from '../../../src-shared/filter/lexer'
import type { FieldNode } from '../../../src-shared/model/types'
import { target } from './helpers'
import { committedCaptures, decodeCaptureFile } from '../helpers/captures'

const root = join(__dirname, '../../..')

function error(expr: string): FilterError {
  try {
    compileFilter(expr)
  } catch (e) {
    if (e instanceof FilterError) return e
    throw e
  }
  throw new Error(`expected a FilterError for ${JSON.stringify(expr)}`)
}

describe('unknown names', () => {
  test.each([
    ['photon.nosuch == 1', "'photon.nosuch' at 0 is neither a field nor a protocol", 0, 13],
    ['udp.port == 5055 && !photon.op.cod', "'photon.op.cod' at 21 is neither a field nor a protocol", 21, 34],
    ['photon.param.nosuch', "'photon.param.nosuch' at 0 is neither a field nor a protocol", 0, 19],
    ['udp.srcport == nosuch.port', "'nosuch.port' at 15 is neither a field nor a protocol", 15, 26],
    ['len(sfs2x.nope) > 1', "'sfs2x.nope' at 4 is neither a field nor a protocol", 4, 14],
    ['nosuchproto', "'nosuchproto' at 0 is neither a field nor a protocol", 0, 11]
  ])('%s', (expr, message, start, end) => {
    const e = error(expr)
    expect(e.message).toBe(message)
    expect([e.start, e.end]).toEqual([start, end])
  })

  test('a syntax error is reported before an unknown name', () => {
    expect(error('photon.nosuch == ').message).toBe("expected a value after '==' at 14")
  })

  test.each([
    // registered fields, protocols and layers, subtrees of fields
    'photon.op.code == 253',
    'photon',
    'websocket',
    'enet',
    'litenetlib',
    'http',
    'photon.op',
    'entangle',
    'ip',
    'frame',
    'gamewire',
    'frame.number > 3',
    'tcp.port in {9933 8080}',
    // keys the decoders build from the traffic
    'photon.param.255',
    'photon.param.255 == 1',
    'photon.param.249.foo',
    'photon.param.245.1.2 == 3',
    'photon.value.x',
    'photon.message.1',
    'sfs2x.p.p.un == "alice"',
    'sfs2x.p.c[0:2] == "mo"',
    'sfs2x.p'
  ])('%s is accepted', (expr) => {
    expect(() => compileFilter(expr)).not.toThrow()
  })

  test('anyField compiles made-up names (for synthetic targets)', () => {
    expect(compileFilter('photon.nosuch == 1', { anyField: true }).matches(target({ 'photon.nosuch': [1] }))).toBe(true)
  })
})

describe('type mismatches', () => {
  test.each([
    ['frame.number > "abc"', 'frame.number (u32) cannot be compared with the string "abc" at 15', 15, 20],
    ['photon.op.code == "NoSuchOperation"', 'photon.op.code (u8) cannot be compared with the string "NoSuchOperation" at 18', 18, 35],
    ['gamewire.name == 5', 'gamewire.name (string) cannot be compared with the number 5 at 17', 17, 18],
    ['gamewire.direction == true', 'gamewire.direction (string) cannot be compared with the boolean true at 22', 22, 26],
    ['photon.encrypted == "yes"', 'photon.encrypted (bool) cannot be compared with the string "yes" at 20', 20, 25],
    ['udp.port in {5055 "x"}', 'udp.port (u16) cannot be compared with the string "x" at 18', 18, 21],
    ['udp.port == aa:bb:cc', 'udp.port (u16) cannot be compared with the byte string aa:bb:cc at 12', 12, 20],
    ['len(gamewire.name) == "x"', 'gamewire.name (number) cannot be compared with the string "x" at 22', 22, 25],
    ['udp.srcport == gamewire.name', 'udp.srcport (u16) cannot be compared with gamewire.name (string) at 15', 15, 28],
    ['sfs2x.decrypted == 1000', 'sfs2x.decrypted (bytes) cannot be compared with the number 1000 at 19', 19, 23]
  ])('%s', (expr, message, start, end) => {
    const e = error(expr)
    expect(e.message).toBe(message)
    expect([e.start, e.end]).toEqual([start, end])
  })

  test('what the types allow still compiles and matches', () => {
    const t = target({
      'photon.op.code': [253],
      'gamewire.name': ['RaiseEvent'],
      'photon.encrypted': [true],
      'sfs2x.decrypted': [new Uint8Array([0x12, 0x41])]
    })
    const m = (e: string) => compileFilter(e).matches(t)
    // a quoted value name of a field with named values is that value
    expect(m('photon.op.code == "RaiseEvent"')).toBe(true)
    expect(m('photon.op.code == "JoinGame"')).toBe(false)
    expect(m('photon.op.code == RaiseEvent && photon.op.code in {252..253}')).toBe(true)
    expect(m('gamewire.name == "RaiseEvent" && gamewire.name == RaiseEvent')).toBe(true)
    expect(m('photon.encrypted == true && photon.encrypted == 1')).toBe(true)
    // byte arrays take byte strings, a byte-like number and strings
    expect(m('sfs2x.decrypted == 12:41 && sfs2x.decrypted[0] == 12 && sfs2x.decrypted contains "A"')).toBe(true)
    expect(m('len(gamewire.name) == 10 && lower(gamewire.name) == "raiseevent"')).toBe(true)
    // untyped keys (dynamic, protocols) compare with anything, strictly at run time
    expect(compileFilter('photon.param.255 == "x" || photon.param.255 == 3').matches(target({ 'photon.param.255': [3] }))).toBe(true)
  })
})

describe('every key the decoders put in a tree is a known name', () => {
  // The oracle is the traffic: every tree key of every committed capture, decoded with the UI keys.
  it('on every committed capture', () => {
    const keys = new Map<string, string>()
    for (const file of committedCaptures()) {
      const walk = (nodes: FieldNode[]) => {
        for (const n of nodes) {
          if (n.key && !keys.has(n.key)) keys.set(n.key, file)
          if (n.children) walk(n.children)
        }
      }
      decodeCaptureFile(file, { recording: true, onMessage: (m) => walk(m.tree) })
    }
    // dynamic families must be exercised, not only registered fields
    for (const k of ['photon.param.255', 'sfs2x.p.p.un']) expect(keys.has(k)).toBe(true)
    const unknown = [...keys.keys()].filter((k) => !isKnownKey(k))
    expect(unknown).toEqual([])
    // and each one compiles as a filter (when the lexer reads it as one field name)
    for (const k of keys.keys()) if (FIELD_RE.test(k)) expect(() => compileFilter(k), k).not.toThrow()
  }, 120_000)
})

describe('filters in the documentation compile', () => {
  /** The contents of the fenced code blocks without a language (```sh and ```sql blocks are not filters). */
  const blocks = (text: string) => {
    const out: string[] = []
    let open: string[] | null = null
    let language = ''
    for (const line of text.split('\n')) {
      if (line.startsWith('```')) {
        if (open && !language) out.push(open.join('\n'))
        if (!open) language = line.slice(3).trim()
        open = open ? null : []
      } else open?.push(line)
    }
    return out
  }
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const docs = readFileSync(join(root, 'docs/filter-language.md'), 'utf8')
  // README: the code blocks of filters (not shell, not key files), `--filter '...'`, and the first column of
  // the Display filters section's table of what filters cost
  const costTable = [...readme.matchAll(/^\| `([^`]+)` \| [\d,]+ \|/gm)].map((m) => m[1])
  const fromReadme = [
    ...blocks(readme)
      .filter((b) => !/npx|npm|PHOTON_|^\s*#/m.test(b))
      .flatMap((b) => b.split('\n')),
    ...[...readme.matchAll(/^(?!.*--schema).*--filter '([^']+)'/gm)].map((m) => m[1]),
    ...costTable
  ]
  // Filters shown with a schema pack name its fields: they compile with that pack loaded, and not without.
  const withPack = [...readme.matchAll(/--schema (\S+) --filter '([^']+)'/g)].map((m) => [m[1], m[2]] as const)
  // docs: the first block (examples) and the slices block; the errors block is invalid on purpose
  const docBlocks = blocks(docs)
  const fromDocs = [...docBlocks[0].split('\n'), ...docBlocks.filter((b) => b.includes('[0:2]')).flatMap((b) => b.split('\n'))]
  const all = [...fromReadme, ...fromDocs].map((l) => l.trim()).filter(Boolean)

  it('finds them', () => {
    expect(all).toEqual(
      expect.arrayContaining([
        'photon.op.code == 253 && photon.param.244 == 22',
        'sfs2x.action == 1 && sfs2x.p.p.un == "alice"',
        'fignet.payload[0:2] == 01:00'
      ])
    )
    expect(costTable).toEqual(expect.arrayContaining(['frame.len > 1000', 'entangle.transform.x > 20', 'ip.ttl == 64']))
  })

  test.each(withPack)('with %s: %s', (pack, expr) => {
    registerSchemaFields([parseSchemaPack(readFileSync(join(root, pack), 'utf8'))])
    try {
      expect(() => compileFilter(expr)).not.toThrow()
    } finally {
      registerSchemaFields([])
    }
    expect(() => compileFilter(expr)).toThrow()
  })

  test.each(all)('%s', (expr) => {
    expect(() => compileFilter(expr)).not.toThrow()
  })
})
