/**
 * Scoring `format_sensitivity` results as BFCL does (gorilla 8db0b7ca, `eval_runner.format_sensitivity_runner`):
 * each result id `format_sensitivity_<n>:<config>:<original id>` is decoded under its configuration's return format
 * and tag (`format-decode.ts`) and checked by the AST checker against the original entry's functions and possible
 * answers (Python rules); then per configuration its accuracy, counts, and across configurations the max delta,
 * variance and standard deviation in percentage points, as BFCL rounds them (`round(x, 2)`, statistics' exact
 * variance and correctly rounded square root). The score file's header carries them in BFCL's key order; failing
 * entries follow (without BFCL's `prompt`).
 */
import { compareIds } from './categories.js'
import { loadCategoryData, loadCategoryResults, type BfclCategoryData } from './files.js'
import { decodeFormatted } from './format-decode.js'
import { parsePromptFormat } from './format-config.js'
import { INPUT_ERROR, scoreDecoded, scoreFileEntry, type BfclScoredEntry } from './score.js'
import { PyFloat, pyJsonDumps, type PyDict, type PyValue } from '../../python/operations.js'

export const UNSUPPORTED_XML = 'format_sensitivity:unsupported_xml'

export interface FormatSensitivityScore {
  accuracy: number
  correct_count: number
  total_count: number
  /** Per configuration, in the order first seen (BFCL's). */
  configs: Map<string, { correct: number; total: number }>
  maxDelta: number
  variance: number
  std: number
  errors: string[]
  scoreFile: string
}

// --- exact arithmetic for statistics.variance / stdev and round(x, 2) -----------------------------------------

type Frac = [bigint, bigint]

/** A finite double's exact value as a fraction. */
function exact(x: number): Frac {
  if (x === 0) return [0n, 1n]
  const buf = new DataView(new ArrayBuffer(8))
  buf.setFloat64(0, x)
  const bits = buf.getBigUint64(0)
  const sign = bits >> 63n ? -1n : 1n
  const e = Number((bits >> 52n) & 0x7ffn)
  let m = bits & ((1n << 52n) - 1n)
  let exp = e - 1075
  if (e === 0) exp = -1074
  else m |= 1n << 52n
  return exp >= 0 ? [sign * (m << BigInt(exp)), 1n] : [sign * m, 1n << BigInt(-exp)]
}

const bitLength = (n: bigint) => (n === 0n ? 0 : n.toString(2).length)

/** The nearest double to `q * 2**shift` (q a positive integer, `sticky` set when bits below q were dropped). */
function roundBits(q: bigint, shift: number, sticky: boolean): number {
  const extra = bitLength(q) - 53
  if (extra > 0) {
    const low = q & ((1n << BigInt(extra)) - 1n)
    let top = q >> BigInt(extra)
    const half = 1n << BigInt(extra - 1)
    if (low > half || (low === half && (sticky || (top & 1n) === 1n))) top += 1n
    return Number(top) * 2 ** (shift + extra)
  }
  return Number(q) * 2 ** shift
}

/** `float(Fraction(p, q))`, correctly rounded (p >= 0, q > 0). */
function toFloat([p, q]: Frac): number {
  if (p === 0n) return 0
  const shift = bitLength(q) - bitLength(p) + 55
  const n = shift >= 0 ? p << BigInt(shift) : p
  const d = shift >= 0 ? q : q << BigInt(-shift)
  return roundBits(n / d, -shift, n % d !== 0n)
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n
  let x = 1n << BigInt(Math.ceil(bitLength(n) / 2))
  for (;;) {
    const y = (x + n / x) >> 1n
    if (y >= x) return x
    x = y
  }
}

/** `_float_sqrt_of_frac(p, q)`: the square root of p/q, correctly rounded. */
function sqrtFrac([p, q]: Frac): number {
  if (p === 0n) return 0
  // Scale by 4**k so the integer square root has at least 55 bits.
  const k = Math.max(0, Math.ceil((110 - (bitLength(p) - bitLength(q))) / 2))
  const n = (p << BigInt(2 * k)) / q
  const r = isqrt(n)
  const sticky = r * r !== n || (p << BigInt(2 * k)) % q !== 0n
  return roundBits(r, -k, sticky)
}

/** Python's `round(x, 2)`: the exact value of x, to 2 decimals, ties to even. */
export function round2(x: number): number {
  if (!Number.isFinite(x)) return x
  const [p, q] = exact(x)
  const neg = p < 0n
  const num = (neg ? -p : p) * 100n
  let n = num / q
  const r = num % q
  if (2n * r > q || (2n * r === q && n % 2n === 1n)) n += 1n
  const v = Number(`${n}e-2`)
  return neg ? -v : v
}

