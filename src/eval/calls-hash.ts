/**
 * A short hash of a sample's calls in normalised form, kept in task meta so two runs can tell "the model now calls
 * something else" from "the same calls" without storing the calls of every sample. Normalised: object keys in a
 * stable order, parallel calls as an unordered multiset (sorted), call ids and raw text dropped, numbers written
 * canonically (12 significant digits, so 0.1 + 0.2 equals 0.3 and 1.0 equals 1, -0 equals 0).
 */
import { createHash } from 'node:crypto'
import { stableJson } from '../models/cache.js'

/** Deeper than this, a value is hashed as a marker (model output may nest without end; stableJson copes, this walk caps). */
const MAX_DEPTH = 64

/** A call as compared across runs: its name, whether its arguments were well formed, and its arguments. */
export interface HashableCall {
  name: string
  arguments: unknown
  argumentsValid?: boolean
}

function normalise(value: unknown, depth: number): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? Number(value.toPrecision(12)) + 0 : String(value)
  if (value === null || typeof value !== 'object') return value
  if (depth >= MAX_DEPTH) return '…deep'
  if (Array.isArray(value)) return value.map((v) => normalise(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, { value: normalise((value as Record<string, unknown>)[key], depth + 1), enumerable: true, writable: true, configurable: true })
  }
  return out
}

/** The calls' normalised text (one stable JSON string per call, sorted): what the hash is taken over. */
export function normalisedCalls(calls: readonly HashableCall[]): string[] {
  return calls
    .map((c) => stableJson({ name: c.name, arguments: normalise(c.arguments, 0), valid: c.argumentsValid !== false }))
    .sort()
}

/** 16 hex digits (64 bits) of sha256 over the normalised calls; the same for any order of parallel calls. */
export function callsHash(calls: readonly HashableCall[]): string {
  return createHash('sha256').update(normalisedCalls(calls).join('\n')).digest('hex').slice(0, 16)
}
