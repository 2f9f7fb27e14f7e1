/**
 * Python's `math.log(x)` (one argument) to the last bit. CPython calls the C library's `log`, which glibc computes
 * correctly rounded in practice; V8's `Math.log` (fdlibm) is off by one unit in the last place for about one input
 * in twelve (`Math.log(3)` is 1.0986122886681096, Python's `math.log(3)` 1.0986122886681098). Here the logarithm is
 * computed in 160-bit fixed point (exact integer arithmetic) and rounded to the nearest double, ties to even.
 */
import { PyExc } from './runtime.js'

const P = 160n
const ONE = 1n << P

/** `2 * atanh(z)` in fixed point (z scaled by 2^P, |z| well below 1): `2 * (z + z^3/3 + z^5/5 + ...)`. */
function twiceAtanh(z: bigint): bigint {
  const z2 = (z * z) >> P
  let power = z
  let sum = z
  for (let k = 3n; ; k += 2n) {
    power = (power * z2) >> P
    const term = power / k
    if (term === 0n) break
    sum += term
  }
  return 2n * sum
}

let ln2: bigint | undefined
/** ln 2 = 2 * atanh(1/3), scaled by 2^P. */
const LN2 = (): bigint => (ln2 ??= twiceAtanh(ONE / 3n))
// 1.4142135... scaled by 2^P (any split point works; this one keeps the series' argument below 0.172).
const SQRT2 = (ONE * 14142135623730951n) / 10000000000000000n

/** The double nearest to `v / 2^P` (ties to even). */
function roundFixed(v: bigint): number {
  if (v === 0n) return 0
  const negative = v < 0n
  const a = negative ? -v : v
  const bits = a.toString(2).length
  let q = a
  let shift = 0
  if (bits > 53) {
    shift = bits - 53
    q = a >> BigInt(shift)
    const rest = a - (q << BigInt(shift))
    const half = 1n << BigInt(shift - 1)
    if (rest > half || (rest === half && (q & 1n) === 1n)) q += 1n
  }
  const x = Number(q) * 2 ** (shift - Number(P))
  return negative ? -x : x
}

/** Python's `math.log(x)` for a float or int value `x` (see the module comment). */
export function pyLog(x: number): number {
  if (Number.isNaN(x)) return x
  if (x <= 0) throw new PyExc('math domain error')
  if (x === Infinity) return x
  // x = mantissa * 2^exponent with a 53-bit integer mantissa, read from the double's bits.
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, x)
  const hi = view.getUint32(0)
  const lo = view.getUint32(4)
  const biased = (hi >>> 20) & 0x7ff
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo)
  let exponent: number
  if (biased === 0) exponent = -1074 // subnormal: no hidden bit
  else {
    mantissa |= 1n << 52n
    exponent = biased - 1075
  }
  // Normalise to m in [1, 2) (scaled by 2^P) times 2^e.
  const width = mantissa.toString(2).length
  let m = mantissa << (P - BigInt(width - 1))
  let e = exponent + width - 1
  if (m > SQRT2) {
    m >>= 1n
    e += 1
  }
  // ln x = e ln 2 + ln m, ln m = 2 atanh((m - 1) / (m + 1)).
  const z = ((m - ONE) << P) / (m + ONE)
  return roundFixed(BigInt(e) * LN2() + twiceAtanh(z))
}
