// The environment of a benchmark's `vitest run` subprocess: the test run must not think it is a worker of whichever
// run started the benchmark, nor write to GitHub's step summary.
export function childEnv() {
  const env = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('VITEST') || k === 'TEST' || k === 'NODE_ENV' || k === 'GITHUB_STEP_SUMMARY' || k === 'GITHUB_ACTIONS') continue
    env[k] = v
  }
  return { ...env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' }
}
