/**
 * The one place in src/calls that loads a package: `@huggingface/jinja`, the engine transformers.js renders chat
 * templates with, loaded on first use only, so users who never derive a format from a template need not install it.
 *
 * Templates are code from a model's repository: `{% for i in range(10**9) %}` would take the process down with it,
 * nested loops would hang it. So a template is compiled and rendered in a worker thread under a budget: a memory
 * limit (the worker's heap, `resourceLimits`) and a deadline. The worker is watched by a supervisor worker, which sees
 * the renderer die of its memory limit or miss its deadline at once and says which; the caller waits for the answer
 * synchronously (`Atomics.wait`), so deriving, and hence `parseToolCalls`, stays synchronous. Both workers are kept
 * for the next template (started once per process) and replaced after a failure. Model output never reaches a
 * template: only the fixed probe conversations do.
 */
import { createRequire } from 'node:module'
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import { pythonJinja } from './python-jinja.js'
import { pythonText } from './python-text.js'
import { pythonValues } from './python-values.js'
import { pythonFilters } from './python-filters.js'
import { pythonSyntax } from './python-syntax.js'
import { pythonMethods } from './python-methods.js'
import { pythonBudget } from './python-budget.js'

/** How long and how much memory rendering one template (every probe conversation together) may take. */
export interface TemplateBudget {
  /** Milliseconds for compiling and rendering (default 5000). */
  timeMs?: number
  /** Heap of the rendering worker in MB (default 256, at least 16). */
  memoryMb?: number
}

export const DEFAULT_TEMPLATE_BUDGET: Readonly<Required<TemplateBudget>> = Object.freeze({ timeMs: 5000, memoryMb: 256 })

/** One rendering: the text, or what the template raised. */
export type Rendering = { text: string; error?: undefined } | { error: string; text?: undefined }

/**
 * Every context rendered, or why the template could not be used at all: `engine` (the package is missing),
 * `syntax` (it does not compile: `where` names the construct), `budget` (it went over its time or memory).
 * `supplied`: whether the constructs of Python's Jinja that python-jinja.ts supplies were there (see
 * `explainEngineError`).
 */
export type Renderings =
  | { renders: Rendering[]; error?: undefined; supplied: boolean }
  | { error: string; invalid: 'engine' | 'syntax' | 'budget'; renders?: undefined }

// A probe rendering is a few hundred characters: anything this long is a template writing without bound.
const MAX_RENDER_CHARS = 1_000_000
// Starting the workers (and loading the engine) is not the template's time; this bounds it separately.
const START_MS = 30_000

/** The budget with defaults, checked: a bad value is a TypeError naming it. */
export function templateBudget(budget: TemplateBudget | undefined, where = 'templateBudget'): Readonly<Required<TemplateBudget>> {
  if (budget === undefined) return DEFAULT_TEMPLATE_BUDGET
  const out = { ...DEFAULT_TEMPLATE_BUDGET }
  if (typeof budget !== 'object' || budget === null) throw new TypeError(`${where} must be an object { timeMs?, memoryMb? }`)
  for (const key of Object.keys(budget)) {
    if (key !== 'timeMs' && key !== 'memoryMb') throw new TypeError(`${where}: unknown key "${key}" (known: timeMs, memoryMb)`)
  }
  const { timeMs, memoryMb } = budget
  if (timeMs !== undefined) {
    if (!Number.isInteger(timeMs) || timeMs < 1 || timeMs > 600_000) throw new TypeError(`${where}.timeMs must be an integer from 1 to 600000, not ${String(timeMs)}`)
    out.timeMs = timeMs
  }
  if (memoryMb !== undefined) {
    if (!Number.isInteger(memoryMb) || memoryMb < 16 || memoryMb > 16_384) throw new TypeError(`${where}.memoryMb must be an integer from 16 to 16384, not ${String(memoryMb)}`)
    out.memoryMb = memoryMb
  }
  return out
}

/**
 * The renderer: compiles the template, renders each context; on a syntax error, finds the tag that causes it. It
 * renders with what python-jinja.ts supplies of Python's Jinja where the engine allows (`supplied`), else with the
 * engine alone.
 */
