// node scripts/bfcl-oracle/hash-groups.mjs RECORDED.json OUT.json: a recording of many requests kept as one hash per
// original entry (sha256 of its 26 body hashes, one a line), with BFCL's score header and its failing entries as a count
// by error type and one sha256 of their `id<TAB>error_type` lines.
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
const canonical = (v) => Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])])) : v
const bodyHash = (b) => `sha256:${createHash('sha256').update(JSON.stringify(canonical(b))).digest('hex')}`
const [src, dst] = process.argv.slice(2)
const r = JSON.parse(readFileSync(src, 'utf8'))
const hashes = r.entries.flatMap((e) => e.requests.map(bodyHash))
const groups = []
for (let g = 0; g * 26 < hashes.length; g++) groups.push(createHash('sha256').update(hashes.slice(g * 26, g * 26 + 26).join('\n')).digest('hex'))
const { failing: list, ...score } = r.score
const byType = {}
for (const [, t] of list) byType[t] = (byType[t] ?? 0) + 1
const failing = { count: list.length, by_type: byType, sha256: createHash('sha256').update(list.map(([i, t]) => `${i}\t${t}`).join('\n')).digest('hex') }
writeFileSync(dst, JSON.stringify({ category: r.category, mode: r.mode, model: r.model, limit: r.limit, groups, score, failing }, null, 1) + '\n')
