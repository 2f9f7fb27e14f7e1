/**
 * describeEval's options checked before its suite is defined: every key known (a misspelt one named with the closest,
 * at the top and inside the options given as objects), the model and data present, and each value the suite's plan
 * needs (format, agent, scorers, trials, snapshot) read. describeEval turns a throw here into its suite's one failing
 * test.
 */
import { assertKnownFormat } from '../calls/index.js'
import { checkOptionKeys, suggestion, type OptionKeys } from '../calls/options.js'
import type { ModelProvider } from '../models/types.js'
import type { Scorer } from '../score/scorer.js'
import { BUILTIN_SCORERS, type BuiltinScorerOptions } from '../score/scorers/index.js'
import { agentOptionsOf } from './agent.js'
import type { EvalOptions } from './options.js'
import { isMcpTools, type McpTools } from './mcp/tools.js'
import { activeScorers } from './scorers.js'
import { snapshotPlan } from './snapshot.js'
import { trialsPlan } from './trials.js'
import { taskProvider } from './task.js'

/** The name of the one failing test of a suite whose options are wrong. */
export const INVALID_OPTIONS_TEST = '[invalid describeEval options]'

/** describeEval's own option names; the built-in scorers' are added from their registry. */
const OWN_OPTION_KEYS: OptionKeys<Omit<EvalOptions, keyof BuiltinScorerOptions>> = {
  data: true, model: true, concurrency: true, timeout: true, strict: true, assert: true, match: true, strictTypes: true,
  format: true, failOnError: true, maxOutputChars: true, trials: true, snapshot: true, scorers: true, limit: true,
  maxSamples: true, split: true, revision: true, config: true, hub: true, tools: true, environment: true, maxSteps: true,
  resume: true, task: true, models: true, reference: true,
}
// Read at each check: a part above (BFCL) registers its scorer, and so its option, when its entry is loaded.
const evalOptionKeys = (): readonly string[] => [...Object.keys(OWN_OPTION_KEYS), ...BUILTIN_SCORERS.map((s) => s.name)]

export interface SuitePlan {
  model: ModelProvider
  mcp: McpTools | undefined
  agent: ReturnType<typeof agentOptionsOf>
  scorers: Scorer[]
  trials: ReturnType<typeof trialsPlan>
  snapshot: ReturnType<typeof snapshotPlan>
}

/** describeEval's options, checked (a misspelt key, a missing model or data, a bad value throw naming it). */
export function planSuite(name: string, options: EvalOptions): SuitePlan {
  const where = `describeEval("${name}")`
  checkOptionKeys(options, evalOptionKeys(), where)
  const { data } = options
  const model = modelOf(options, name, where)
  if (typeof data !== 'string' && !(data instanceof URL) && !Array.isArray(data)) {
    throw new TypeError(`${where}: option \`data\` must be a JSONL path, a URL (hf://datasets/...) or an array of samples, got ${data === null ? 'null' : typeof data}`)
  }
  if (options.format !== undefined) assertKnownFormat(options.format, `${where}: option \`format\``)
  if (options.resume !== undefined && typeof options.resume !== 'boolean') throw new TypeError(`${where}: option \`resume\` must be true or false`)
  checkNestedOptions(options, where)
  // `tools` or `environment`: each sample runs through the agent loop, its trajectory scored by default.
  // MCP tools: the server's list replaces the samples' tools; executed, they are the agent's environment.
  const mcp = isMcpTools(options.tools) ? options.tools : undefined
  if (mcp && options.environment !== undefined) throw new Error(`${where}: give \`tools\` or \`environment\`, not both`)
  const agent = agentOptionsOf(mcp ? { ...options, tools: undefined, environment: mcp.execute ? () => mcp.environment() : undefined } : options, where)
  const scorers = activeScorers(agent && options.trajectory === undefined ? { ...options, trajectory: true } : options)
  const trials = trialsPlan(options.trials, where)
  const snapshot = snapshotPlan(options.snapshot, where)
  return { model, mcp, agent, scorers, trials, snapshot }
}