const RENDERER =
  `const pythonJinja = (${String(pythonJinja)});\nconst pythonText = (${String(pythonText)});\nconst pythonValues = (${String(pythonValues)});\nconst pythonFilters = (${String(pythonFilters)});\nconst pythonSyntax = (${String(pythonSyntax)});\nconst pythonMethods = (${String(pythonMethods)});\nconst pythonBudget = (${String(pythonBudget)});\n` +
  String.raw`
const { parentPort, workerData } = require('node:worker_threads')
const message = (e) => (e && typeof e.message === 'string' ? e.message : String(e))
const { BudgetError, meter } = pythonBudget()
const heapUsed = () => require('node:v8').getHeapStatistics().used_heap_size
let compile, supplied = false
try {
  const jinja = require(workerData.engine)
  if (typeof jinja.Template !== 'function') throw new Error('it exports no Template class')
  try {
    const py = pythonText()
    compile = pythonJinja(jinja, py, pythonValues(py), pythonFilters, pythonSyntax, pythonMethods)
    supplied = true
  } catch {
    compile = (source) => new jinja.Template(source)
  }
} catch (e) {
  compile = message(e).split('\n')[0]
}
function culprit(source, why) {
  const re = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g
  let m, n = 0
  while ((m = re.exec(source)) !== null && n++ < 5000) {
    try { compile(m[0]) } catch (e) {
      if (message(e) !== why) continue
      const line = source.slice(0, m.index).split('\n').length
      const tag = m[0].length > 80 ? m[0].slice(0, 77) + '...' : m[0]
      return 'line ' + line + ', ' + JSON.stringify(tag)
    }
  }
  return undefined
}
parentPort.on('message', ({ source, contexts, maxChars, timeMs, memoryMb }) => {
  if (typeof compile === 'string') return parentPort.postMessage({ engine: compile })
  // The supplied interpreter checks the budget as it runs; the engine alone is bounded by the supervisor only.
  const budget = supplied ? meter({ timeMs, memoryMb, heapUsed }) : undefined
  let template
  try {
    template = compile(source)
  } catch (e) {
    const why = message(e)
    return parentPort.postMessage({ syntax: why, where: culprit(source, why), supplied })
  }
  let renders
  try {
    renders = contexts.map((context) => {
      try {
        const text = template.render(context, budget)
        if (typeof text !== 'string') return { error: 'the template rendered no text' }
        if (text.length > maxChars) return { error: 'the template rendered ' + text.length + ' characters (more than ' + maxChars + ')' }
        return { text }
      } catch (e) {
        if (e instanceof BudgetError) throw e
        return { error: message(e) }
      }
    })
  } catch (e) {
    // Over its budget: the whole job fails, as when the supervisor stops it, and the worker lives on.
    return parentPort.postMessage({ budget: e.budget, why: e.why, supplied })
  }
  parentPort.postMessage({ renders, supplied })
})
parentPort.postMessage({ ready: true })
`

/** The supervisor: runs each job in the renderer under its deadline and memory limit, and signals the caller. */
const SUPERVISOR = String.raw`
const { workerData, Worker } = require('node:worker_threads')
const { port, signal, renderer, engine } = workerData
let current
function start(memoryMb) {
  const worker = new Worker(renderer, {
    eval: true,
    workerData: { engine },
    resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.max(1, Math.min(16, memoryMb >> 3)) },
  })
  const r = { worker, memoryMb, ready: undefined, listener: undefined, onerror: undefined }
  // true once the renderer is up; the error when it dies first (it never starts a job then).
  r.ready = new Promise((resolve) => {
    r.listener = (m) => (m && m.ready ? resolve(true) : undefined)
    r.onerror = (e) => resolve(e || new Error('the rendering worker exited'))
    worker.on('message', (m) => r.listener && r.listener(m))
  })
  worker.on('error', (e) => r.onerror && r.onerror(e))
  worker.on('exit', () => { r.dead = true; if (r.onerror) r.onerror(new Error('the rendering worker exited')); if (current === r) current = undefined })
  return r
}
function answer(a) {
  port.postMessage(a)
  Atomics.store(signal, 0, 1)
  Atomics.notify(signal, 0)
}
port.on('message', async (job) => {
  if (!current || current.dead || current.memoryMb !== job.memoryMb) {
    if (current) current.worker.terminate()
    current = start(job.memoryMb)
  }
  const r = current
  const up = await r.ready
  if (up !== true) {
    if (current === r) current = undefined
    return answer({ crashed: 'the rendering worker did not start: ' + String(up && up.message) })
  }
  let done = false
  const finish = (a, broken) => {
    if (done) return
    done = true
    clearTimeout(timer)
    r.listener = undefined
    r.onerror = undefined
    if (broken) { if (current === r) current = undefined; r.worker.terminate() }
    answer(a)
  }
  // The renderer stops itself at its deadline (python-budget.ts); this is the backstop, half a second to a second later
  // (time for a renderer starved of CPU on a loaded machine to see its deadline), for a step that does not come back
  // (the engine alone, a long step of the engine's own).
  const timer = setTimeout(() => finish({ budget: 'time' }, true), job.timeMs + Math.min(1000, Math.max(500, job.timeMs >> 2)))
  // A renderer that stopped itself over its budget is idle and safe to stop, and its heap still holds what the template
  // built: the next template gets a fresh one, so that this garbage is not counted against it.
  r.listener = (m) => finish(m, Boolean(m && m.budget))
  r.onerror = (e) => finish(e && e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? { budget: 'memory' } : { crashed: String(e && e.message) }, true)
  r.worker.postMessage({ source: job.source, contexts: job.contexts, maxChars: job.maxChars, timeMs: job.timeMs, memoryMb: job.memoryMb })
})
`

