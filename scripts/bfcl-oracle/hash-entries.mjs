// node scripts/bfcl-oracle/hash-entries.mjs RECORDED.json OUT.json: a recording of many entries kept as, per entry, its
// id, request count and one sha256 of its body hashes (one a line); one sha256 of the results (JSON lines of
// {id, result}); the memory snapshots; and BFCL's score header with its failing entries as a count by error type and
// one sha256 of their `id<TAB>error_type` lines; and where BFCL's evaluate wrote the score file (`score_path`, under score/).
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'

const canonical = (v) => (Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])])) : v)
const bodyHash = (b) => `sha256:${createHash('sha256').update(JSON.stringify(canonical(b))).digest('hex')}`
const sha = (text) => createHash('sha256').update(text).digest('hex')
const [src, dst] = process.argv.slice(2)
const r = JSON.parse(readFileSync(src, 'utf8'))
const entries = r.entries.map((e) => ({ id: e.id, n: e.requests.length, sha256: sha(e.requests.map(bodyHash).join('\n')) }))
const results = sha(r.entries.map((e) => JSON.stringify({ id: e.id, result: e.result })).join('\n'))
const { failing: list, path, ...score } = r.score
const byType = {}
for (const [, t] of list) byType[t] = (byType[t] ?? 0) + 1
const failing = { count: list.length, by_type: byType, sha256: sha(list.map(([i, t]) => `${i}\t${t}`).join('\n')) }
writeFileSync(dst, JSON.stringify({ category: r.category, mode: r.mode, model: r.model, limit: r.limit, entries, results, snapshots: r.snapshots, score, score_path: path, failing }, null, 1) + '\n')
