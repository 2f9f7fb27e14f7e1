/**
 * Optimal one-to-one assignment (Hungarian algorithm, Kuhn-Munkres with potentials): which column each row takes so
 * that the summed weight is as large as possible. Used to align predicted calls with expected ones when their order
 * does not matter. O(n^2 m) for n rows and m columns: call counts are small.
 *
 * Greedy matching (each row in turn takes its best free column) is not enough: a row can take the column another
 * row needed far more, which is how BFCL's order-free checker gives false negatives.
 */

/**
 * For each row, the index of the column assigned to it, or -1 when it gets none (only when there are more rows than
 * columns). Every weight must be finite. Among equally good assignments the result is deterministic.
 */
export function maxWeightAssignment(weights: readonly (readonly number[])[]): number[] {
  const rows = weights.length
  if (rows === 0) return []
  const realCols = Math.max(0, ...weights.map((r) => r.length))
  // Columns beyond the real ones are "no column" (weight 0), so every row can be assigned.
  const cols = Math.max(realCols, rows)
  const cost = (i: number, j: number): number => {
    const w = j < realCols ? weights[i]![j] : undefined
    return w === undefined ? 0 : -w
  }

  // 1-based arrays as in the textbook formulation; index 0 is a virtual column that anchors each augmenting path.
  const u = new Float64Array(rows + 1)
  const v = new Float64Array(cols + 1)
  const rowOfCol = new Int32Array(cols + 1) // 0 = column free
  const prevCol = new Int32Array(cols + 1)
  const minSlack = new Float64Array(cols + 1)
  const used = new Uint8Array(cols + 1)

  for (let row = 1; row <= rows; row++) {
    rowOfCol[0] = row
    let col0 = 0
    minSlack.fill(Infinity)
    used.fill(0)
    do {
      used[col0] = 1
      const row0 = rowOfCol[col0]!
      let delta = Infinity
      let col1 = 0
      for (let j = 1; j <= cols; j++) {
        if (used[j]) continue
        const slack = cost(row0 - 1, j - 1) - u[row0]! - v[j]!
        if (slack < minSlack[j]!) {
          minSlack[j] = slack
          prevCol[j] = col0
        }
        if (minSlack[j]! < delta) {
          delta = minSlack[j]!
          col1 = j
        }
      }
      for (let j = 0; j <= cols; j++) {
        if (used[j]) {
          const r = rowOfCol[j]!
          u[r] = u[r]! + delta
          v[j] = v[j]! - delta
        } else minSlack[j] = minSlack[j]! - delta
      }
      col0 = col1
    } while (rowOfCol[col0] !== 0)
    // Flip the augmenting path.
    do {
      const col1 = prevCol[col0]!
      rowOfCol[col0] = rowOfCol[col1]!
      col0 = col1
    } while (col0 !== 0)
  }

  const out = new Array<number>(rows).fill(-1)
  for (let j = 1; j <= realCols; j++) {
    const row = rowOfCol[j]!
    if (row !== 0) out[row - 1] = j - 1
  }
  return out
}
