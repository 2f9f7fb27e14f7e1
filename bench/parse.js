// Parser speed: throughput on a mixed-format corpus as a ratio to JSON.parse of the same call payloads, and cost
// per byte on adversarial inputs at 1 MB and 4 MB (and typed-number shapes) relative to ordinary output of the same
// size (a few with a format hint). Run: npm run bench (or node bench/parse.js after npm run build). BENCH_DIST=/path/to/dist measures another
// build (an older commit's, for before/after figures); BENCH_CORPUS=/path/to/cases.jsonl reads the corpus elsewhere. BENCH_ADVERSARIAL_SIZES=1,4 picks the sizes in MB;
// BENCH_PARSE=single,throughput,formats,braces,adversarial,typed,python picks the parts. Figures go to BENCHMARKS.md; nothing here
// passes or fails.
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

// The parser alone (dist/calls needs no package), so this runs wherever node and the build are.
const dist = process.env.BENCH_DIST ? pathToFileURL(resolve(process.env.BENCH_DIST, 'calls/index.js')).href : '../dist/calls/index.js'
const { FORMATS, parseToolCalls } = await import(dist)

const corpusPath = process.env.BENCH_CORPUS ?? fileURLToPath(new URL('../../shared/corpus/cases.jsonl', import.meta.url))

/** Best of `rounds` timings of `fn` (ms), each running it `reps` times: the minimum is the least noisy estimate. */
function time(fn, reps, rounds = 7) {
  let best = Infinity
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < reps; i++) fn()
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    if (ms < best) best = ms
  }
  return best
}

