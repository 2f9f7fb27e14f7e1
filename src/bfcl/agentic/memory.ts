/**
 * BFCL v4's memory backends as its generation runs them (gorilla 8db0b7ca, `func_source_code/memory_kv.py`,
 * `memory_rec_sum.py`, `memory_api_metaclass.py`; prompts from `constants/default_prompts.py`,
 * `model_handler/utils.py`'s `add_memory_instruction_system_prompt`):
 *
 * - `MemoryAPI_kv`: a core memory (7 entries of 300 characters) and an archival memory (50 of 2000), snake_case
 *   keys, BM25+ key search (`rank_bm25.BM25Plus` of release 0.2.2, k1 1.5, b 0.75, delta 1, on the keys with `_`
 *   as spaces, lower case, split on whitespace);
 * - `MemoryAPI_rec_sum`: one text of at most 10,000 characters.
 *
 * A backend's state carries over as BFCL's snapshots carry it: each prerequisite conversation starts from the state
 * the previous one of its scenario left (the first from nothing), and each question from the state after the last.
 * The vector backend (`MemoryAPI_vector`: sentence-transformers' all-MiniLM-L6-v2 embeddings in a FAISS index) is
 * not reproduced.
 */
import { pyJsonString } from '../../python/repr.js'
import { pyLog } from '../../python/log.js'
import { opt } from '../multi-turn/api.js'
import { PyExc, deepCopy, isHashable, str, typeName, type Val } from '../../python/runtime.js'
import { PyFloat, PyTuple, type PyDict } from '../../python/operations.js'
import { sliceTo, type AgenticApi, type AgenticMethod } from './executor.js'

export const MEMORY_SCENARIOS = ['student', 'customer', 'finance', 'healthcare', 'notetaker'] as const

const SETTINGS: Record<string, string> = {
  student: 'You are an academic-support assistant for college student. Remember key personal and academic details discussed across sessions, and draw on them to answer questions or give guidance.',
  customer: 'You are a general customer support assistant for an e-commerce platform. Your task is to understand and remember information that can be used to provide information about user inquiries, preferences, and offer consistent, helpful assistance over multiple interactions.',
  finance: 'You are a high-level executive assistant supporting a senior finance professional. Retain and synthesize both personal and professional information including facts, goals, prior decisions, and family life across sessions to provide strategic, context-rich guidance and continuity.',
  healthcare: 'You are a healthcare assistant supporting a patient across appointments. Retain essential medical history, treatment plans, and personal preferences to offer coherent, context-aware guidance and reminders.',
  notetaker: 'You are a personal organization assistant. Capture key information from conversations, like tasks, deadlines, and preferences, and use it to give reliable reminders and answers in future sessions.',
}

const CORE_ARCHIVAL = (setting: string, content: string) =>
  `${setting}\n\nYou have access to an advanced memory system, consisting of two memory types 'Core Memory' and 'Archival Memory'. Both type of memory is persistent across multiple conversations with the user, and can be accessed in a later interactions. You should actively manage your memory data to keep track of important information, ensure that it is up-to-date and easy to retrieve to provide personalized responses to the user later.\n\nThe Core memory is limited in size, but always visible to you in context. The Archival Memory has a much larger capacity, but will be held outside of your immediate context due to its size.\n\nHere is the content of your Core Memory from previous interactions:\n${content}\n`
const UNIFIED = (setting: string, content: string) =>
  `${setting}\n\nYou have access to an advanced memory system, which is persistent across multiple conversations with the user, and can be accessed in a later interactions. You should actively manage your memory data to keep track of important information, ensure that it is up-to-date and easy to retrieve to provide personalized responses to the user later.\n\nHere is the content of your memory system from previous interactions:\n${content}\n`

/** Python's `len()` of a str: code points. */
const pyLen = (s: string) => [...s].length
// Python's `re.match(r"^[a-z]+(_[a-z0-9]+)*$", key)`: its `$` also matches before a final newline.
const SNAKE = /^[a-z]+(_[a-z0-9]+)*$/
const ok = (k: string, v: string) => new Map<string, Val>([[k, v]])

