/**
 * BFCL's simulated APIs (a file system, messaging, posting, tickets, a trading bot, travel booking, vehicle control,
 * maths) as ready environments for the agent loop:
 *
 *   describeEval('files', {
 *     data: [...],
 *     model,
 *     environment: bfclEnvironment('GorillaFileSystem', { root: { workspace: { type: 'directory', contents: {} } } }),
 *     tools: ...,  // no: the environment executes the calls; the samples offer the tool schemas
 *     assert: (r) => expect(r).toEndWithState({ GorillaFileSystem: { _current_dir: 'workspace' } }),
 *   })
 *
 * Each call runs as BFCL runs it (the same executor the multi-turn checker uses): arguments bound the Python way,
 * results as the strings BFCL feeds back, a Python exception as `Error during execution: ...` (a tool error here).
 * The end state is each instance's public attributes, as plain JSON (files and directories as objects).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ToolDefinition } from '../../calls/types.js'
import { bfclTools } from '../data/load.js'
import type { Sample } from '../../data/types.js'
import { fromJson, PyFloat, PyTuple, type PyDict, type PyValue } from '../../python/operations.js'
import { ApiSession } from '../multi-turn/api.js'
import { API_CLASSES, callString, InstanceSet } from '../multi-turn/executor.js'
import { FsDirectory, FsFile } from '../multi-turn/file-system.js'
import { isPyObject, PySet } from '../../python/runtime.js'
import type { AgentEnvironment, EnvironmentFactory } from '../../eval/agent.js'
import type { JsonValue } from '../../calls/types.js'

/** The simulated API classes, by BFCL's names. */
export const BFCL_ENVIRONMENTS = Object.keys(API_CLASSES) as BfclEnvironmentName[]
export type BfclEnvironmentName =
  | 'GorillaFileSystem'
  | 'MathAPI'
  | 'MessageAPI'
  | 'TwitterAPI'
  | 'TicketAPI'
  | 'TradingBot'
  | 'TravelAPI'
  | 'VehicleControlAPI'

/** Each class's function document in BFCL's `multi_turn_func_doc/` folder. */
export const FUNC_DOC_FILES: Record<BfclEnvironmentName, string> = {
  GorillaFileSystem: 'gorilla_file_system.json',
  MathAPI: 'math_api.json',
  MessageAPI: 'message_api.json',
  TwitterAPI: 'posting_api.json',
  TicketAPI: 'ticket_api.json',
  TradingBot: 'trading_bot.json',
  TravelAPI: 'travel_booking.json',
  VehicleControlAPI: 'vehicle_control.json',
}

export interface BfclEnvironmentOptions {
  /**
   * BFCL's `multi_turn_func_doc/` folder: the tools offered to the model are read from it (BFCL's schemas). Without
   * it, the samples' own `tools` are offered.
   */
  funcDocDir?: string
  /** Load the scenarios with BFCL's long-context extensions (`multi_turn_long_context`). */
  longContext?: boolean
  /** JSON Pointers (RFC 6901) of the numbers in `initialConfig` that are floats in BFCL's data (`10.0`). */
  floatPaths?: string[]
}


/** A simulated API's state value as plain JSON. */
function plainState(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v
  if (v instanceof PyFloat) return v.value
  if (v instanceof PyTuple) return v.items.map(plainState)
  if (Array.isArray(v)) return v.map(plainState)
  if (v instanceof FsFile) return { type: 'file', content: v.content }
  if (v instanceof FsDirectory) return { type: 'directory', name: v.name, contents: Object.fromEntries([...v.contents].map(([k, x]) => [k, plainState(x)])) }
  if (v instanceof PySet) return [...v.items.values()].map(plainState)
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), plainState(x)]))
  if (isPyObject(v)) return v.pyRepr()
  return String(v)
}

/** The classes' tools from BFCL's function documents. */
export function bfclEnvironmentTools(classes: readonly BfclEnvironmentName[], funcDocDir: string): ToolDefinition[] {
  return classes.flatMap((c) => {
    const text = readFileSync(join(funcDocDir, FUNC_DOC_FILES[c]), 'utf8')
    const docs = text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Parameters<typeof bfclTools>[0][number])
    return bfclTools(docs)
  })
}

/**
 * A fresh BFCL environment per sample: one instance of each named class, loaded with `initialConfig` (BFCL's
 * `initial_config`, by class name; or one class's own config when a single class is named). Without it, the
 * sample's `initial_config` field (as BFCL's entries carry it) is used.
 */
export function bfclEnvironment(
  classes: BfclEnvironmentName | readonly BfclEnvironmentName[],
  initialConfig?: Record<string, unknown>,
  options: BfclEnvironmentOptions = {},
): EnvironmentFactory {
  const names = typeof classes === 'string' ? [classes] : [...classes]
  for (const c of names) {
    if (!Object.hasOwn(API_CLASSES, c)) throw new Error(`bfclEnvironment: unknown class "${c}" (known: ${BFCL_ENVIRONMENTS.join(', ')})`)
  }
  const tools = options.funcDocDir !== undefined ? bfclEnvironmentTools(names, options.funcDocDir) : undefined
  return (sample: Sample): AgentEnvironment => {
    // A fresh instance set per sample: BFCL's state never leaks from one entry to the next.
    const config = configOf(names, initialConfig ?? (sample.extra?.['initial_config'] as Record<string, unknown> | undefined), options.floatPaths)
    const set = new InstanceSet(new ApiSession(), names, config, 'agent', options.longContext ?? false)
    const env: AgentEnvironment = {
      call(name, args, context) {
        const [result] = set.execute([callString(name, args, context?.call?.floatPaths)])
        // BFCL feeds an exception back as this text: here it is also counted as a tool error.
        const prefix = 'Error during execution: '
        if (result !== undefined && result.startsWith(prefix)) throw new Error(result.slice(prefix.length))
        return result
      },
      state() {
        const out: Record<string, unknown> = {}
        for (const [className, instance] of set.instances) {
          if (instance.stateless) continue
          out[className] = Object.fromEntries(instance.state().map(([k, v]) => [k, plainState(v)]))
        }
        return out
      },
    }
    if (tools !== undefined) env.tools = tools
    return env
  }
}

/** BFCL's initial_config (by class) as the executor takes it; a single class's bare config is wrapped. */
function configOf(names: readonly string[], config: Record<string, unknown> | undefined, floatPaths?: readonly string[]): PyDict {
  if (config === undefined) return new Map()
  const byClass = names.length === 1 && !Object.hasOwn(config, names[0] as string) ? { [names[0] as string]: config } : config
  // Float paths point into the config as given: they apply when it was given by class.
  const v = fromJson(byClass as JsonValue, byClass === config ? floatPaths : undefined) as PyValue | undefined
  if (!(v instanceof Map)) throw new Error('bfclEnvironment: the initial config must be an object')
  return v
}