function mixedCorpus() {
  const texts = []
  const payloads = []
  if (existsSync(corpusPath)) {
    for (const line of readFileSync(corpusPath, 'utf8').split('\n')) {
      if (!line.trim()) continue
      const c = JSON.parse(line)
      if (c.contested || c.expected.length === 0) continue
      texts.push(c.text)
      payloads.push(JSON.stringify(c.expected.map((e) => ({ name: e.name, arguments: e.arguments }))))
    }
  } else console.warn('[bench] ../shared/corpus absent: using rendered outputs only')
  // The project's own renderings of every format, so the mix covers formats the corpus has few cases of.
  const sample = [
    { name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius', days: 3 } },
    { name: 'search_flights', arguments: { from: 'SFO', to: 'NRT', passengers: 2, flexible: true, tags: ['a', 'b'] } },
  ]
  for (const f of FORMATS) {
    if (!f.render) continue
    texts.push('Let me look that up.\n' + f.render(sample))
    payloads.push(JSON.stringify(sample))
  }
  return { texts, payloads }
}

/**
 * The synthetic mix: every format's own rendering of three answers (one call; two calls with a list, a boolean and
 * numbers; one call with a longer string holding quotes), after a line of prose, parsed in mixed order.
 */
function syntheticMix() {
  const sets = [
    [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius', days: 3 } }],
    [
      { name: 'search_flights', arguments: { from: 'SFO', to: 'NRT', passengers: 2, flexible: true, tags: ['a', 'b'] } },
      { name: 'get_time', arguments: { timezone: 'Asia/Tokyo' } },
    ],
    [{ name: 'send_email', arguments: { to: 'ada@example.com', subject: 'Hello', body: 'Line one. Line two, with "quotes".' } }],
  ]
  const texts = []
  const payloads = []
  for (const f of FORMATS) {
    if (!f.render) continue
    for (const s of sets) {
      texts.push('Let me look that up.\n' + f.render(s))
      payloads.push(JSON.stringify(s))
    }
  }
  return { texts, payloads }
}

function throughput({ texts, payloads }) {
  const textBytes = texts.reduce((n, t) => n + t.length, 0)
  const payloadBytes = payloads.reduce((n, t) => n + t.length, 0)
  let sink = 0
  const parseMs = time(() => {
    for (const t of texts) sink += parseToolCalls(t).length
  }, 20)
  const jsonMs = time(() => {
    for (const p of payloads) sink += JSON.parse(p).length
  }, 20)
  return {
    outputs: texts.length,
    textBytes,
    payloadBytes,
    parseMsPerPass: parseMs / 20,
    jsonParseMsPerPass: jsonMs / 20,
    ratioToJsonParse: jsonMs / parseMs,
    sink,
  }
}

/**
 * Steady-state time of one parse of `text` (ms): one untimed run first, so that the baseline and every input are
 * timed with the parsers already compiled (a cold first run of `normal` would flatter every ratio).
 */
function timeParse(text, rounds = 5, options = {}) {
  parseToolCalls(text, options)
  return time(() => parseToolCalls(text, options), 1, rounds)
}

const MB = 1 << 20
const normalUnit =
  'Sure, I will check the weather for you. <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'

/** `unit` repeated to exactly `size` characters. */
function repeatTo(unit, size) {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
}

/** The same with a closing `]` at the very end, so that list parsers cannot rule the text out as cut off. */
function closedTo(unit, size) {
  return repeatTo(unit, size - 1) + ']'
}

/** `{"name": "g", "parameters": {"q":x }; ` repeated to about `size`, ending in `{"` when `open`. */
function bareCalls(size, open) {
  const unit = '{"name": "g", "parameters": {"q":x }; '
  return unit.repeat(Math.floor((size - 2) / unit.length)) + (open ? '{"' : '')
}

/** The ToolCalls of `[f(a=1),f(a=1),...,g()]` built directly, as the pythonic format returns them. */
function manyCallsOutput(text) {
  const out = []
  for (let i = 1; i + 7 < text.length; i += 7) {
    const args = {}
    args[text.slice(i + 2, i + 3)] = 1
    out.push({ name: text.slice(i, i + 1), arguments: args, argumentsValid: true, format: 'pythonic', raw: text.slice(i, i + 6) })
  }
  return out
}

function adversarial(size) {
  const fill = (unit) => repeatTo(unit, size)
  const closed = (unit) => closedTo(unit, size)
  const inputs = {
    normal: fill(normalUnit),
    unclosedToolCallTags: fill('<tool_call>'),
    unclosedToolCallWithJson: fill('<tool_call>{"name": "f", "arguments": {"a": "'),
    openBraces: fill('{'),
    openBrackets: fill('['),
    strayQuotes: fill('he said " and '),
    nestedCallObjects: fill('{"name": "f", "arguments": '),
    pythonicOpenCalls: fill('[f(a='),
    unclosedThink: '<think>' + fill('<tool_call>{"name": "f"}'),
    xmlParams: fill('<function=f><parameter=a>'),
    mistralMarkers: fill('[TOOL_CALLS]'),
    harmonyHeaders: fill('<|channel|>commentary to=functions.f<|message|>{'),
    // Each format's marker repeated with its content cut off, and nesting that never closes.
    functionTagBodies: fill('<function=f>{"a": '),
    functionaryBlocks: fill('>>>f\n{"a": '),
    mistralV11Calls: fill('[TOOL_CALLS]f{"a": '),
    mistralLists: fill('[TOOL_CALLS][{"name": "f", "arguments": {'),
    hermesWrappers: fill('<tools>{"name": "f", "arguments": {'),
    emptyObjectsInOpenBrace: fill('{"a": {}'),
    pythonicNestedLists: fill('[f(a=1), '),
    pythonicOpenDicts: fill('[f(a={1:'),
    pythonicOpenStrings: fill("[f(a='"),
    pythonicNestedListsClosed: closed('[f(a=1), '),
    pythonicOpenDictsClosed: closed('[f(a={1:'),
    pythonicOpenStringsClosed: closed("[f(a='"),
    llama4Blocks: fill('<|python_start|>[f(a='),
    llama4BareCalls: fill('<|python_start|>f(a='),
    olmo3Blocks: fill('<function_calls>f(a=[f(a='),
    gemmaCalls: fill('<|tool_call>call:f{a:<|"|>'),
    functiongemmaCalls: fill('<start_function_call>call:f{a:'),
    kimiCalls: fill('<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": "'),
    deepseekCalls: fill('<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{"a": '),
    dsmlParameters: fill('<｜DSML｜parameter name="a" string="false">['),
    glmArguments: fill('<tool_call>f<arg_key>a</arg_key><arg_value>['),
    minimaxInvokes: fill('<minimax:tool_call><invoke name="f"><parameter name="a">{'),
    lessThanSigns: fill('<'),
    // The marker scan walks its trie from each `<`: marker prefixes that almost match, as deep as the longest.
    nearMarkers: fill('<|tool_call_begi'),
    nearMarkersMixed: fill('<tool_cal<|python_ta<minimax:invok<longcat_arg_ke<|open|>tools<|se'),
    hunyuanSeparators: fill('<tool_call>f<tool_sep>'),
    longcatXmlKeys: fill('<longcat_tool_call>f<longcat_arg_key>a</longcat_arg_key><longcat_arg_value>'),
    kimiK3Frames: fill('<|open|>tools<|sep|>'),
    minicpmParams: fill('<function name="f"><param name="a">'),
    // Bare JSON objects that never close, each holding a small span that is not JSON (issue 21): every span once
    // cost a thrown parse, and a stray `{"` at the end made the bare reader retry once per object.
    bareCallsOpen: bareCalls(size, true),
    bareCallsOpenJsonHint: [bareCalls(size, true), { format: 'json' }],
    bareCallsOpenHermesHint: [bareCalls(size, true), { format: 'hermes' }],
    bareCalls: bareCalls(size, false),
    bareCallsJsonHint: [bareCalls(size, false), { format: 'json' }],
    bareCallsHermesHint: [bareCalls(size, false), { format: 'hermes' }],
    // Not malformed: a pythonic list of about 150,000 calls per MB (issue 21).
    pythonicManyCalls: '[' + 'f(a=1),'.repeat(Math.floor((size - 5) / 7)) + 'g()]',
  }
  // Not adversarial, for scale: the baseline's text with its calls written as pythonic lists instead of Hermes JSON
  // (same prose, one call a line). Its calls go through the Python parser rather than the native JSON.parse.
  const reference = {
    normalPythonic: fill('Sure, I will check the weather for you. [get_weather(city="Paris")]\n'),
    // pythonicManyCalls without the cap on calls per output (ParseOptions.maxCalls, default 10,000; builds before it
    // ignore the option): what building all 150,000 calls a MB costs.
    pythonicManyCallsNoCap: [inputs.pythonicManyCalls, { maxCalls: Infinity }],
  }
  const timeInput = (input) => (Array.isArray(input) ? timeParse(input[0], 5, input[1]) : timeParse(input))
  const ms = {}
  for (const [name, input] of Object.entries(inputs)) ms[name] = timeInput(input)
  const refMs = {}
  for (const [name, input] of Object.entries(reference)) refMs[name] = timeInput(input)
  // The floor under pythonicManyCalls: only allocating the ToolCalls its parse returns (no parsing), one per call.
  refMs.pythonicManyCallsOutputOnly = time(() => manyCallsOutput(inputs.pythonicManyCalls), 1, 5)
  // The baseline is timed first and again at the end; its best time is the least noisy estimate.
  const base = Math.min(ms.normal, timeParse(inputs.normal))
  const ratios = (times) =>
    Object.fromEntries(Object.entries(times).map(([name, t]) => [name, { ms: +t.toFixed(1), costPerByteVsNormal: +(t / base).toFixed(2) }]))
  return { results: ratios(ms), reference: ratios(refMs) }
}

/**
 * Integer- and number-typed parameters of the formats that type raw text by the tool's schema, holding one digit
 * run of the whole size that ends in a non-digit (the shape that once made the number pattern backtrack
 * quadratically), at 1 MB and 4 MB, each against ordinary output of the same size.
 */
function typedNumbers() {
  const out = {}
  for (const size of [MB, 4 * MB]) {
    const label = `${size / MB}MB`
    const normal = repeatTo(normalUnit, size)
    const ms = {}
    const base = () => timeParse(normal, 3)
    let baseMs = base()
    for (const format of ['qwen3_coder', 'glm45', 'minimax_m2', 'seed_oss']) {
      const f = FORMATS.find((x) => x.name === format)
      for (const [shape, value] of [
        ['digitsThenLetter', '7'.repeat(size) + 'x'],
        ['digitsDotDigitsThenLetter', '7'.repeat(size / 2) + '.' + '7'.repeat(size / 2) + 'x'],
        ['underscoredDigitsThenLetter', '1_'.repeat(size / 2) + 'x'],
      ]) {
        for (const type of ['integer', 'number']) {
          const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { n: { type } } } } }]
          const text = f.render([{ name: 'f', arguments: { n: value } }])
          ms[`${format}.${type}.${shape}`] = timeParse(text, 3, { tools }) / (text.length / size)
        }
      }
    }
    baseMs = Math.min(baseMs, base())
    const results = { normal: { ms: +baseMs.toFixed(1), costPerByteVsNormal: 1 } }
    for (const [name, t] of Object.entries(ms)) results[name] = { ms: +t.toFixed(1), costPerByteVsNormal: +(t / baseMs).toFixed(2) }
    const worst = Math.max(...Object.values(results).map((r) => r.costPerByteVsNormal))
    out[label] = { worstCostPerByteVsNormal: worst, results }
  }
  return out
}

