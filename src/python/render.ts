/** Plain (JSON-like) values and calls written as Python source. */
import { pyFloatRepr, pyStrRepr } from './repr.js'

const IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u

/**
 * A JSON-like value as a Python literal: `True`/`False`/`None`, `repr` strings, `[...]`, `{'k': v}`. Integral
 * numbers are written as ints (JavaScript cannot tell `3.0` from `3`); non-finite numbers as `None`.
 */
export function renderPythonValue(value: unknown): string {
  if (value === null || value === undefined) return 'None'
  if (value === true) return 'True'
  if (value === false) return 'False'
  if (typeof value === 'string') return pyStrRepr(value)
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'None'
    return Number.isSafeInteger(value) ? String(value) : pyFloatRepr(value)
  }
  if (typeof value === 'bigint') return value.toString()
  if (Array.isArray(value)) return '[' + value.map(renderPythonValue).join(', ') + ']'
  if (typeof value === 'object') {
    return (
      '{' +
      Object.entries(value as Record<string, unknown>)
        .map(([k, v]) => `${pyStrRepr(k)}: ${renderPythonValue(v)}`)
        .join(', ') +
      '}'
    )
  }
  return pyStrRepr(String(value))
}

/**
 * `name(key=value, ...)`. Keys that are not identifiers go in a trailing `**{'key': value}`, which the parser reads
 * back as keywords.
 */
export function renderPythonCall(name: string, args: Record<string, unknown>): string {
  const plain: string[] = []
  const other: string[] = []
  for (const [k, v] of Object.entries(args)) {
    if (IDENTIFIER.test(k)) plain.push(`${k}=${renderPythonValue(v)}`)
    else other.push(`${pyStrRepr(k)}: ${renderPythonValue(v)}`)
  }
  if (other.length > 0) plain.push(`**{${other.join(', ')}}`)
  return `${name}(${plain.join(', ')})`
}