/** The model under test: `model`, or the user's `task` as a provider (exactly one of them). */
function modelOf(options: EvalOptions, name: string, where: string): ModelProvider {
  const { model, task } = options
  if (task !== undefined && model !== undefined) {
    throw new TypeError(`${where}: give \`model\` (a provider) or \`task\` (your own function), not both`)
  }
  if (task !== undefined) {
    if (typeof task !== 'function') throw new TypeError(`${where}: option \`task\` must be a function (sample, { signal, deadline }) => output, got ${task === null ? 'null' : typeof task}`)
    return taskProvider(task, name)
  }
  if (typeof model !== 'object' || model === null || typeof model.generate !== 'function') {
    throw new TypeError(`${where}: option \`model\` must be a provider (replay(...), openaiCompatible(...), local(...)), or give \`task\`, your own function; got ${model === null ? 'null' : typeof model}`)
  }
  return model
}

/** What a matrix suite's metas carry: the model's key and the eval's reference model (EvalMeta.model, .reference). */
export interface MatrixTag {
  model: string
  reference: string
}

/**
 * A model matrix's models in the order given and its reference (the first key unless `reference` names another);
 * undefined without `models`. Throws on `models` with `model`, an empty or non-provider entry, an unknown reference.
 */
export function planMatrix(name: string, options: EvalOptions): { models: { key: string; model: ModelProvider }[]; reference: string } | undefined {
  const where = `describeEval("${name}")`
  const { models, reference } = options
  if (models === undefined) {
    if (reference !== undefined) throw new TypeError(`${where}: option \`reference\` names a model of \`models\`, and there is no \`models\``)
    return undefined
  }
  if (options.model !== undefined) throw new TypeError(`${where}: give \`model\` or \`models\`, not both`)
  if (options.task !== undefined) throw new TypeError(`${where}: give \`task\` or \`models\`, not both`)
  if (typeof models !== 'object' || models === null || Array.isArray(models)) throw new TypeError(`${where}: option \`models\` must be an object of providers by name ({ base: …, sft: … })`)
  const entries = Object.entries(models)
  if (entries.length === 0) throw new TypeError(`${where}: option \`models\` names no model`)
  for (const [key, model] of entries) {
    if (typeof model !== 'object' || model === null || typeof (model as ModelProvider).generate !== 'function') {
      throw new TypeError(`${where}: option \`models.${key}\` must be a provider (replay(...), openaiCompatible(...), local(...)), got ${model === null ? 'null' : typeof model}`)
    }
    // The key is a describe block's name and a part of the suite's: a `>` would make `<eval> > <model>` ambiguous.
    if (key.trim() === '' || key.includes('>')) throw new TypeError(`${where}: option \`models\`: the name ${JSON.stringify(key)} cannot name a model (empty, or holds \`>\`)`)
  }
  const keys = entries.map(([k]) => k)
  const ref = reference ?? (keys[0] as string)
  if (!keys.includes(ref)) throw new TypeError(`${where}: option \`reference\` is ${JSON.stringify(ref)}, not a key of \`models\`; ${suggestion(ref, keys, 'models')}`)
  return { models: entries.map(([key, model]) => ({ key, model })), reference: ref }
}

const NESTED_OPTION_KEYS: { [K in 'judge' | 'schema' | 'trajectory' | 'trials' | 'snapshot' | 'hub']: OptionKeys<Extract<EvalOptions[K], object>> } = {
  judge: { model: true, kinds: true, cache: true },
  schema: { weights: true, semantics: true },
  trajectory: { mode: true, strictTypes: true },
  hub: { maxBytes: true, maxRows: true, maxRowGroups: true, maxDecompressedBytes: true, maxPages: true },
  trials: { count: true, reduce: true },
  snapshot: { mode: true, ignore: true },
}

/** The options given as objects: an unknown key in them is as silent as one at the top. */
function checkNestedOptions(options: EvalOptions, where: string): void {
  for (const [name, keys] of Object.entries(NESTED_OPTION_KEYS)) {
    const value: unknown = (options as unknown as Record<string, unknown>)[name]
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) checkOptionKeys(value, keys, `${where}: option \`${name}\``)
  }
}
