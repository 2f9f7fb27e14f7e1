/** BFCL's stateless MathAPI (math_api.py): Python's numbers, `decimal` and `mpmath` results as Python prints them. */
import { PyFloat } from '../../python/operations.js'
import { SimulatedApi, m, opt, type ApiMethod } from './api.js'
import {
  PyExc,
  abs,
  add,
  cmp,
  dict,
  eq,
  fl,
  isIntOrFloat,
  iterate,
  mul,
  num,
  pow,
  pySum,
  str,
  sub,
  truediv,
  typeName,
  type Val,
} from '../../python/runtime.js'


/** A value Python prints through its own repr (mpmath's mpf, decimal's Decimal). */
class Printed {
  readonly pyTypeName: string
  constructor(
    readonly text: string,
    typeName: string,
  ) {
    this.pyTypeName = typeName
  }
  pyRepr(): string {
    return this.text
  }
  pyEquals(o: unknown): boolean {
    return o instanceof Printed && o.text === this.text
  }
}

const MAX_SQRT_DIGITS = 100_000

/** `Decimal(x).sqrt()` under a context of `prec` significant digits, printed as Decimal('...'). */
function decimalSqrt(x: number, prec: number): Val {
  if (!Number.isInteger(prec) || prec < 1) throw new PyExc('valid range for prec is [1, MAX_PREC]')
  if (x === 0) return new Printed(`Decimal('0')`, 'Decimal') as unknown as Val
  // Exact binary value of x as n / 2^k, then an integer square root at enough digits, rounded half-even.
  let k = 0
  let v = x
  while (!Number.isInteger(v)) {
    v *= 2
    k++
  }
  const n = BigInt(v)
  // sqrt(n / 2^k) = sqrt(n * 5^k / 10^k)
  let num5 = n * 5n ** BigInt(k)
  let scale = k // value = num5 / 10^scale
  if (scale % 2 === 1) {
    num5 *= 10n
    scale += 1
  }
  const digitsNeeded = prec + 2
  // Each factor of 100 adds exactly one digit to the integer root.
  const extra = Math.max(0, digitsNeeded - String(isqrt(num5)).length)
  const big = num5 * 100n ** BigInt(extra)
  let root = isqrt(big)
  const exact = root * root === big
  const rootDigits = String(root)
  const drop = rootDigits.length - prec
  let exp10 = -(scale / 2) - extra
  if (drop > 0) {
    const div = 10n ** BigInt(drop)
    const q = root / div
    const r = root % div
    const half = div / 2n
    let rounded = q
    if (r > half || (r === half && !exact) || (r === half && exact && q % 2n === 1n)) rounded = q + 1n
    root = rounded
    exp10 += drop
  }
  // Strip trailing zeros only when the result is exact (Decimal's ideal exponent); otherwise keep prec digits.
  let digits = String(root)
  if (exact) {
    while (digits.length > 1 && digits.endsWith('0') && exp10 < -Math.floor(scale / 2) + 0) {
      digits = digits.slice(0, -1)
      exp10++
    }
  }
  return new Printed(`Decimal('${decimalString(digits, exp10)}')`, 'Decimal') as unknown as Val
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n
  // Newton's method from a power of two above the root decreases to floor(sqrt(n)); a double guess overflows past 1e308.
  let x = 1n << BigInt((n.toString(2).length >> 1) + 1)
  for (;;) {
    const y = (x + n / x) >> 1n
    if (y >= x) return x
    x = y
  }
}

/** Decimal's to-scientific-string. */
function decimalString(digits: string, exp: number): string {
  const adjusted = exp + digits.length - 1
  if (exp <= 0 && adjusted >= -6) {
    if (exp === 0) return digits
    const point = digits.length + exp
    return point > 0 ? digits.slice(0, point) + '.' + digits.slice(point) : '0.' + '0'.repeat(-point) + digits
  }
  const mant = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits
  return `${mant}E${adjusted >= 0 ? '+' : ''}${adjusted}`
}

