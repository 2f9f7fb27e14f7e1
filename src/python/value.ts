/**
 * Python values as the BFCL checker sees them. JSON loses two facts the checker depends on: whether a number is an
 * int or a float (`3.0` is a float, so not an `integer`), and whether a sequence is a list or a tuple
 * (`(1, 2) != [1, 2]` in Python). PyValue keeps both, and dicts are Maps so key order survives (JavaScript objects
 * put integer-like keys first).
 *
 * - `null` None, `boolean` bool, `string` str
 * - `number`: an int when integral, else a float (non-integral, inf, nan)
 * - `PyFloat`: a float whose value is integral (`3.0`, `1e3`)
 * - `PyValue[]` list, `PyTuple` tuple, `PyDict` (a Map) dict
 */
export class PyFloat {
  constructor(readonly value: number) {}
}

export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

export type PyKey = string | number | boolean | null
export type PyDict = Map<PyKey, PyValue>
export type PyValue = null | boolean | number | string | PyFloat | PyTuple | PyValue[] | PyDict

export function isPyDict(v: unknown): v is PyDict {
  return v instanceof Map
}
