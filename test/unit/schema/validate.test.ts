// The pack validator refuses with the JSON path of the problem and why; a valid pack passes unchanged.
import { describe, expect, it } from 'vitest'
import { parseSchemaPack, SchemaError, validateSchemaPack } from '../../../src-shared/schema/validate'

const base = () => ({
  format: 'gamewire-schema/1',
  name: 'Game',
  photon: {
    events: [
      { code: 1, name: 'A' },
      { code: 2, name: 'B' },
      { code: 3, name: 'C' },
      { code: 4, name: 'D' }
    ],
    operations: [{ code: 1, codeParameter: 253, wireCode: 1, name: 'Move', parameters: { '1': 'itemId' } }]
  }
})

function refusal(mutate: (p: any) => void): string {
  const p = base() as any
  mutate(p)
  try {
    validateSchemaPack(p)
  } catch (e) {
    expect(e).toBeInstanceOf(SchemaError)
    return (e as Error).message
  }
  throw new Error('expected a refusal')
}

describe('schema pack validator', () => {
  it('accepts a valid pack as is', () => {
    const p = base()
    expect(validateSchemaPack(p)).toBe(p)
  })

  it.each([
    ['an event code out of range', (p: any) => (p.photon.events[3].code = 300), '$.photon.events[3].code: expected an integer 0-255, got 300'],
    ['a code that is not an integer', (p: any) => (p.photon.events[0].code = '1'), '$.photon.events[0].code: expected an integer 0-255, got a string'],
    ['the wrong format', (p: any) => (p.format = 'gamewire-schema/2'), '$.format: expected "gamewire-schema/1", got "gamewire-schema/2"'],
    ['a missing name', (p: any) => delete p.name, '$.name: missing'],
    ['an unknown key', (p: any) => (p.photon.evnets = []), '$.photon.evnets: unknown key (allowed: parameters, operations, events, customTypes)'],
    [
      'a parameter code key that is no byte',
      (p: any) => (p.photon.operations[0].parameters = { '256': 'x' }),
      '$.photon.operations[0].parameters["256"]: expected a parameter code 0-255 as the key'
    ],
    [
      'a parameter name that is a number',
      (p: any) => (p.photon.operations[0].parameters = { '1': '5' }),
      '$.photon.operations[0].parameters["1"]: expected a name of letters, digits and _ not starting with a digit (it becomes a filter field), got "5"'
    ],
    ['two parameters with one name', (p: any) => (p.photon.parameters = { '1': 'a', '2': 'a' }), '$.photon.parameters["2"]: name "a" is also parameter 1\'s'],
    ['wireCode without codeParameter', (p: any) => (p.photon.events[1].wireCode = 1), '$.photon.events[1].wireCode: only with codeParameter'],
    ['a duplicate code', (p: any) => (p.photon.events[2].code = 1), '$.photon.events[2].code: duplicate: another entry already has code 1'],
    [
      'a nested struct without fields',
      (p: any) => (p.photon.parameters = { '5': { name: 'blob', nested: { format: 'struct' } } }),
      '$.photon.parameters["5"].nested.fields: missing (a struct needs its fields)'
    ],
    [
      'an unknown nested format',
      (p: any) => (p.photon.parameters = { '5': { name: 'blob', nested: { format: 'json' } } }),
      '$.photon.parameters["5"].nested.format: expected one of protocol16, protocol18, messagepack, struct, got "json"'
    ],
    [
      'a custom type field of an unknown type',
      (p: any) => (p.photon.customTypes = [{ code: 87, name: 'V', fields: [{ name: 'x', type: 'float' }] }]),
      '$.photon.customTypes[0].fields[0].type: expected one of u8, i8, u16, i16, u32, i32, u64, i64, f32, f64, bool, bytes, got "float"'
    ],
    [
      'a bytes field before the last without a length',
      (p: any) =>
        (p.photon.customTypes = [
          {
            code: 87,
            name: 'V',
            fields: [
              { name: 'b', type: 'bytes' },
              { name: 'x', type: 'u8' }
            ]
          }
        ]),
      '$.photon.customTypes[0].fields[0].length: missing (only the last field may take the rest of the bytes)'
    ],
    [
      'an SFS2X param type',
      (p: any) => (p.sfs2x = { extensions: [{ command: 'move', request: { x: 'INTEGER' } }] }),
      '$.sfs2x.extensions[0].request["x"]: expected one of NULL, BOOL, BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, UTF_STRING, BOOL_ARRAY, BYTE_ARRAY, SHORT_ARRAY, INT_ARRAY, LONG_ARRAY, FLOAT_ARRAY, DOUBLE_ARRAY, UTF_STRING_ARRAY, SFS_ARRAY, SFS_OBJECT, CLASS, TEXT, got "INTEGER"'
    ],
    [
      'a FigNet field type the codec does not have',
      (p: any) => (p.fignet = { messages: [{ id: 61000, name: 'M', codec: 'BitBuffer', fields: [{ name: 'f', type: 'float' }] }] }),
      '$.fignet.messages[0].fields[0].type: expected one of byte, bool, short, ushort, int, uint, long, ulong, string, got "float"'
    ],
    [
      'a FigNet id past u16',
      (p: any) => (p.fignet = { messages: [{ id: 70000, name: 'M', codec: 'MemoryPack' }] }),
      '$.fignet.messages[0].id: expected an integer 0-65535, got 70000'
    ],
    ['an empty appliesTo', (p: any) => (p.appliesTo = {}), '$.appliesTo: expected ports or hosts (leave appliesTo out to apply to every conversation)'],
    ['a port of 0', (p: any) => (p.appliesTo = { ports: [5055, 0] }), '$.appliesTo.ports[1]: expected an integer 1-65535, got 0'],
    ['no protocol at all', (p: any) => delete p.photon, '$: expected at least one of photon, sfs2x, fignet']
  ])('refuses %s', (_what, mutate, message) => {
    expect(refusal(mutate)).toBe(message)
  })

  it('refuses text that is not JSON at $', () => {
    expect(() => parseSchemaPack('{"format": ')).toThrow(/^\$: not JSON \(/)
    expect(() => parseSchemaPack('[]')).toThrow('$: expected an object, got an array')
  })
})
