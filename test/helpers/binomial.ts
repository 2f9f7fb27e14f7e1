/** P(X >= k), X ~ Binomial(n, 1/2), written out independently of the code under test (an oracle for sign tests). */
export function binomialTailHalf(k: number, n: number): number {
  let c = 1
  let sum = 0
  for (let i = 0; i <= n; i++) {
    if (i >= k) sum += c
    c = (c * (n - i)) / (i + 1)
  }
  return sum / 2 ** n
}
