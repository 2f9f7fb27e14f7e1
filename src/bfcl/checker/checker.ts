/**
 * The Berkeley Function Calling Leaderboard's AST checker, with its exact semantics: one
 * decoded call against one possible answer, then the simple / multiple / parallel rules. Verdicts carry the
 * leaderboard's `error_type` strings and, as far as we can reproduce them, its error messages (Python reprs).
 *
 * Decoded calls are `{name: {param: value}}` dicts of PyValues; possible answers are
 * `{name: {param: [acceptable values]}}` with `""` among the values marking an optional parameter.
 * One argument's value against its acceptable values (the type, string, list and dict checks) is values.ts's.
 */
import { maxWeightAssignment } from '../../score/match.js'
import { PyCrash, PyFloat, PyTuple, pyIn, pyRepr, pyType, type PyTypeName, type PyValue } from '../../python/operations.js'
import {
  NESTED_TYPES,
  VALID,
  asDict,
  convertForeign,
  dictCheck,
  fail,
  listCheck,
  listDictCheck,
  pythonType,
  stringCheck,
  typeCheck,
  type BfclParam,
  type CheckError,
  type CheckResult,
  type ParallelSubError,
} from './values.js'

export type { BfclParam, CheckError, CheckResult, ParallelSubError } from './values.js'

/** One function as BFCL describes it (`parameters.type` is `"dict"`; property types are BFCL's type names). */
export interface BfclFunction {
  name: string
  description?: string
  parameters: {
    type?: string
    properties: Record<string, BfclParam>
    required?: string[]
    [key: string]: unknown
  }
  [key: string]: unknown
}

export interface CheckOptions {
  /**
   * Compare function names with dots turned into underscores, as the leaderboard does for models whose API forbids
   * dots in names (its `underscore_to_dot` model setting). Default false.
   */
  underscoreToDot?: boolean
  /**
   * Parallel categories: 'greedy' (default, the leaderboard's: each answer in turn takes the first unused call that
   * validates, which can miss a valid pairing) or 'optimal' (a valid one-to-one pairing is found whenever one
   * exists). Not part of the leaderboard's semantics: an option for users who want the checker without that flaw.
   */
  parallelMatching?: 'greedy' | 'optimal'
  /**
   * The language of the category (default 'python'). Java and JavaScript arguments must be strings, converted by the
   * schema's type with the leaderboard's Java/JavaScript type converters before the checks (lang-convert.ts).
   */
  language?: 'python' | 'java' | 'javascript'
}

function convertName(name: string, options: CheckOptions): string {
  return options.underscoreToDot && name.includes('.') ? name.replace(/\./g, '_') : name
}

/** The single `{name: args}` pair of a decoded call or an answer (the first key, as `list(d.keys())[0]`). */
function onlyEntry(d: PyValue, what: string): [string, PyValue] {
  const dict = asDict(d, 'keys')
  const first = dict.entries().next()
  if (first.done) throw new PyCrash(`IndexError: ${what} has no function`)
  return [String(first.value[0]), first.value[1]]
}

/**
 * One decoded call (`{name: {param: value}}`) against one possible answer (`{name: {param: [acceptable]}}`) under
 * the function's schema: the leaderboard's `simple_function_checker`.
 */
