/**
 * BFCL's multi-turn prompting protocol (gorilla 8db0b7ca, `base_handler.inference_multi_turn_prompting`) for one
 * agentic entry: the function docs' system prompt before the entry's own system message (the memory's and the
 * answer format's), each reply's message appended as sent, its text decoded as Python calls (text that does not
 * decode, or no call, ends the turn), the calls run on the backend and their results sent back as one user message
 * (`repr()` of `[{'role': 'tool', 'name': <call>, 'content': <result>}]`), more than 20 steps in a turn ending the entry.
 */
import type { ChatMessage } from '../../calls/types.js'
import { withPromptingSystemPrompt } from '../data/request.js'
import type { Sample } from '../../data/types.js'
import { ToolRuntimeError } from '../../eval/agent.js'
import type { ModelOutput, ModelProvider } from '../../models/types.js'
import { executeAgenticCall, type AgenticApi } from '../agentic/executor.js'
import { pyRepr, type PyValue } from '../../python/operations.js'
import { NotRecordedError } from '../agentic/web-search.js'
import { executionList } from './prompting-turns.js'

const MAXIMUM_STEP_LIMIT = 20

export interface AgenticPromptingStep {
  response: unknown
  output: ModelOutput
  turn: number
}

/** Run one entry's turns; the steps in order with their turn, and the number of turns run. Throws as BFCL's inference raises. */
export async function runAgenticPrompting(id: string, turns: readonly ChatMessage[][], functions: readonly PyValue[], api: AgenticApi, name: string, provider: ModelProvider): Promise<{ steps: AgenticPromptingStep[]; turns: number }> {
  const messages: ChatMessage[] = []
  const steps: AgenticPromptingStep[] = []
  let count = 0
  for (const [turn, given] of turns.entries()) {
    messages.push(...(turn === 0 ? withPromptingSystemPrompt(given, functions) : given))
    count = 0
    for (;;) {
      const sample: Sample = { id, messages: [...messages], expected: [] }
      const output = await provider.generate(sample)
      const message = output.message ?? { role: 'assistant', content: output.text ?? '' }
      messages.push(message as ChatMessage)
      steps.push({ response: message['content'] ?? null, output, turn })
      const calls = executionList(message['content'])
      if (calls === undefined || calls.length === 0) break
      const results: string[] = []
      for (const call of calls) {
        try {
          results.push(await executeAgenticCall(api, name, call))
        } catch (e) {
          if (e instanceof NotRecordedError) throw new ToolRuntimeError(e.message, 'web search result not recorded')
          throw e
        }
      }
      const toolMessages: PyValue = calls.map((c, i) => new Map<string, PyValue>([['role', 'tool'], ['name', c], ['content', results[i] ?? null]]))
      messages.push({ role: 'user', content: pyRepr(toolMessages) })
      count++
      if (count > MAXIMUM_STEP_LIMIT) return { steps, turns: turn + 1 }
    }
  }
  return { steps, turns: turns.length }
}