export class MathApi extends SimulatedApi {
  readonly className = 'MathAPI'
  override readonly stateless = true
  loadScenario(): void {}
  state(): [string, Val][] {
    return []
  }

  methods(): Record<string, ApiMethod> {
    const guard = (message: string, fn: () => Val): Val => {
      try {
        return dict([['result', fn()]])
      } catch (e) {
        if (e instanceof PyExc && /unsupported operand|not supported between|bad operand|must be real number/.test(e.message)) return dict([['error', message]])
        throw e
      }
    }
    const list = (v: Val): Val[] => iterate(v)
    return {
      absolute_value: m(['number'], ([n]) => guard('Input must be a number', () => abs(n))),
      add: m(['a', 'b'], ([a, b]) => guard('Both inputs must be numbers', () => add(a, b))),
      divide: m(['a', 'b'], ([a, b]) => {
        if (eq(b, 0)) return dict([['error', 'Cannot divide by zero']])
        return guard('Both inputs must be numbers', () => truediv(a, b))
      }),
      imperial_si_conversion: m(['value', 'unit_in', 'unit_out'], ([value, uin, uout]) => {
        const conv: Record<string, number> = {
          cm_to_in: 0.393701,
          in_to_cm: 2.54,
          m_to_ft: 3.28084,
          ft_to_m: 0.3048,
          m_to_yd: 1.09361,
          yd_to_m: 0.9144,
          km_to_miles: 0.621371,
          miles_to_km: 1.60934,
          kg_to_lb: 2.20462,
          lb_to_kg: 0.453592,
          celsius_to_fahrenheit: 1.8,
          fahrenheit_to_celsius: 5 / 9,
        }
        if (!isIntOrFloat(value)) return dict([['error', 'Value must be a number']])
        if (eq(uin, uout)) return dict([['result', value]])
        const key = `${str(uin)}_to_${str(uout)}`
        if (!Object.hasOwn(conv, key)) return dict([['error', `Conversion from '${str(uin)}' to '${str(uout)}' is not supported`]])
        const c = fl(conv[key]!)
        if (uin === 'celsius' && uout === 'fahrenheit') return dict([['result', add(mul(value, c), 32)]])
        if (uin === 'fahrenheit' && uout === 'celsius') return dict([['result', mul(sub(value, 32), c)]])
        return dict([['result', mul(value, c)]])
      }),
      logarithm: m(['value', 'base', 'precision'], ([value, base, precision]) => {
        try {
          return dict([['result', mpLogRatio(num(value), num(base), num(precision))]])
        } catch (e) {
          return dict([['error', e instanceof Error ? e.message : String(e)]])
        }
      }),
      max_value: m(['numbers'], ([ns]) => {
        const l = list(ns!)
        if (l.length === 0) return dict([['error', 'Cannot find maximum of an empty list']])
        return guard('All elements in the list must be numbers', () => l.reduce((a, b) => (cmp(b, a, '>') ? b : a)))
      }),
      mean: m(['numbers'], ([ns]) => {
        const l = list(ns!)
        if (l.length === 0) return dict([['error', 'Cannot calculate mean of an empty list']])
        return guard('All elements in the list must be numbers', () => truediv(pySum(l), l.length))
      }),
      min_value: m(['numbers'], ([ns]) => {
        const l = list(ns!)
        if (l.length === 0) return dict([['error', 'Cannot find minimum of an empty list']])
        return guard('All elements in the list must be numbers', () => l.reduce((a, b) => (cmp(b, a, '<') ? b : a)))
      }),
      multiply: m(['a', 'b'], ([a, b]) => {
        if (!isIntOrFloat(a) || !isIntOrFloat(b)) return dict([['error', 'Both inputs must be numbers']])
        return dict([['result', mul(a, b)]])
      }),
      percentage: m(['part', 'whole'], ([part, whole]) => {
        if (eq(whole, 0)) return dict([['error', 'Whole value cannot be zero']])
        return guard('Both inputs must be numbers', () => mul(truediv(part, whole), 100))
      }),
      power: m(['base', 'exponent'], ([b, e]) => guard('Both inputs must be numbers', () => pow(b, e))),
      round_number: m(['number', opt('decimal_places', 0)], ([n, places]) =>
        guard('First input must be a number, second input must be an integer', () => pyRound(n!, places!)),
      ),
      si_unit_conversion: m(['value', 'unit_in', 'unit_out'], ([value, uin, uout]) => {
        const to: Record<string, number> = { km: 1000, m: 1, cm: 0.01, mm: 0.001, um: 1e-6, nm: 1e-9 }
        if (!isIntOrFloat(value)) return dict([['error', 'Value must be a number']])
        if (typeof uin !== 'string' || typeof uout !== 'string' || !Object.hasOwn(to, uin) || !Object.hasOwn(to, uout)) {
          return dict([['error', `Conversion from '${str(uin)}' to '${str(uout)}' is not supported`]])
        }
        const factor = (u: string): Val => (Number.isInteger(to[u]!) && u !== 'cm' && u !== 'mm' ? to[u]! : fl(to[u]!))
        return dict([['result', mul(mul(value, factor(uin)), fl(1 / num(factor(uout))))]])
      }),
      square_root: m(['number', 'precision'], ([n, p]) => {
        // Python would compute that many digits (minutes, gigabytes); an error the result names beats a hang.
        if (typeof p === 'number' && p > MAX_SQRT_DIGITS) throw new PyExc(`precision ${p} is beyond this simulation's ${MAX_SQRT_DIGITS} digits`)
        try {
          if (cmp(n, 0, '<')) return dict([['error', 'Cannot calculate square root of a negative number']])
          if (!isIntOrFloat(n) || typeof p !== 'number') throw new PyExc('bad operand')
          return dict([['result', decimalSqrt(num(n), p)]])
        } catch {
          return dict([['error', 'Input must be a number or computation resulted in an invalid operation']])
        }
      }),
      standard_deviation: m(['numbers'], ([ns]) => {
        const l = list(ns!)
        if (l.length === 0) return dict([['error', 'Cannot calculate standard deviation of an empty list']])
        return guard('All elements in the list must be numbers', () => {
          const mean = truediv(pySum(l), l.length)
          const variance = truediv(pySum(l.map((x) => pow(sub(x, mean), 2))), l.length)
          return fl(Math.sqrt(num(variance)))
        })
      }),
      subtract: m(['a', 'b'], ([a, b]) => guard('Both inputs must be numbers', () => sub(a, b))),
      sum_values: m(['numbers'], ([ns]) => {
        const l = list(ns!)
        if (l.length === 0) return dict([['error', 'Cannot calculate sum of an empty list']])
        return guard('All elements in the list must be numbers', () => pySum(l))
      }),
    }
  }
}