interface Supervisor {
  worker: Worker
  port: MessagePort
  signal: Int32Array
}

let supervisor: Supervisor | undefined
let engine: string | Error | undefined

function enginePath(): string | Error {
  if (engine !== undefined) return engine
  try {
    engine = createRequire(import.meta.url).resolve('@huggingface/jinja')
  } catch (err) {
    engine = new Error(
      `deriving a format from a chat template needs the package @huggingface/jinja (npm install @huggingface/jinja): ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
    )
  }
  return engine
}

function startSupervisor(path: string): Supervisor {
  const { port1, port2 } = new MessageChannel()
  const signal = new Int32Array(new SharedArrayBuffer(4))
  const worker = new Worker(SUPERVISOR, {
    eval: true,
    // The workers' code is CommonJS: a process started with `--input-type=module` (or a default type of module)
    // would run it as a module, without `require`, and never answer. The renderer inherits these flags.
    execArgv: process.execArgv.filter((a) => !/^--(?:input-type|experimental-default-type)\b/.test(a)),
    workerData: { port: port2, signal, renderer: RENDERER, engine: path },
    transferList: [port2],
  })
  // Neither keeps the process alive: they serve synchronous calls only.
  worker.unref()
  port1.unref()
  const s = { worker, port: port1, signal }
  worker.on('error', () => {})
  worker.on('exit', () => {
    if (supervisor === s) supervisor = undefined
  })
  return s
}

/**
 * Compile `source` and render it with each context, in the bounded worker; synchronous. The contexts must be plain
 * data (they are copied to the worker).
 */
export function renderBounded(source: string, contexts: Record<string, unknown>[], budget: Readonly<Required<TemplateBudget>>): Renderings {
  const path = enginePath()
  if (path instanceof Error) return { error: path.message, invalid: 'engine' }
  const s = (supervisor ??= startSupervisor(path))
  Atomics.store(s.signal, 0, 0)
  s.port.postMessage({ source, contexts, timeMs: budget.timeMs, memoryMb: budget.memoryMb, maxChars: MAX_RENDER_CHARS })
  const waited = Atomics.wait(s.signal, 0, 0, budget.timeMs + START_MS)
  const reply = receiveMessageOnPort(s.port)?.message as Record<string, unknown> | undefined
  if (waited === 'timed-out' || reply === undefined) {
    // The supervisor itself did not answer: start afresh next time.
    supervisor = undefined
    void s.worker.terminate()
    return { error: `rendering the chat template gave no answer within ${budget.timeMs + START_MS} ms`, invalid: 'budget' }
  }
  const supplied = reply['supplied'] === true
  if (Array.isArray(reply['renders'])) return { renders: reply['renders'] as Rendering[], supplied }
  if (typeof reply['engine'] === 'string') {
    return { error: `deriving a format from a chat template needs the package @huggingface/jinja: ${reply['engine']}`, invalid: 'engine' }
  }
  if (typeof reply['syntax'] === 'string') {
    const where = typeof reply['where'] === 'string' ? ` at ${reply['where']}` : ''
    return { error: `the chat template does not compile${where}: ${explainEngineError(source, reply['syntax'], supplied)}`, invalid: 'syntax' }
  }
  // `why`: what the renderer saw when it stopped itself (python-budget.ts); none when the supervisor stopped it.
  const why = typeof reply['why'] === 'string' ? reply['why'] : undefined
  if (reply['budget'] === 'time') {
    return { error: `rendering the chat template took longer than its time budget of ${budget.timeMs} ms (${why ?? 'a template looping without bound?'})`, invalid: 'budget' }
  }
  if (reply['budget'] === 'memory') {
    return { error: `rendering the chat template went over its memory budget of ${budget.memoryMb} MB (${why ?? 'a template building values without bound?'})`, invalid: 'budget' }
  }
  return { error: `rendering the chat template crashed its worker: ${String(reply['crashed'])}`, invalid: 'budget' }
}

/**
 * Constructs of Python's Jinja (and of the Python values templates call methods on) that `@huggingface/jinja` lacks:
 * the engine's own message says only "not a function" or "unknown filter", so the template is searched for them.
 * `supplied`: python-jinja.ts supplies it (named only where the engine could not be given it).
 */
const ENGINE_GAPS: { construct: string; pattern: RegExp; supplied?: true }[] = [
  { construct: '{% do %}', pattern: /\{%-?\s*do\b/, supplied: true },
  { construct: 'list.append()', pattern: /\.append\(/, supplied: true },
  { construct: 'list.extend()', pattern: /\.extend\(/, supplied: true },
  { construct: 'list.pop()', pattern: /\.pop\(/, supplied: true },
  { construct: 'dict.update()', pattern: /\.update\(/, supplied: true },
  { construct: 'str.format()', pattern: /\.format\(/, supplied: true },
  { construct: 'str.count()', pattern: /\.count\(/, supplied: true },
  { construct: 'str.find()', pattern: /\.r?find\(/, supplied: true },
  { construct: 'str.splitlines()', pattern: /\.splitlines\(/, supplied: true },
  { construct: 'loop.cycle()', pattern: /loop\.cycle\(/, supplied: true },
  { construct: 'dict()', pattern: /[^\w.]dict\(/, supplied: true },
  { construct: "map('tojson') (map without attribute=)", pattern: /\|\s*map\(\s*['"]/, supplied: true },
  {
    construct: 'a filter it lacks (format, round, e, sum, min, max, batch, groupby, attr, truncate, urlencode, wordcount, select, reject)',
    pattern: /\|\s*(?:format|round|e|escape|sum|min|max|batch|groupby|attr|truncate|urlencode|wordcount|select|reject)\b/,
    supplied: true,
  },
  // Not supplied: `zip` and a `bool` filter are not Python Jinja's either (a template using them fails there too).
  { construct: '{% raw %}', pattern: /\{%-?\s*raw\b/, supplied: true },
  { construct: '{% with %}', pattern: /\{%-?\s*with\b/ },
  { construct: '{% include %}, {% import %} or {% extends %}', pattern: /\{%-?\s*(?:include|import|from|extends)\b/ },
  { construct: 'a test with arguments (e.g. `is divisibleby(3)`)', pattern: /\bis\s+(?:not\s+)?\w+\s*\(/, supplied: true },
  {
    construct: 'a filter neither has here (center, filesizeformat, pprint, random, slice, striptags, urlize, wordwrap, xmlattr)',
    pattern: /\|\s*(?:center|filesizeformat|pprint|random|slice|striptags|urlize|wordwrap|xmlattr)\b/,
  },
]

/**
 * `message` (an engine error), with the constructs of `source` the engine lacks named when the error is one of those.
 * `supplied`: the renderer had python-jinja.ts's constructs, so only the others are named.
 */
export function explainEngineError(source: string, message: string, supplied = true): string {
  if (!/not a function|Unknown \w+ filter|Unknown statement type|not currently supported|Unknown operator|Unknown test|Cannot apply filter|Parser Error/.test(message)) return message
  const used = ENGINE_GAPS.filter((g) => !(supplied && g.supplied) && g.pattern.test(source)).map((g) => g.construct)
  return used.length === 0
    ? `${message} (a construct of Python's Jinja that @huggingface/jinja lacks)`
    : `${message} (the template uses ${used.join(', ')}, which Python's Jinja has and @huggingface/jinja lacks)`
}
