// round3Text builds a summary's 3-decimal text from the integer thousandths (fast path) and falls back to
// String for huge and non-finite values: both must print exactly what String(Math.round(v * 1000) / 1000)
// prints, the text summaries showed before.
import { describe, expect, it } from 'vitest'
import { round3Text } from '../../../../src-shared/protocols/fignet/typed'
import { rng } from '../../helpers/rng'

const reference = (v: number) => String(Math.round(v * 1000) / 1000)
const f32 = (v: number) => Math.fround(v)

describe('round3Text', () => {
  it('prints edge values as String does (fast path and fallback)', () => {
    const values = [
      0,
      -0,
      0.0004,
      -0.0004,
      0.0005,
      -0.0005,
      -0.0006,
      0.001,
      -0.001,
      0.01,
      0.1,
      0.5,
      1,
      -1,
      1.5,
      -1.5,
      2.345,
      -2.345,
      10.1,
      100.25,
      999.999,
      1000,
      12345.678,
      -12345.678,
      32.767,
      -32.768,
      3276.7,
      0.1 + 0.2,
      1e11 + 0.123,
      999999999999.999,
      -999999999999.999,
      // fallback: at or past 1e12, non-finite
      1e12,
      -1e12,
      1e12 + 0.5,
      123456789012345.67,
      1e20,
      1e21,
      1e300,
      -1e300,
      3.4028234663852886e38,
      Number.MAX_VALUE,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      Number.NaN
    ]
    for (const v of values) expect(round3Text(v), String(v)).toBe(reference(v))
  })

  it('prints shorts over their precision scale and random float32 positions as String does', () => {
    const wrong: string[] = []
    const check = (v: number) => {
      if (round3Text(v) !== reference(v)) wrong.push(`${v}: ${round3Text(v)} vs ${reference(v)}`)
    }
    for (const scale of [1000, 100, 10]) for (let raw = -32768; raw <= 32767; raw++) check(raw / scale)
    const next = rng(7)
    for (let i = 0; i < 200_000; i++) check(f32((next() * 2 - 1) * 10 ** Math.floor(next() * 16 - 4)))
    expect(wrong.slice(0, 5)).toEqual([])
  })
})
