// The parser against NVIDIA NeMo Automodel's Python tool-call parser on the same real outputs: the 635 raw outputs of
// ../shared/corpus, each pass parsing every one of them, best wall time per pass of several rounds, the two runs
// interleaved in one process tree so that both see the same machine load. Nothing passes or fails; figures go to
// BENCHMARKS.md.
//
// NeMo's parser is never part of this repository. Copy it to a scratch folder and point NEMO_PARSER at it, e.g.
//   git -C <a NeMo Automodel clone> show HEAD:nemo_automodel/components/eval/tool_call_parser.py > /tmp/nemo/tool_call_parser.py
//   NEMO_PARSER=/tmp/nemo/tool_call_parser.py node bench/parse-vs-nemo.js
// (it needs only Python 3's standard library). Without NEMO_PARSER only this parser is timed. BENCH_DIST=/path/to/dist
// times another build of this project (an older commit's, for before/after figures). `jsonParseFloor` is the native
// JSON.parse of the corpus's expected calls alone, timed in the same run: the speed no parser returning them decoded
// could pass.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const corpusPath = fileURLToPath(new URL('../../shared/corpus/cases.jsonl', import.meta.url))
if (!existsSync(corpusPath)) {
  console.log(JSON.stringify({ bench: 'parse-vs-nemo', skipped: `${corpusPath} is absent` }))
  process.exit(0)
}
const dist = process.env.BENCH_DIST ? pathToFileURL(resolve(process.env.BENCH_DIST, 'index.js')).href : '../dist/index.js'
const { parseToolCalls } = await import(dist)

const cases = readFileSync(corpusPath, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l))
const texts = cases.map((c) => c.text)
// The floor: decoding each expected call's JSON with the native JSON.parse and doing nothing else. No parser that
// returns decoded arguments for these outputs can be faster than this, so it bounds the reachable speed-up.
const payloads = cases.flatMap((c) => c.expected.map((e) => JSON.stringify({ name: e.name, arguments: e.arguments })))
const bytesPerPass = texts.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0)
const PASSES = Number(process.env.BENCH_NEMO_PASSES ?? 20) // passes per timed round
const ROUNDS = Number(process.env.BENCH_NEMO_ROUNDS ?? 5) // timed rounds per turn
const TURNS = Number(process.env.BENCH_NEMO_TURNS ?? 3) // alternations between the two parsers

// Timed inside Python, so the interpreter's start-up is not counted; the module is loaded from its path alone.
const NEMO_TIMER = `
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("nemo_tool_call_parser", sys.argv[1])
nemo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(nemo)
texts = [json.loads(line)["text"] for line in open(sys.argv[2], encoding="utf-8") if line.strip()]
passes, rounds = int(sys.argv[3]), int(sys.argv[4])
for t in texts:
    nemo.parse_tool_calls(t)
best, calls = float("inf"), 0
for _ in range(rounds):
    start = time.perf_counter()
    calls = 0
    for _ in range(passes):
        for t in texts:
            calls += len(nemo.parse_tool_calls(t))
    best = min(best, (time.perf_counter() - start) / passes)
print(json.dumps({"msPerPass": best * 1000, "callsPerPass": calls // passes}))
`

function timeNemo(parser) {
  const r = spawnSync('python3', ['-c', NEMO_TIMER, parser, corpusPath, String(PASSES), String(ROUNDS)], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  })
  if (r.status !== 0) throw new Error(`NeMo's parser did not run (python3 exit ${r.status}): ${r.stderr || r.error}`)
  return JSON.parse(r.stdout.trim().split('\n').pop())
}

function timeOurs() {
  for (const t of texts) parseToolCalls(t)
  let best = Infinity
  let calls = 0
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint()
    calls = 0
    for (let p = 0; p < PASSES; p++) for (const t of texts) calls += parseToolCalls(t).length
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6 / PASSES)
  }
  return { msPerPass: best, callsPerPass: calls / PASSES }
}

function timeFloor() {
  let best = Infinity
  let sink = 0
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint()
    for (let p = 0; p < PASSES; p++) for (const j of payloads) sink += JSON.parse(j).name.length
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6 / PASSES)
  }
  return sink > 0 ? best : Infinity
}

const parser = process.env.NEMO_PARSER
let floorMs = Infinity
let ours = { msPerPass: Infinity }
let nemo = parser ? { msPerPass: Infinity } : undefined
for (let turn = 0; turn < TURNS; turn++) {
  const o = timeOurs()
  if (o.msPerPass < ours.msPerPass) ours = o
  floorMs = Math.min(floorMs, timeFloor())
  if (parser) {
    const n = timeNemo(parser)
    if (n.msPerPass < nemo.msPerPass) nemo = n
  }
}
const mbPerS = (ms) => +(bytesPerPass / 1e6 / (ms / 1000)).toFixed(1)
console.log(
  JSON.stringify({
    bench: 'parse-vs-nemo',
    outputs: texts.length,
    bytesPerPass,
    ours: { msPerPass: +ours.msPerPass.toFixed(3), mbPerS: mbPerS(ours.msPerPass), callsPerPass: ours.callsPerPass },
    ...(nemo
      ? {
          nemo: { msPerPass: +nemo.msPerPass.toFixed(3), mbPerS: mbPerS(nemo.msPerPass), callsPerPass: nemo.callsPerPass },
          speedVsNemo: +(nemo.msPerPass / ours.msPerPass).toFixed(2),
          jsonParseFloor: {
            msPerPass: +floorMs.toFixed(3),
            calls: payloads.length,
            speedVsNemo: +(nemo.msPerPass / floorMs).toFixed(2),
          },
        }
      : { nemo: 'not timed: set NEMO_PARSER to a scratch copy of tool_call_parser.py' }),
  }),
)
