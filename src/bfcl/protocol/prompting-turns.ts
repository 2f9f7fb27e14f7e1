/**
 * BFCL's multi-turn protocol in prompting mode (gorilla 8db0b7ca, `base_handler.inference_multi_turn_prompting`):
 * the system prompt with the entry's (hinted) function docs; a held-out turn's message lists the held-out docs
 * (`"{functions}\nI have updated some more functions..."`, Python's `str()` of them); each reply's message is
 * appended as sent; its text decoded as Python calls (a text that does not decode, or no call, ends the turn); the
 * calls run on the simulated APIs and their results go back as one user message, `repr()` of
 * `[{'role': 'tool', 'name': <call>, 'content': <result>}]`; more than 20 steps in a turn ends the entry.
 */
import type { ChatMessage } from '../../calls/types.js'
import { hintedFunctions, withPromptingSystemPrompt } from '../data/request.js'
import type { Sample } from '../../data/types.js'
import { ADDITIONAL_FUNCTION_PROMPT, funcDocs } from './multi-turn.js'
import type { BfclEnvironmentName } from './environment.js'
import type { ModelOutput, ModelProvider } from '../../models/types.js'
import { decodeResult } from '../checker/decode.js'
import { ApiSession } from '../multi-turn/api.js'
import { InstanceSet } from '../multi-turn/executor.js'
import { isPyDict, pyRepr, type PyDict, type PyValue } from '../../python/operations.js'

/** BFCL's `MAXIMUM_STEP_LIMIT`: a turn's step count past it force-quits the entry. */
const MAXIMUM_STEP_LIMIT = 20

/** `parse_nested_value`: a call's argument as BFCL writes it into the call string. */
export function parseNestedValue(v: PyValue): string {
  if (isPyDict(v)) {
    const values = [...v.values()]
    if (values.every((x) => isPyDict(x))) {
      const [name, args] = [...v][0] ?? ['', new Map()]
      return `${String(name)}(${[...(args as PyDict)].map(([k, x]) => `${String(k)}=${parseNestedValue(x)}`).join(', ')})`
    }
    return '{' + [...v].map(([k, x]) => `'${String(k)}': ${parseNestedValue(x)}`).join(', ') + '}'
  }
  return pyRepr(v)
}

/** `default_decode_execute_prompting`: the call strings of a reply, or undefined where it does not decode. */
export function executionList(text: unknown): string[] | undefined {
  if (typeof text !== 'string') return undefined
  const decoded = decodeResult(text, { format: 'prompting' })
  if (!decoded.ok) return undefined
  const out: string[] = []
  for (const call of decoded.decoded) {
    if (!isPyDict(call)) return undefined
    for (const [name, args] of call) out.push(`${String(name)}(${[...(args as PyDict)].map(([k, x]) => `${String(k)}=${parseNestedValue(x)}`).join(', ')})`)
  }
  return out
}

export interface PromptingEntry {
  id: string
  category: string
  question: ChatMessage[][]
  classes: BfclEnvironmentName[]
  config: PyDict
  missed: Record<string, string[]>
}

export interface PromptingStep {
  response: unknown
  output: ModelOutput
  turn: number
}

/** Run one entry; the steps in order, each with its turn, and the number of turns run. */
export async function runPromptingEntry(entry: PromptingEntry, funcDocDir: string, provider: ModelProvider): Promise<{ steps: PromptingStep[]; turns: number; error?: string }> {
  const docs = funcDocs(entry.classes, funcDocDir)
  const held: Record<string, PyValue[]> = {}
  for (const [turn, names] of Object.entries(entry.missed)) {
    held[turn] = []
    for (const name of names) {
      const i = docs.findIndex((d) => isPyDict(d) && d.get('name') === name)
      if (i >= 0) held[turn].push(...docs.splice(i, 1))
    }
  }
  const hinted = hintedFunctions(docs, entry.category)
  const longContext = entry.category.includes('long_context')
  const apis = new InstanceSet(new ApiSession(), entry.classes, entry.config, `bfcl_run_${entry.id}`, longContext)
  const messages: ChatMessage[] = []
  const steps: PromptingStep[] = []
  let turns = 0
  for (const [turn, given] of entry.question.entries()) {
    let turnMessages = turn === 0 ? withPromptingSystemPrompt(given, hinted) : given
    if (Object.hasOwn(held, String(turn))) {
      if (given.length > 0) return { steps, turns, error: 'Holdout turn should not have user message.' }
      turnMessages = [{ role: 'user', content: `${pyRepr(held[String(turn)]!)}\n${ADDITIONAL_FUNCTION_PROMPT}` }]
    }
    messages.push(...turnMessages)
    turns = turn + 1
    let count = 0
    for (;;) {
      const sample: Sample = { id: entry.id, messages: [...messages], expected: [] }
      const output = await provider.generate(sample)
      const message = output.message ?? { role: 'assistant', content: output.text ?? '' }
      messages.push(message as ChatMessage)
      steps.push({ response: message['content'] ?? null, output, turn })
      const calls = executionList(message['content'])
      if (calls === undefined || calls.length === 0 || (calls.length === 1 && calls[0] === '')) break
      const results = apis.execute(calls)
      const toolMessages: PyValue = calls.map((c, i) => new Map<string, PyValue>([['role', 'tool'], ['name', c], ['content', results[i] ?? null]]))
      messages.push({ role: 'user', content: pyRepr(toolMessages) })
      count++
      if (count > MAXIMUM_STEP_LIMIT) return { steps, turns }
    }
  }
  return { steps, turns }
}
