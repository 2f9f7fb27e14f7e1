#!/bin/bash
# Re-records every fixture of fixtures/bfcl-agentic-requests/ with BFCL's own code into OUT (then copy OUT/*.json over
# the fixtures). Needs GORILLA (gorilla at 8db0b7ca), RANK_BM25 (rank_bm25 0.2.2's unzipped wheel) and Debian's
# python3 with the packages ../shared/bfcl/RUNNING_BFCL.md lists.
# usage: GORILLA=DIR RANK_BM25=DIR scripts/bfcl-oracle/record-agentic-fixtures.sh OUT
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${GORILLA:?}" "${RANK_BM25:?}"
F=fixtures/bfcl-agentic-requests
O=$1
mkdir -p "$O"
PY=${PYTHON:-/usr/bin/python3}
record() { # category limit script mode out
  "$PY" scripts/bfcl-oracle/record-agentic.py "$1" "$2" "$F/$3" "$F/web-search-recorded.json" "$O/$5.raw.json" "$4" > "$O/$5.log" 2>&1
}
for c in web_search_base:2 web_search_no_snippet:2 memory_kv:2 memory_rec_sum:1; do
  record "${c%:*}" "${c#*:}" script.json fc "${c%:*}.fc" &
  record "${c%:*}" "${c#*:}" script-prompting.json prompting "${c%:*}.prompting" &
  wait
  for m in fc prompting; do node scripts/bfcl-oracle/hash-requests.mjs "$O/${c%:*}.$m.raw.json" "$O/${c%:*}.$m.json"; done
done
for c in web_search_base:100 web_search_no_snippet:100 memory_kv:155 memory_rec_sum:155; do
  record "${c%:*}" "${c#*:}" script.json fc "${c%:*}.all"
  node scripts/bfcl-oracle/hash-entries.mjs "$O/${c%:*}.all.raw.json" "$O/${c%:*}.all.json"
done
rm "$O"/*.raw.json
