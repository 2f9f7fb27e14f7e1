// node scripts/bfcl-oracle/hash-requests.mjs RECORDED.json OUT.json
// Turns a recording of BFCL's handler (each request body whole) into a fixture that keeps each body's hash: the bodies
// carry BFCL's data (questions, function docs), which stays in ../shared. The hash is test/helpers/bfcl-requests.ts's
// `bodyHash`: sha256 of the body's JSON with every object's keys sorted.
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'

const canonical = (v) =>
  Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])])) : v
const bodyHash = (b) => `sha256:${createHash('sha256').update(JSON.stringify(canonical(b))).digest('hex')}`

const [src, dst] = process.argv.slice(2)
const recorded = JSON.parse(readFileSync(src, 'utf8'))
const entries = recorded.entries.map((e) => ({ id: e.id, responses: e.responses, result: e.result, requests: e.requests.map(bodyHash) }))
writeFileSync(dst, `${JSON.stringify({ ...recorded, entries }, null, 1)}\n`)