/** statistics.variance and stdev of doubles, exactly as Python computes them. */
export function varianceAndStd(xs: readonly number[]): { variance: number; std: number } {
  const n = BigInt(xs.length)
  const fr = xs.map(exact)
  // Common denominator: the doubles here are accuracies (dyadic), so one power of two.
  const den = fr.reduce((a, [, q]) => (q > a ? q : a), 1n)
  const nums = fr.map(([p, q]) => p * (den / q))
  const sum = nums.reduce((a, b) => a + b, 0n)
  // ss = Σ (x - mean)² = Σ (n·x - sum)² / (n²·den²)
  const ss = nums.reduce((a, x) => a + (n * x - sum) ** 2n, 0n)
  const mss: Frac = [ss, n * n * den * den * (n - 1n)]
  return { variance: toFloat(mss), std: sqrtFrac(mss) }
}

const float = (x: number): PyValue => (Number.isInteger(x) ? new PyFloat(x) : x)

function inputError(id: string, message: string, result?: PyValue): BfclScoredEntry {
  const e: BfclScoredEntry = { id, valid: false, error: [message], error_type: INPUT_ERROR, format: 'prompting' }
  if (result !== undefined) e.result = result
  return e
}

export async function scoreFormatSensitivityCategory(dataDir: string, resultsDir: string, modelName: string): Promise<FormatSensitivityScore> {
  const errors: string[] = []
  const results = await loadCategoryResults(resultsDir, 'format_sensitivity')
  errors.push(...results.errors)
  const data = new Map<string, BfclCategoryData>()
  const lines = results.results.slice().sort((a, b) => compareIds(a.id ?? '', b.id ?? ''))
  const configs = new Map<string, { correct: number; total: number }>()
  const entries: BfclScoredEntry[] = []
  for (const line of lines) {
    const id = line.id ?? '(no id)'
    if (!('result' in line)) {
      errors.push(line.error)
      entries.push(inputError(id, line.error))
      continue
    }
    const parts = id.split(':')
    const format = parts.length === 3 ? parsePromptFormat(parts[1]!) : undefined
    if (format === undefined) {
      const message = `${id}: not a format-sensitivity id (format_sensitivity_<n>:<config>:<original id>)`
      errors.push(message)
      entries.push(inputError(id, message, line.result))
      continue
    }
    const config = parts[1]!
    const stats = configs.get(config) ?? { correct: 0, total: 0 }
    configs.set(config, stats)
    stats.total++
    const original = parts[2]!
    const category = original.slice(0, original.lastIndexOf('_'))
    let d = data.get(category)
    if (d === undefined) {
      d = await loadCategoryData(dataDir, category)
      errors.push(...d.errors)
      data.set(category, d)
    }
    const test = d.entries.get(original)
    const truth = d.answers?.get(original)
    if (test === undefined || truth === undefined) {
      const message = `${id}: no entry or possible answer ${original} in ${category}`
      errors.push(message)
      entries.push(inputError(id, message, line.result))
      continue
    }
    const decoded = decodeFormatted(line.result, format.returnFormat, format.toolCallTag)
    let scored: BfclScoredEntry
    if (!decoded.ok && 'unsupported' in decoded) {
      errors.push(`${id}: not scored as BFCL would: ${decoded.error}`)
      scored = { id, valid: false, error: [decoded.error], error_type: UNSUPPORTED_XML, format: 'prompting' }
    } else scored = { ...scoreDecoded({ category, id, functions: test.functions, groundTruth: truth }, decoded) }
    scored.result = line.result
    scored.groundTruth = truth
    if (scored.valid) stats.correct++
    entries.push(scored)
  }
  const correct = entries.filter((e) => e.valid).length
  const total = entries.length
  const accs = [...configs.values()].map((s) => s.correct / s.total)
  let variance = 0
  let std = 0
  let maxDelta = 0
  if (accs.length > 1) {
    const v = varianceAndStd(accs)
    variance = round2(v.variance * 100 ** 2)
    std = round2(v.std * 100)
    maxDelta = round2((Math.max(...accs) - Math.min(...accs)) * 100)
  }
  const accuracy = total === 0 ? 0 : correct / total
  const header: PyDict = new Map<string, PyValue>([
    ['accuracy', float(accuracy)],
    ['correct_count', correct],
    ['total_count', total],
    ['accuracy_max_delta', new PyFloat(maxDelta)],
    ['accuracy_variance', new PyFloat(variance)],
    ['accuracy_std', new PyFloat(std)],
  ])
  for (const [config, s] of configs) {
    header.set(config, new Map<string, PyValue>([['accuracy', float(s.correct / s.total)], ['correct_count', s.correct], ['total_count', s.total]]))
  }
  const failing = entries.filter((e) => !e.valid).map((e) => pyJsonDumps(scoreFileEntry('format_sensitivity', modelName, e)))
  return { accuracy, correct_count: correct, total_count: total, configs, maxDelta, variance, std, errors, scoreFile: [pyJsonDumps(header), ...failing].join('\n') + '\n' }
}