/**
 * The fixed cost of one parse, hot (the same output parsed over and over): an output without calls, one Hermes call,
 * and `JSON.parse` of that call's payload for scale. In µs per parse.
 */
function singleOutputs() {
  const hermes = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
  const payload = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
  const perCall = (fn) => {
    for (let i = 0; i < 20_000; i++) fn()
    return (time(() => fn(), 20_000, 9) / 20_000) * 1000
  }
  return {
    noCallsUs: +perCall(() => parseToolCalls("Hello, world!\nWhat's up?")).toFixed(3),
    oneHermesCallUs: +perCall(() => parseToolCalls(hermes)).toFixed(3),
    jsonParseOfItsPayloadUs: +perCall(() => JSON.parse(payload)).toFixed(3),
  }
}

/**
 * The Python call parser through the pythonic format alone, in ms per 1 MB text: the three closed adversarial shapes
 * and a well-formed list of 20,000 calls with a string, a list, floats and a dict (about 0.9 MB).
 */
function pythonParser() {
  const pythonic = FORMATS.find((f) => f.name === 'pythonic')
  const inputs = {
    nestedListsClosed: closedTo('[f(a=1), ', MB),
    openDictsClosed: closedTo('[f(a={1:', MB),
    openStringsClosed: closedTo("[f(a='", MB),
    wellFormedList: '[' + 'f(a=1, b="xy", c=[1, 2.5], d={"k": None}), '.repeat(20_000) + 'g()]',
  }
  const ms = {}
  for (const [name, text] of Object.entries(inputs)) {
    pythonic.parse(text, {})
    ms[name] = +time(() => pythonic.parse(text, {}), 1, 5).toFixed(1)
  }
  return ms
}