/** Python's `round(x, n)`: correctly rounded half-even on the exact binary value; ints stay ints. */
function pyRound(x: Val, places: Val): Val {
  if (!isIntOrFloat(x)) throw new PyExc(`type ${typeName(x)} doesn't define __round__ method`)
  if (typeof places !== 'number' || !Number.isInteger(places)) throw new PyExc(`'${typeName(places)}' object cannot be interpreted as an integer`)
  const v = num(x)
  if (!(x instanceof PyFloat) && Number.isInteger(v) && typeof x !== 'boolean') return places >= 0 ? v : roundInt(v, -places)
  return fl(roundFloat(v, places))
}

// CPython's float_round: beyond these, the answer is x itself or a signed zero, without any arithmetic.
const NDIGITS_MAX = 323
const NDIGITS_MIN = -308

/** `round(float, places)`: the exact binary value scaled by 10^places, rounded half-even, read back correctly rounded. */
export function roundFloat(x: number, places: number): number {
  if (!Number.isFinite(x) || x === 0 || places > NDIGITS_MAX) return x
  if (places < NDIGITS_MIN) return 0 * x
  const [mantissa, twos] = exactBinary(Math.abs(x))
  let numer = twos >= 0 ? mantissa << BigInt(twos) : mantissa
  let denom = twos >= 0 ? 1n : 1n << BigInt(-twos)
  if (places >= 0) numer *= 10n ** BigInt(places)
  else denom *= 10n ** BigInt(-places)
  const q = halfEven(numer, denom)
  const out = Number(`${q}e${-places}`)
  if (!Number.isFinite(out)) throw new PyExc('rounded value too large to represent', 'OverflowError')
  return x < 0 ? -out : out
}

