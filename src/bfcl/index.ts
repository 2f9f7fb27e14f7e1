// `vitest-tool-evals/bfcl`: the Berkeley Function Calling Leaderboard as its own part (docs/bfcl.md). An explicit list:
// its data as samples, the scorer's recorded shapes and the matcher, the simulated APIs as agent environments and
// the multi-turn protocol, then the checker itself (decoding, category scoring, score files, summaries) and the
// Python values it works on. `import * as bfcl from 'vitest-tool-evals/bfcl'` is what the root's `bfcl` namespace was.

// Its scorer and matcher join the built-in ones (register.ts).
import './register.js'

// Data: BFCL's files as samples.
export { bfclTools, loadBfclCategory, type BfclLoadOptions, type BfclLoadResult, type BfclSampleLine } from './data/load.js'

// In Vitest: the `bfcl` scorer's recorded shapes, the matcher (registered by `vitest-tool-evals/setup`).
export type { BfclAggregate, BfclRecord } from './scorer/scorer.js'
export { bfclMatchers, toMatchBfclAnswer, type BfclMatchers, type ToMatchBfclAnswerOptions } from './scorer/matchers.js'

// Agents: the simulated APIs as environments, and multi-turn categories driven as BFCL's handler drives them.
export { BFCL_ENVIRONMENTS, bfclEnvironment, type BfclEnvironmentName, type BfclEnvironmentOptions } from './protocol/environment.js'
export { bfclMultiTurn, type BfclMultiTurnOptions } from './protocol/multi-turn.js'
// v4's web-search categories in an eval, over a user-supplied backend or a recording (no live search).
export { bfclWebSearch, type BfclWebSearchOptions } from './protocol/web-search.js'
export { loadRecordedWebSearch, recordedWebSearch, type RecordedWebSearch, type WebSearchBackend } from './agentic/web-search.js'

// The checker: categories, the AST checker, decoding, scoring entries and categories, answers, summaries, files.
export {
  BFCL_CATEGORIES,
  categoryInfo,
  compareIds,
  dataFileName,
  isBfclCategory,
  resultFileName,
  scoreFileName,
  unsupportedReason,
  type BfclCategory,
  type CategoryInfo,
} from './checker/categories.js'
export {
  checkCall,
  checkMultiple,
  checkParallel,
  checkSimple,
  findFunction,
  type BfclFunction,
  type BfclParam,
  type CheckError,
  type CheckOptions,
  type CheckResult,
  type ParallelSubError,
} from './checker/checker.js'
export {
  bfclPromptingText,
  decodeResult,
  isEmptyOutput,
  isFunctionCallingFormat,
  type BfclResultFormat,
  type DecodeOptions,
  type DecodeResult,
} from './checker/decode.js'
export {
  INPUT_ERROR,
  REFERENCE_CRASH,
  scoreCategory,
  scoreDecoded,
  scoreEntry,
  scoreFileEntry,
  scoreFileText,
  type BfclCategoryInput,
  type BfclCategoryScore,
  type BfclEntryInput,
  type BfclResultLine,
  type BfclScoredEntry,
  type BfclScoreOptions,
  type BfclTestEntry,
  type BfclVerdict,
} from './checker/score.js'
export { bfclFunctions, checkBfclAnswer, decodeToolCalls, type BfclAnswer, type BfclReceived } from './checker/answer.js'
export { formatPercent, summarizeBfcl, type BfclSummaries, type CategoryCount, type Summary } from './checker/aggregate.js'
export {
  categoryDataFromText,
  functionsFromJson,
  loadCategoryData,
  loadCategoryResults,
  parseJsonLines,
  resultCategories,
  resultLinesFromText,
  type BfclCategoryData,
  type BfclResultsFile,
} from './checker/files.js'
// The Python values the checker compares (from the Python layer, src/python/).
export {
  MAX_DEPTH,
  PyCrash,
  PyFloat,
  PyTuple,
  fromJson,
  pyEq,
  pyJsonDumps,
  pyRepr,
  pyType,
  standardizeString,
  toJsonWithFloatPaths,
  toPlain,
  type PyDict,
  type PyTypeName,
  type PyValue,
} from '../python/operations.js'
