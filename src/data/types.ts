import type { ToolDefinition } from '../calls/types.js'
import type { ExpectedCall } from '../score/types.js'

/** A chat message, OpenAI style. Extra fields are kept as they are (they may matter to a chat template). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | string
  content?: string | null
  tool_calls?: { id?: string; type?: string; function: { name: string; arguments: string | Record<string, unknown> } }[]
  tool_call_id?: string
  name?: string
  [key: string]: unknown
}

/** One eval sample: the conversation so far, the tools on offer, and the calls expected (`[]`: no call). */
export interface Sample {
  id: string
  messages: ChatMessage[]
  tools?: ToolDefinition[]
  expected: ExpectedCall[]
  /** Where the sample came from, for error messages: file and 1-based line. */
  source?: { file: string; line: number }
  /** Anything else the data line carried (kept for custom assertions and scorers). */
  extra?: Record<string, unknown>
}