/** `text.replace("_", " ").lower().split()`. */
function tokens(text: string): string[] {
  return text.replace(/_/g, ' ').toLowerCase().split(/[\t\n\v\f\r \u001c-\u001f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u).filter((t) => t !== '')
}

/** `rank_bm25.BM25Plus(corpus).get_scores(query)` (0.2.2) on tokenised texts (numpy's float64 order of operations). */
export function bm25PlusScores(corpus: readonly string[][], query: readonly string[], k1 = 1.5, b = 0.75, delta = 1): number[] {
  if (corpus.length === 0) throw new PyExc('division by zero')
  const nd = new Map<string, number>()
  const freqs = corpus.map((doc) => {
    const f = new Map<string, number>()
    for (const w of doc) f.set(w, (f.get(w) ?? 0) + 1)
    for (const w of f.keys()) nd.set(w, (nd.get(w) ?? 0) + 1)
    return f
  })
  const avgdl = corpus.reduce((a, d) => a + d.length, 0) / corpus.length
  // rank_bm25 0.2.2, the release BFCL pins: `log((N + 1) / n)` (its later `log(N + 1) - log(n)` differs in the last
  // bit), with Python's `math.log`.
  const idf = new Map([...nd].map(([w, n]) => [w, pyLog((corpus.length + 1) / n)]))
  const score = corpus.map(() => 0)
  for (const q of query) {
    const weight = idf.get(q) || 0
    freqs.forEach((f, i) => {
      const tf = f.get(q) || 0
      score[i]! += weight * (delta + (tf * (k1 + 1)) / (k1 * (1 - b + (b * corpus[i]!.length) / avgdl) + tf))
    })
  }
  return score
}

/** `_similarity_search`: `{"ranked_results": [(score, key), ...][:k]}`, best first (ties in key order). */
function similaritySearch(query: Val, keys: string[], k: Val): Val {
  if (typeof query !== 'string') throw new PyExc(`'${typeName(query)}' object has no attribute 'replace'`)
  const scores = bm25PlusScores(keys.map(tokens), tokens(query))
  const ranked = keys.map((key, i) => ({ key, s: scores[i]!, i })).sort((a, b) => b.s - a.s || a.i - b.i)
  return new Map<string, Val>([['ranked_results', sliceTo(ranked, k).map((r) => new PyTuple([new PyFloat(r.s), r.key]))]])
}

/** `json.dumps(v, indent=4)` of a memory's state (dicts of str, as the backends keep it). */
export function memoryJson(v: Val, level = 0): string {
  if (typeof v === 'string') return pyJsonString(v, true)
  if (!(v instanceof Map) || v.size === 0) return v instanceof Map ? '{}' : pyJsonString(str(v), true)
  const pad = (n: number) => '\n' + ' '.repeat(4 * n)
  return '{' + [...v].map(([k, x]) => pad(level + 1) + pyJsonString(String(k), true) + ': ' + memoryJson(x, level + 1)).join(',') + pad(level) + '}'
}

/** What both backends share: BFCL's snapshot carry-over and the system prompt built from the memory. */
export interface MemoryBackend extends AgenticApi {
  /** The state as BFCL's snapshot file holds it. */
  snapshot(): PyDict
  /** The memory as the system prompt shows it (`_dump_core_memory_to_context`). */
  contextDump(): string
}

function has(d: Map<string, string>, key: Val): boolean {
  if (!isHashable(key)) throw new PyExc(`unhashable type: '${typeName(key)}'`)
  return typeof key === 'string' && d.has(key)
}

/** One of the kv backend's two memories, with BFCL's limits and messages. */
function kvStore(d: Map<string, string>, maxSize: number, maxLength: number, full: string, addOk: string, cleared: string, reset: () => void): Record<string, AgenticMethod> {
  return {
    add: {
      params: ['key', 'value'],
      call([k, v]) {
        const key = str(k!)
        const value = str(v!)
        if (d.size >= maxSize) return ok('error', full)
        if (pyLen(value) > maxLength) return ok('error', `Entry is too long. Please shorten the entry to less than ${maxLength} characters.`)
        if (!SNAKE.test(key.endsWith('\n') ? key.slice(0, -1) : key)) return ok('error', 'Key must be in snake_case format and cannot contain spaces.')
        if (d.has(key)) return ok('error', 'Key name must be unique.')
        d.set(key, value)
        return ok('status', addOk)
      },
    },
    remove: {
      params: ['key'],
      call([k]) {
        if (!has(d, k!)) return ok('error', 'Key not found.')
        d.delete(k as string)
        return ok('status', 'Key removed.')
      },
    },
    replace: {
      params: ['key', 'value'],
      call([k, v]) {
        const key = str(k!)
        const value = str(v!)
        if (!d.has(key)) return ok('error', 'Key not found.')
        if (pyLen(value) > maxLength) return ok('error', `Entry is too long. Please shorten the entry to less than ${maxLength} characters.`)
        d.set(key, value)
        return ok('status', 'Key replaced.')
      },
    },
    clear: {
      params: [],
      call() {
        reset()
        return ok('status', cleared)
      },
    },
    retrieve: {
      params: ['key'],
      call([k]) {
        if (!has(d, k!)) return ok('error', 'Key not found.')
        return ok('value', d.get(k as string)!)
      },
    },
    list_keys: { params: [], call: () => new Map<string, Val>([['keys', [...d.keys()]]]) },
    key_search: { params: ['query', opt('k', 5)], call: ([q, k]) => similaritySearch(q!, [...d.keys()], k!) },
    retrieve_all: { params: [], call: () => new Map<string, Val>(d) },
  }
}

export class MemoryKv implements MemoryBackend {
  readonly className = 'MemoryAPI_kv'
  core = new Map<string, string>()
  archival = new Map<string, string>()

  constructor(snapshot?: PyDict) {
    const load = (v: Val | undefined) => new Map([...(v instanceof Map ? v : new Map())].map(([k, x]) => [String(k), String(x)]))
    if (snapshot !== undefined) {
      this.core = load(snapshot.get('core_memory'))
      this.archival = load(snapshot.get('archival_memory'))
    }
  }

  methods(): Record<string, AgenticMethod> {
    const out: Record<string, AgenticMethod> = {}
    // `clear` rebinds the dict in BFCL; the methods read the new one through `this`.
    const core = kvStore(this.core, 7, 300, 'Core memory is full. Please clear some entries.', 'Key-value pair added.', 'Short term memory cleared.', () => this.core.clear())
    const archival = kvStore(this.archival, 50, 2000, 'Long term memory is full. Please clear some entries.', 'Key added.', 'Long term memory cleared.', () => this.archival.clear())
    for (const [name, m] of Object.entries(core)) out[`core_memory_${name}`] = m
    for (const [name, m] of Object.entries(archival)) out[`archival_memory_${name}`] = m
    return out
  }

  snapshot(): PyDict {
    return new Map<string, Val>([['core_memory', new Map(this.core)], ['archival_memory', new Map(this.archival)]])
  }

  contextDump(): string {
    return this.core.size === 0 ? 'There is no content in the core memory at this point.' : memoryJson(new Map(this.core))
  }
}

const REC_SUM_MAX = 10000

export class MemoryRecSum implements MemoryBackend {
  readonly className = 'MemoryAPI_rec_sum'
  memory = ''

  constructor(snapshot?: PyDict) {
    const m = snapshot?.get('memory')
    if (typeof m === 'string') this.memory = m
  }

  methods(): Record<string, AgenticMethod> {
    return {
      memory_append: {
        params: ['text'],
        call: ([t]) => {
          const text = str(t!)
          if (pyLen(this.memory + text) > REC_SUM_MAX) return ok('error', `Entry will be too long after appending. Please shorten the entry to less than ${REC_SUM_MAX} characters.`)
          this.memory += text
          return ok('status', 'Memory appended.')
        },
      },
      memory_clear: {
        params: [],
        call: () => {
          this.memory = ''
          return ok('status', 'Short term memory cleared.')
        },
      },
      memory_replace: {
        params: ['old_text', 'new_text'],
        call: ([o, n]) => {
          const oldText = str(o!)
          const newText = str(n!)
          if (!this.memory.includes(oldText)) return ok('error', `Text '${oldText}' not found in memory.`)
          if (pyLen(newText) > REC_SUM_MAX) return ok('error', `Entry will be too long after replacing. Please shorten the entry to less than ${REC_SUM_MAX} characters.`)
          this.memory = this.memory.split(oldText).join(newText)
          return ok('status', 'Memory updated.')
        },
      },
      memory_retrieve: { params: [], call: () => (this.memory === '' ? ok('error', 'Memory is empty.') : ok('memory_content', this.memory)) },
      memory_update: {
        params: ['text'],
        call: ([t]) => {
          const text = str(t!)
          if (pyLen(text) > REC_SUM_MAX) return ok('error', `Entry will be too long after updating. Please shorten the entry to less than ${REC_SUM_MAX} characters.`)
          this.memory = text
          return ok('status', 'Memory updated.')
        },
      },
    }
  }

  snapshot(): PyDict {
    return new Map<string, Val>([['memory', this.memory]])
  }

  contextDump(): string {
    return this.memory === '' ? 'There is no content in the memory at this point.' : this.memory
  }
}

/** The backends generated here, by category; `memory_vector` is refused (see the module comment). */
export const MEMORY_BACKENDS: Record<string, (snapshot?: PyDict) => MemoryBackend> = {
  memory_kv: (s) => new MemoryKv(s && deepCopy(s)),
  memory_rec_sum: (s) => new MemoryRecSum(s && deepCopy(s)),
}

/** `add_memory_instruction_system_prompt`: the memory's system prompt, before an existing system message's text. */
export function withMemoryPrompt<M extends { role: string; content?: unknown }>(messages: readonly M[], category: string, scenario: string, backend: MemoryBackend): M[] {
  const setting = SETTINGS[scenario]
  if (setting === undefined) throw new Error(`unknown memory scenario "${scenario}"`)
  const prompt = (category.includes('rec_sum') ? UNIFIED : CORE_ARCHIVAL)(setting, backend.contextDump())
  const [first, ...rest] = messages
  if (first !== undefined && first.role === 'system') return [{ ...first, content: `${prompt}\n\n${String(first.content)}` }, ...rest]
  return [{ role: 'system', content: prompt } as M, ...messages]
}
