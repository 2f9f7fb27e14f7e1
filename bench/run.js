// `npm run bench`: runs each benchmark script in bench/ in turn, as its own Node process (one at a time: they time
// things, and must not compete for the CPU), passing its output through. BENCH=parse,harness picks a subset.
// The known scripts run in the order below, then any other bench/*.js; a named script that is not there is skipped
// with a note. The exit code is non-zero when any script failed.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const KNOWN = ['parse', 'harness', 'bfcl', 'bfcl-convert', 'bfcl-multi-turn', 'local', 'endpoint', 'html', 'compare']
const here = fileURLToPath(new URL('.', import.meta.url))
const others = readdirSync(here)
  .filter((f) => f.endsWith('.js') && f !== 'run.js')
  .map((f) => f.slice(0, -3))
  .filter((name) => !KNOWN.includes(name))
  .sort()

const wanted = process.env.BENCH ? process.env.BENCH.split(',').map((s) => s.trim()).filter(Boolean) : [...KNOWN, ...others]

let failed = 0
for (const name of wanted) {
  const script = fileURLToPath(new URL(`./${name}.js`, import.meta.url))
  if (!existsSync(script)) {
    console.log(`[bench] ${name}: bench/${name}.js is not there, skipped`)
    continue
  }
  console.log(`[bench] ${name}`)
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, [script], { stdio: 'inherit' })
  const seconds = (Number(process.hrtime.bigint() - t0) / 1e9).toFixed(1)
  if (r.status === 0) console.log(`[bench] ${name}: done in ${seconds}s`)
  else {
    failed++
    console.log(`[bench] ${name}: failed (${r.signal ?? `exit code ${r.status}`}) after ${seconds}s`)
  }
}
process.exit(failed > 0 ? 1 : 0)