export function checkCall(
  fn: BfclFunction,
  call: PyValue,
  answer: PyValue,
  options: CheckOptions = {},
): CheckResult {
  const [, acceptableByParam] = onlyEntry(answer, 'possible answer')
  const answers = asDict(acceptableByParam, 'items')
  const properties = fn.parameters?.properties ?? {}
  const required = fn.parameters?.required ?? []
  const name = convertName(fn.name, options)

  const callDict = asDict(call, 'keys')
  if (!callDict.has(name)) {
    return fail('simple_function_checker:wrong_func_name', `Function name ${pyRepr(name)} not found in model output.`)
  }
  const params = asDict(callDict.get(name)!, 'items')

  for (const p of required) {
    if (!params.has(p)) return fail('simple_function_checker:missing_required', `Missing required parameter: ${pyRepr(p)}.`)
  }

  for (const [key, given] of params) {
    const param = String(key)
    if (typeof key !== 'string' || !Object.hasOwn(properties, param) || !answers.has(param)) {
      return fail('simple_function_checker:unexpected_param', `Unexpected parameter: ${pyRepr(key)}.`)
    }
    const acceptable = answers.get(param)!
    const description = properties[param]!
    const typeName = description.type
    const language = options.language ?? 'python'
    let value = given
    let expected: PyTypeName
    let nested: PyTypeName | undefined
    if (language === 'python') {
      expected = pythonType(typeName)
      nested = NESTED_TYPES.has(typeName) ? pythonType(description.items?.type) : undefined
      // Tuples become lists where the schema says tuple (answers went through JSON, which has no tuples).
      if (typeName === 'tuple' && value instanceof PyTuple) value = value.items
      // Python's int-to-float promotion, at the top level only.
      if (typeName === 'float' && pyType(value) === 'int') value = new PyFloat(value as number)
    } else {
      const converted = convertForeign(language, param, value, description)
      if ('valid' in converted) return converted
      ;({ value, expected, nested } = converted)
    }

    const typed = typeCheck(param, value, acceptable, typeName, expected, nested)
    if (!typed.valid) return { valid: false, error: typed.error, error_type: typed.error_type }

    if (!typed.isVariable) {
      let special: CheckResult | undefined
      if (expected === 'dict') special = dictCheck(value, acceptable)
      else if (expected === 'list' && nested === 'dict') special = listDictCheck(value, acceptable)
      else if (expected === 'str') special = stringCheck(param, value as string, acceptable)
      else if (expected === 'list') special = listCheck(param, value, acceptable)
      if (special !== undefined) {
        if (!special.valid) return special
        continue
      }
    }

    if (!pyIn(value, acceptable)) {
      return fail(
        'value_error:others',
        `Invalid value for parameter ${pyRepr(param)}: ${pyRepr(value)}. Expected one of ${pyRepr(acceptable)}.`,
      )
    }
  }

  for (const [key, acceptable] of answers) {
    if (!params.has(key) && !pyIn('', acceptable)) {
      return fail(
        'simple_function_checker:missing_optional',
        `Optional parameter ${pyRepr(key)} not provided and not marked as optional.`,
      )
    }
  }
  return VALID
}

/** The schema of the function an answer names (by exact name); a crash when the data lacks it. */
export function findFunction(functions: readonly BfclFunction[], name: string): BfclFunction {
  const fn = functions.find((f) => f.name === name)
  if (fn === undefined) throw new PyCrash(`TypeError: no function description named ${pyRepr(name)}`)
  return fn
}

/** `simple_*`, `live_simple`: exactly one call, checked against the first (only) function. */
export function checkSimple(
  functions: readonly BfclFunction[],
  calls: readonly PyValue[],
  answers: readonly PyValue[],
  options: CheckOptions = {},
): CheckResult {
  if (calls.length !== 1) return fail('simple_function_checker:wrong_count', 'Wrong number of functions.')
  if (functions.length === 0 || answers.length === 0) throw new PyCrash('IndexError: list index out of range')
  return checkCall(functions[0]!, calls[0]!, answers[0]!, options)
}

/** `multiple`, `live_multiple`: as many calls as answers (one), checked against the expected function's schema. */
export function checkMultiple(
  functions: readonly BfclFunction[],
  calls: readonly PyValue[],
  answers: readonly PyValue[],
  options: CheckOptions = {},
): CheckResult {
  if (calls.length !== answers.length) return fail('multiple_function_checker:wrong_count', 'Wrong number of functions.')
  if (answers.length === 0) throw new PyCrash('IndexError: list index out of range')
  const [expectedName] = onlyEntry(answers[0]!, 'possible answer')
  return checkCall(findFunction(functions, expectedName), calls[0]!, answers[0]!, options)
}

