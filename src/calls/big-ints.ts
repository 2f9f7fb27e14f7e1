/**
 * Integers beyond 2^53 as written. A JavaScript number cannot hold them exactly (9007199254740993 reads as
 * 9007199254740992), so a call keeps, beside its arguments, the digits of each such integer by JSON Pointer
 * (`ToolCall.bigInts`), and scoring compares those digits exactly (score/nemo.ts `argumentsEqual`).
 *
 * The digits are recovered from the call's raw text rather than by each format's reader: every unsafe integer in
 * the decoded arguments is matched, in order, to an integer literal of the raw text with the same double value.
 * Only texts holding a run of 16 or more digits are walked, so ordinary outputs pay one regular-expression test.
 */
import { toPointer } from './json.js'

const LONG_DIGITS = /\d{16}/
/** An integer literal (no fraction or exponent after it), optionally negative, Python underscores allowed. */
const INT_LITERAL = /(?<![\d.\w])-?\d[\d_]{15,}(?![\d_.eE\w])/g
/** Walks deeper than this are not made (real arguments are never this deep; keeps the walk cheap). */
const MAX_DEPTH = 32

/** JSON Pointer → digits of each integer beyond 2^53 in `value`, read from `raw`; undefined when there is none. */
export function bigIntsIn(value: unknown, raw: string): Record<string, string> | undefined {
  if (raw.length < 16 || !LONG_DIGITS.test(raw)) return undefined
  const literals = new Map<number, string[]>()
  for (const m of raw.matchAll(INT_LITERAL)) {
    const digits = m[0].replace(/_/g, '')
    const n = Number(digits)
    if (Number.isSafeInteger(n)) continue
    const list = literals.get(n)
    if (list) list.push(digits)
    else literals.set(n, [digits])
  }
  if (literals.size === 0) return undefined
  const out: Record<string, string> = {}
  let found = false
  const walk = (v: unknown, path: (string | number)[]): void => {
    if (typeof v === 'number') {
      const digits = literals.get(v)?.shift()
      if (digits !== undefined) {
        out[toPointer(path)] = canonical(digits)
        found = true
      }
    } else if (path.length < MAX_DEPTH && v !== null && typeof v === 'object') {
      if (Array.isArray(v)) v.forEach((item, i) => walk(item, [...path, i]))
      else for (const [k, item] of Object.entries(v)) walk(item, [...path, k])
    }
  }
  walk(value, [])
  return found ? out : undefined
}

/** Digits without leading zeros (`-007` → `-7`), the form compared. */
export function canonical(digits: string): string {
  return BigInt(digits).toString()
}

/** The exact integer a value stands for, as digits, when it is an integer (number or bigint); else undefined. */
export function exactInteger(v: unknown): string | undefined {
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number' && Number.isInteger(v)) return Number.isSafeInteger(v) ? String(v) : BigInt(v).toString()
  return undefined
}
