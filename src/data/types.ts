import type { ToolDefinition } from '../calls/types.js'
import type { BfclAnswer } from '../score/bfcl/answer.js'
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
  /** The BFCL answer this sample is checked against (the `bfcl` option), as `loadBfclCategory` makes it. */
  bfcl?: BfclAnswer
  /** `"mustPass": true` on the data line: a baseline comparison fails the run if this sample goes from right to wrong. */
  mustPass?: boolean
  /** Anything else the data line carried (kept for custom assertions and scorers). */
  extra?: Record<string, unknown>
}

/**
 * A sample that could not be read: it becomes its own failing test case and an errored record in the report, so the
 * report's sample count still equals the dataset's.
 */
export interface SampleError {
  /** Where it is, as the user will look for it: `fixtures/weather.jsonl:3`, or `data[2]` for in-memory arrays. */
  where: string
  /** File and 1-based line, when the sample came from a file. */
  source?: { file: string; line: number }
  /** The sample's id when the line had a readable one. */
  id?: string
  /** Path of the offending field, e.g. `expected[0].name`; '' when the line as a whole is wrong. */
  field: string
  /** What is wrong, without the location (see `where` and `field`). */
  message: string
  /** The expected calls when they could be read: the errored sample then scores as "no prediction" against them. */
  expected?: ExpectedCall[]
}

/** One entry of a loaded dataset, in file order: a sample, or a line that could not be made into one. */
export type DataEntry = { sample: Sample; error?: undefined } | { error: SampleError; sample?: undefined }

/**
 * Where samples come from: a JSONL file path (relative to the working directory) or URL, a Hub dataset
 * (`hf://datasets/<owner>/<name>`, see DataOptions), or an in-memory array of
 * sample objects (the same shapes as the JSONL lines, dialogues included).
 */
export type DataSource = string | URL | readonly unknown[]

/** How much of a data source to read, and which part of a Hub dataset (`data: 'hf://datasets/<owner>/<name>'`). */
export interface DataOptions {
  /**
   * Data objects read, at most: JSONL lines, array items or dataset rows, a dialogue counting once however many
   * samples it expands into, an invalid one counting too (NeMo's evaluator's `limit`).
   */
  limit?: number
  /** Samples kept, at most, after dialogues are expanded (an invalid entry counts: it is a test case too). */
  maxSamples?: number
  /** The split of an `hf://` dataset (`train`, `test`, ...): required, a missing one is an error listing the splits. */
  split?: string
  /** The branch, tag or commit of an `hf://` dataset (default `main`). */
  revision?: string
  /** The config (subset) of an `hf://` dataset that has several. */
  config?: string
}
