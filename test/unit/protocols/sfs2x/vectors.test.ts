// Every vector the official SDK (sfs2x-api 1.8.6) produced decodes to exactly its `expect`.
import { describe, it, expect } from 'vitest'
import { FieldReader } from '../../../../src-shared/bytes/reader'
import { TreeBuilder } from '../../../../src-shared/bytes/tree'
import { jsonSafe } from '../../../../src-shared/export/json'
import { decodeSfs } from '../../../../src-shared/protocols/sfs2x/sfsobject'
import type { Sfs2xValue } from '../../../../src-shared/protocols/sfs2x'
import { harness, hex, loadVectors, unhex } from './helpers'

const vectors = loadVectors()

describe('SDK vectors', () => {
  it('are all there (54, of every kind)', () => {
    expect(vectors.length).toBe(54)
    expect(new Set(vectors.map((v) => v.kind))).toEqual(new Set(['sfs_object', 'sfs_array', 'packet']))
  })

  for (const v of vectors.filter((v) => v.kind !== 'packet')) {
    it(`${v.name} decodes to its expect (tree and row pass)`, () => {
      for (const recording of [true, false]) {
        const bytes = unhex(v.hex)
        const res = decodeSfs(new FieldReader(bytes, new TreeBuilder(recording), 0), 'Body')
        expect(res.error).toBeNull()
        expect(res.end).toBe(bytes.length)
        expect(jsonSafe(res.value)).toEqual(v.expect)
        // wire key order is kept
        if (v.expect.type === 'SFS_OBJECT') expect([...(res.value!.value as Map<string, unknown>).keys()]).toEqual(Object.keys(v.expect.value))
      }
    })
  }

  for (const v of vectors.filter((v) => v.kind === 'packet')) {
    it(`${v.name} decodes to its expect`, () => {
      const h = harness()
      const { m, draft } = h.decode(unhex(v.hex), v.direction === 's2c' ? 'b2a' : 'a2b')
      expect(draft.error).toBeNull()
      expect(draft.warnings).toEqual([])
      const value = m.value as Sfs2xValue
      const got: Record<string, unknown> = {
        header: {
          byte: value.header!.byte,
          binary: value.header!.binary,
          encrypted: value.header!.encrypted,
          compressed: value.header!.compressed,
          blueBox: value.header!.blueBoxed,
          bigSized: value.header!.bigSized
        },
        length: value.length
      }
      if ('zlibHeaderHex' in v.expect) got.zlibHeaderHex = value.zlibHeaderHex
      if ('uncompressedLength' in v.expect) got.uncompressedLength = value.uncompressedLength
      if ('uncompressedBodyHex' in v.expect) got.uncompressedBodyHex = hex(draft.sources.find((s) => s.name.startsWith('Decompressed body'))!.bytes)
      got.body = jsonSafe(value.body)
      expect(got).toEqual(v.expect)
      expect(value.header!.forward).toBe(false)
      expect(value.transforms).toEqual(value.header!.compressed ? ['zlib'] : [])
      // the contract's envelope names
      const c = v.expect.body.value.c.value
      const a = v.expect.body.value.a.value
      expect(value.controllerId).toBe(c)
      expect(value.actionId).toBe(a)
      expect(value.controller).toBe(c === 0 ? 'System' : 'Extension')
      expect(m.name).toBe(value.action)
      if (c === 1) expect(value.command).toBe(v.expect.body.value.p.value.c.value)
      else expect(value.command).toBeNull()
    })
  }

  it('packets decode the same without a tree (row pass)', () => {
    for (const v of vectors.filter((v) => v.kind === 'packet')) {
      const withTree = harness().decode(unhex(v.hex))
      const rows = harness({ recording: false }).decode(unhex(v.hex))
      expect(rows.m.draft.tree.roots).toEqual([])
      expect(jsonSafe(rows.m.value)).toEqual(jsonSafe(withTree.m.value))
      expect([rows.m.name, rows.m.summary]).toEqual([withTree.m.name, withTree.m.summary])
    }
  })

  it('names and summarises the session', () => {
    const h = harness()
    const rows = vectors
      .filter((v) => v.name.startsWith('session/'))
      .map((v) => {
        const { m } = h.decode(unhex(v.hex), v.direction === 'c2s' ? 'a2b' : 'b2a')
        return [m.name, m.summary]
      })
    expect(rows).toEqual([
      ['Handshake', 'Handshake api=1.8.6 cl=JavaScript'],
      // once the Handshake named the client, what the server sends is named as its response
      ['HandshakeResponse', 'HandshakeResponse tk=0f1e2d3c4b5a69788796a5b4c3d2e1f0 ct=1024 ms=500000'],
      ['Login', 'Login zone=TestZone user=alice'],
      ['LoginResponse', 'LoginResponse zone=TestZone user=alice id=7'],
      ['CallExtension', 'CallExtension move room=3'],
      ['ExtensionResponse', 'ExtensionResponse move'],
      ['CallExtension', 'CallExtension bulk room=-1'],
      ['ExtensionResponse', 'ExtensionResponse bulk'],
      ['PingPong', 'PingPong'],
      ['PingPongResponse', 'PingPongResponse'],
      ['Logout', 'Logout'],
      ['LogoutResponse', 'LogoutResponse zn=TestZone']
    ])
    // the Handshake request names its sender the client, the response (its token) and the Login request
    // (its password) say the same; the other packets say nothing about the roles
    expect(h.clients).toEqual(['a2b', 'a2b', 'a2b'])
  })
})