/**
 * `parallel*`, `live_parallel*`: as many calls as answers, matched without regard to order. Greedy by default, as the
 * leaderboard: answer i takes the first unused call that validates against it, and fails when none does.
 */
export function checkParallel(
  functions: readonly BfclFunction[],
  calls: readonly PyValue[],
  answers: readonly PyValue[],
  options: CheckOptions = {},
): CheckResult {
  if (calls.length !== answers.length) {
    return fail('parallel_function_checker_no_order:wrong_count', 'Wrong number of functions.')
  }
  if (options.parallelMatching === 'optimal') return checkParallelOptimal(functions, calls, answers, options)
  const used = new Set<number>()
  for (let i = 0; i < answers.length; i++) {
    const [expectedName] = onlyEntry(answers[i]!, 'possible answer')
    const fn = findFunction(functions, expectedName)
    const errors: CheckError[] = []
    let matched = false
    for (let j = 0; j < calls.length; j++) {
      if (used.has(j)) continue
      const r = checkCall(fn, calls[j]!, answers[i]!, options)
      if (r.valid) {
        used.add(j)
        matched = true
        break
      }
      errors.push(subError(j, r, calls[j]!, answers[i]!))
    }
    if (!matched) return cannotFindMatch(calls.length, used, i, errors)
  }
  return VALID
}

function subError(index: number, r: CheckResult, call: PyValue, answer: PyValue): ParallelSubError {
  return {
    index,
    sub_error: r.error,
    sub_error_type: r.error_type ?? 'simple_function_checker:unclear',
    model_output_item: call,
    possible_answer_item: answer,
  }
}

function cannotFindMatch(callCount: number, used: Set<number>, answerIndex: number, errors: CheckError[]): CheckResult {
  const considered: number[] = []
  for (let j = 0; j < callCount; j++) if (!used.has(j)) considered.push(j)
  return fail(
    'parallel_function_checker_no_order:cannot_find_match',
    `Could not find a matching function among index ${pyRepr(considered)} of model output for index ${answerIndex} of possible answers.`,
    ...errors,
  )
}

/**
 * Order-free matching that finds a valid one-to-one pairing whenever one exists (maximum bipartite matching over
 * the calls that validate against each answer). On failure the first answer left unmatched is reported with the
 * errors of the calls the pairing left free, in the greedy checker's format.
 */
function checkParallelOptimal(
  functions: readonly BfclFunction[],
  calls: readonly PyValue[],
  answers: readonly PyValue[],
  options: CheckOptions,
): CheckResult {
  const verdicts = answers.map((answer) => {
    const fn = findFunction(functions, onlyEntry(answer, 'possible answer')[0])
    return calls.map((call) => checkCall(fn, call, answer, options))
  })
  const weights = verdicts.map((row) => row.map((r) => (r.valid ? 1 : 0)))
  const assignment = maxWeightAssignment(weights)
  const used = new Set<number>()
  assignment.forEach((j, i) => {
    if (j >= 0 && verdicts[i]![j]!.valid) used.add(j)
  })
  if (used.size === answers.length) return VALID
  const unmatched = assignment.findIndex((j, i) => j < 0 || !verdicts[i]![j]!.valid)
  const matchedBefore = new Set<number>()
  assignment.forEach((j, i) => {
    if (i < unmatched && j >= 0 && verdicts[i]![j]!.valid) matchedBefore.add(j)
  })
  const errors: CheckError[] = []
  for (let j = 0; j < calls.length; j++) {
    if (!matchedBefore.has(j)) errors.push(subError(j, verdicts[unmatched]![j]!, calls[j]!, answers[unmatched]!))
  }
  return cannotFindMatch(calls.length, matchedBefore, unmatched, errors)
}
