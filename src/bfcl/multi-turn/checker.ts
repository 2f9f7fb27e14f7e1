/**
 * BFCL's multi-turn checker and its category runner: per turn, the model's decoded steps run against the model's
 * instances and the turn's ground truth against the ground truth's (both kept across turns), then the instances'
 * public attributes are compared (state) and the ground truth's results must all appear among the model's results
 * so far (response). Error types and messages are the reference's.
 */
import type { PyDict, PyValue } from '../../python/operations.js'
import { ApiSession } from './api.js'
import { InstanceSet, decodeFunctionCallingStep } from './executor.js'
import { PyExc, eq, repr, type Val } from '../../python/runtime.js'
import { describeThrown } from '../../calls/thrown.js'

export interface MultiTurnEntry {
  id: string
  initialConfig: PyDict
  involvedClasses: string[]
  /** The whole entry as read (echoed in score files). */
  json: unknown
}

export interface MultiTurnVerdict {
  id: string
  valid: boolean
  error_type?: string
  error_message?: string
  details?: Record<string, unknown>
  model_result_decoded?: string[][][]
}

export interface MultiTurnOptions {
  /** The model name the reference builds instance names from (it shows inside rewritten string arguments). */
  modelName: string
  session?: ApiSession
}

function isEmptyExecuteResponse(list: readonly unknown[]): boolean {
  return list.length === 0 || (list.length === 1 && Array.isArray(list[0]) && list[0].length === 0)
}

/** Decode every step of every turn; undecodable or empty steps are dropped, as the reference does. */
export function decodeMultiTurnResult(result: PyValue[]): string[][][] {
  return result.map((turn) => {
    const steps = Array.isArray(turn) ? turn : []
    const out: string[][] = []
    for (const step of steps) {
      const decoded = decodeFunctionCallingStep(step)
      if (decoded === undefined || isEmptyExecuteResponse(decoded)) continue
      out.push(decoded)
    }
    return out
  })
}

/** Score one entry from its raw recorded result. */
export function scoreMultiTurnEntry(entry: MultiTurnEntry, result: PyValue, groundTruth: string[][], options: MultiTurnOptions): MultiTurnVerdict {
  const id = entry.id
  if (!Array.isArray(result)) {
    return { id, valid: false, error_type: 'multi_turn:inference_error', error_message: 'Error during inference phase. Model did not output a list of model responses.' }
  }
  if (result.length !== groundTruth.length) {
    return {
      id,
      valid: false,
      error_type: 'multi_turn:force_terminated',
      error_message: `Model was force-terminated during inference phase. The length of the model result turns (${result.length}) does not match the length of the ground truth turns (${groundTruth.length}).`,
    }
  }
  const decoded = decodeMultiTurnResult(result)
  const verdict = multiTurnChecker(decoded, groundTruth, entry, options)
  return { ...verdict, id, model_result_decoded: decoded }
}

/** The error type of an entry the checker could not score (the reference has none: its run stops there). */
export const CHECKER_ERROR = 'multi_turn:checker_error'

/** What went wrong, never itself throwing (the thrown value may be anything). */
export function checkerErrorMessage(e: unknown): string {
  if (e instanceof PyExc) {
    return `The checker raised ${e.pyType}: ${e.message}. BFCL's own checker raises the same here and stops the whole run; this entry is scored as failed.`
  }
  return `Internal error while checking this entry: ${describeThrown(e)}. This entry is scored as failed.`
}

/**
 * The reference's `multi_turn_checker` on decoded results. Never throws: an entry it cannot finish (a Python exception
 * the reference would raise, or a fault here) fails alone, so the category goes on with the others.
 */
export function multiTurnChecker(decoded: string[][][], groundTruth: string[][], entry: MultiTurnEntry, options: MultiTurnOptions): Omit<MultiTurnVerdict, 'id'> {
  try {
    return checkTurns(decoded, groundTruth, entry, options)
  } catch (e) {
    return { valid: false, error_type: CHECKER_ERROR, error_message: checkerErrorMessage(e) }
  }
}

function checkTurns(decoded: string[][][], groundTruth: string[][], entry: MultiTurnEntry, options: MultiTurnOptions): Omit<MultiTurnVerdict, 'id'> {
  const session = options.session ?? new ApiSession()
  const category = entry.id.slice(0, entry.id.lastIndexOf('_'))
  const longContext = category.includes('long_context') || category.includes('composite')
  const model = new InstanceSet(session, entry.involvedClasses, entry.initialConfig, `${options.modelName}_eval_${entry.id}`, longContext)
  const truth = new InstanceSet(session, entry.involvedClasses, entry.initialConfig, `${options.modelName}_ground_truth_eval_${entry.id}`, longContext)
  const executionResults: { model: string[][]; ground_truth: string[] }[] = []
  const allModelResults: string[] = []

  for (let turn = 0; turn < groundTruth.length; turn++) {
    const steps = decoded[turn] ?? []
    const turnResults: string[][] = []
    for (const step of steps) turnResults.push(model.execute(step))
    const truthCalls = groundTruth[turn]!
    const truthResults = truth.execute(truthCalls)
    for (const r of turnResults) allModelResults.push(...r)
    executionResults.push({ model: turnResults, ground_truth: truthResults })

    if (truthCalls.length > 0 && (steps.length === 0 || isEmptyExecuteResponse(steps))) {
      return {
        valid: false,
        error_message: `Model response list is empty for turn ${turn}`,
        error_type: 'multi_turn:empty_turn_model_response',
        details: { execution_result: executionResults },
      }
    }
    if (truthCalls.length === 0) continue

    for (const [className, truthInstance] of truth.instances) {
      const modelState = new Map(model.instances.get(className)!.state())
      const differences: Record<string, { model: string; ground_truth: string }> = {}
      let valid = true
      for (const [attr, gt] of truthInstance.state()) {
        const mv = modelState.get(attr) as Val
        if (!eq(mv, gt)) {
          valid = false
          differences[attr] = { model: repr(mv), ground_truth: repr(gt) }
        }
      }
      if (!valid) {
        return {
          valid: false,
          error_message: `Model instance for ${className} does not match the state with ground truth instance.`,
          error_type: 'multi_turn:instance_state_mismatch',
          details: { differences, execution_result: executionResults },
        }
      }
    }

    const remaining = [...allModelResults]
    const missing: string[] = []
    for (const item of truthResults) {
      const i = remaining.indexOf(item)
      if (i < 0) missing.push(item)
      else remaining.splice(i, 1)
    }
    if (missing.length > 0) {
      return {
        valid: false,
        error_message: `Model response execution results so far does not contain all the ground truth response execution results for turn ${turn}.`,
        error_type: 'multi_turn:execution_response_mismatch',
        details: {
          missing_items: missing,
          'model_response (including all previous turns)': [...allModelResults],
          'ground_truth_response (only the current turn)': truthResults,
        },
      }
    }
  }
  return { valid: true }
}