/**
 * Cost per format on the corpus mix: each clean case's text parsed by detection, grouped by the case's format, in
 * microseconds per KB of text (best of rounds over all of a format's texts). The five slowest, and the mix's mean.
 */
function perFormat() {
  if (!existsSync(corpusPath)) return { skipped: '../shared/corpus absent' }
  const groups = new Map()
  for (const line of readFileSync(corpusPath, 'utf8').split('\n')) {
    if (!line.trim()) continue
    const c = JSON.parse(line)
    if (c.contested || c.expected.length === 0) continue
    const g = groups.get(c.format) ?? []
    g.push(c.text)
    groups.set(c.format, g)
  }
  const rows = []
  let allUs = 0
  let allBytes = 0
  for (const [format, texts] of groups) {
    const bytes = texts.reduce((n, t) => n + t.length, 0)
    const reps = Math.max(1, Math.ceil(200_000 / bytes))
    const ms = time(() => {
      for (let r = 0; r < reps; r++) for (const t of texts) parseToolCalls(t)
    }, 1, 9)
    const us = (ms * 1000) / reps
    allUs += us
    allBytes += bytes
    rows.push({ format, outputs: texts.length, usPerKB: +((us / bytes) * 1024).toFixed(2) })
  }
  rows.sort((a, b) => b.usPerKB - a.usPerKB)
  return { mixUsPerKB: +((allUs / allBytes) * 1024).toFixed(2), slowest: rows.slice(0, 5) }
}

/**
 * A megabyte (and 4) of `{` against ordinary Hermes output of the same size, per byte: best of interleaved rounds, so
 * that load on the machine weighs on both alike.
 */
function openBraces() {
  const out = {}
  for (const mb of [1, 4]) {
    const normal = repeatTo(normalUnit, mb * MB)
    const braces = '{'.repeat(mb * MB)
    parseToolCalls(normal)
    parseToolCalls(braces)
    let n = Infinity
    let b = Infinity
    for (let r = 0; r < 9; r++) {
      n = Math.min(n, time(() => parseToolCalls(normal), 1, 1))
      b = Math.min(b, time(() => parseToolCalls(braces), 1, 1))
    }
    out[`${mb}MB`] = { normalMs: +n.toFixed(1), bracesMs: +b.toFixed(1), costPerByteVsNormal: +(b / n).toFixed(2) }
  }
  return out
}

const parts = (process.env.BENCH_PARSE ?? 'single,throughput,formats,braces,adversarial,typed,python').split(',')
if (parts.includes('single')) console.log(JSON.stringify({ bench: 'parse-single-output', ...singleOutputs() }))
if (parts.includes('throughput')) {
  const t = throughput(mixedCorpus())
  console.log(JSON.stringify({ bench: 'parse-throughput', ...t, ratioToJsonParse: +t.ratioToJsonParse.toFixed(3) }))
  const s = throughput(syntheticMix())
  console.log(JSON.stringify({ bench: 'parse-throughput-synthetic', ...s, ratioToJsonParse: +s.ratioToJsonParse.toFixed(3) }))
}
if (parts.includes('formats')) console.log(JSON.stringify({ bench: 'parse-per-format', ...perFormat() }))
if (parts.includes('braces')) console.log(JSON.stringify({ bench: 'parse-open-braces', ...openBraces() }))
if (parts.includes('adversarial')) {
  for (const mb of (process.env.BENCH_ADVERSARIAL_SIZES ?? '1,4').split(',').map(Number)) {
    const { results, reference } = adversarial(mb * MB)
    const worst = Object.entries(results).reduce(
      (w, [name, r]) => (r.costPerByteVsNormal > w.ratio ? { name, ratio: r.costPerByteVsNormal } : w),
      { name: '', ratio: 0 },
    )
    console.log(JSON.stringify({ bench: `parse-adversarial-${mb}MB`, worst, results, reference }))
  }
}
if (parts.includes('typed')) console.log(JSON.stringify({ bench: 'parse-adversarial-typed-numbers', ...typedNumbers() }))
if (parts.includes('python')) console.log(JSON.stringify({ bench: 'parse-python-ms', ...pythonParser() }))
