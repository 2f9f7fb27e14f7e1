// node scripts/bfcl-oracle/hash-requests.mjs RECORDING.json OUT.json [RESULTS]
// Turns a recording of BFCL's handler (each request body whole) into a fixture that keeps each body's hash, the number
// of scripted replies used and the result's hash: bodies, replies and results carry BFCL's data (questions, function
// docs, recorded results), which stays in ../shared. RESULTS is the recorded results file the script was made from
// (`script.py`), relative to ../shared/bfcl; the test rebuilds the replies from it. Without RESULTS (the agentic
// recordings, whose scripts hold no BFCL data and whose results write answers as `{{answer}}`) results stay as they are. The hash is
// test/helpers/bfcl-requests.ts's `bodyHash`: sha256 of the body's JSON with every object's keys sorted.
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'

const canonical = (v) =>
  Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])])) : v
const bodyHash = (b) => `sha256:${createHash('sha256').update(JSON.stringify(canonical(b))).digest('hex')}`

const [src, dst, results] = process.argv.slice(2)
const { entries: recordedEntries, ...head } = JSON.parse(readFileSync(src, 'utf8'))
const entries = recordedEntries.map((e) =>
  results === undefined
    ? { id: e.id, result: e.result, requests: e.requests.map(bodyHash) }
    : { id: e.id, replies: e.responses.length, requests: e.requests.map(bodyHash), result: bodyHash(e.result) },
)
writeFileSync(dst, `${JSON.stringify(results === undefined ? { ...head, entries } : { ...head, recorded: results, entries }, null, 1)}\n`)
