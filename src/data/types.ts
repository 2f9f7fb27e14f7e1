import type { ExpectedCall } from '../calls/types.js'
import type { Sample } from '../score/types.js'
import type { HubLimits } from './hub-limits.js'

// The conversation shapes live below data/ (scorers read them too); data/ is where they are made.
export type { ChatMessage } from '../calls/types.js'
export type { Sample } from '../score/types.js'

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
  /** Set when the data source itself could not be read (a missing file): no sample is at fault. */
  unreadable?: true
  /** The expected calls when they could be read: the errored sample then scores as "no prediction" against them. */
  expected?: ExpectedCall[]
}

/** One entry of a loaded dataset, in file order: a sample, or a line that could not be made into one. */
export type DataEntry = { sample: Sample; error?: undefined } | { error: SampleError; sample?: undefined }

/**
 * Where samples come from: a JSONL file path (relative to Vitest's root, see data/input-root.ts) or URL, a Hub dataset
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
  /**
   * Bounds on loading an `hf://` dataset (bytes per response, file-list pages, and per Parquet file its rows, row
   * groups and decompressed bytes), each with a generous default; passing one is an error naming the file and limit.
   */
  hub?: HubLimits
}