/** `round(int, -digits)`: half-even to a multiple of 10^digits, in exact integers. */
function roundInt(v: number, digits: number): number {
  // A double is below 10^309, so any coarser rounding gives 0 (Python gets there by computing 10**digits).
  if (digits > 330) return 0
  const p = 10n ** BigInt(digits)
  const q = halfEven(BigInt(Math.abs(v)), p) * p
  return (v < 0 ? -1 : 1) * Number(q)
}

/** `numer / denom` rounded half-even (both positive). */
function halfEven(numer: bigint, denom: bigint): bigint {
  const q = numer / denom
  const twice = 2n * (numer - q * denom)
  return twice > denom || (twice === denom && q % 2n === 1n) ? q + 1n : q
}

/** A finite positive double as mantissa * 2^twos, exactly. */
function exactBinary(x: number): [bigint, number] {
  let twos = 0
  let v = x
  while (!Number.isInteger(v)) {
    v *= 2
    twos--
  }
  return [BigInt(v), twos]
}

/**
 * `mpmath.log(value) / mpmath.log(base)` at `mp.dps = precision`, printed as mpf's repr: each step rounded to the
 * working precision in bits, then printed with mpmath's repr digits. Doubles carry the intermediate values, so this
 * is exact up to about 15 digits of precision (the data sets ask for far fewer).
 */
function mpLogRatio(value: number, base: number, dps: number): Val {
  const prec = Math.max(1, Math.round((Math.trunc(dps) + 1) * 3.3219280948873626))
  const r = roundBits(roundBits(Math.log(value), prec) / roundBits(Math.log(base), prec), prec)
  const shown = Math.max(1, Math.round(prec / 3.3219280948873626) - 1)
  const digits = shown === 15 ? 17 : shown + 3
  return new Printed(`mpf('${mpString(r, digits)}')`, 'mpf') as unknown as Val
}

function roundBits(x: number, bits: number): number {
  if (x === 0 || !Number.isFinite(x) || bits >= 53) return x
  const e = Math.floor(Math.log2(Math.abs(x)))
  const scale = 2 ** (bits - 1 - e)
  const y = x * scale
  const fl0 = Math.floor(y)
  const diff = y - fl0
  const r = diff > 0.5 || (diff === 0.5 && fl0 % 2 !== 0) ? fl0 + 1 : fl0
  return r / scale
}

function mpString(x: number, digits: number): string {
  if (x === 0) return '0.0'
  const [mant, expText] = x.toExponential(Math.min(digits, 100) - 1).split('e') as [string, string]
  const exp = Number(expText)
  const neg = mant.startsWith('-')
  let ds = mant.replace('-', '').replace('.', '').replace(/0+$/, '')
  if (ds === '') ds = '0'
  let out: string
  if (exp >= 0 && exp < digits) {
    const ip = ds.slice(0, exp + 1).padEnd(exp + 1, '0')
    const fp = ds.slice(exp + 1)
    out = ip + '.' + (fp === '' ? '0' : fp)
  } else if (exp < 0 && exp > -5) out = '0.' + '0'.repeat(-exp - 1) + ds
  else out = (ds.length > 1 ? ds[0] + '.' + ds.slice(1) : ds + '.0') + 'e' + (exp > 0 ? '+' : '') + exp
  return (neg ? '-' : '') + out
}
