/**
 * Running a model's call on one of BFCL's agentic backends (web search, memory) as BFCL's
 * `execute_multi_turn_func_call` runs it (gorilla 8db0b7ca): the call is written as a Python call string, each word
 * before a `(` that names a method is prefixed with the instance's name (the same regular expression, which also
 * rewrites such words inside string arguments: the stored text changes as BFCL's does), the call is parsed (never
 * evaluated) and dispatched with Python's argument binding, and the result becomes the string BFCL feeds back: a str
 * as is, a dict as `json.dumps`, anything else as `str()`; an exception as `Error during execution: <message>`.
 *
 * Unlike the multi-turn simulated APIs, a method may be asynchronous (a user's search function).
 */
import { parsePythonExpression } from '../../python/index.js'
import { bindArgs, type Param } from '../multi-turn/api.js'
import { PyExc, type Val } from '../../python/runtime.js'
import { evaluateLiteral, literal, resultString } from '../multi-turn/executor.js'

export interface AgenticMethod {
  params: readonly Param[]
  call: (args: Val[]) => Val | undefined | Promise<Val | undefined>
}

/** A backend instance: its class name and public methods (the names the model calls). */
export interface AgenticApi {
  readonly className: string
  methods(): Record<string, AgenticMethod>
}

const FORBIDDEN = new Set(['kill', 'exit', 'quit', 'remove', 'unlink', 'popen', 'Popen', 'run'])
export const EXECUTION_ERROR = 'Error during execution: '

/** BFCL's instance name: `<model>_<entry id>_<class>_instance` with `-./` as `_` (the model's `/-.` already `_`). */
export function instanceName(modelName: string, entryId: string, className: string): string {
  const model = modelName.replace(/[/\-.]/g, '_')
  return `${model}_${entryId}_${className}_instance`.replace(/[-./]/g, '_')
}

/** `convert_to_function_call`'s string for one function-calling call: `name(k=repr(v),...)`, as multi-turn builds it. */
export { callString } from '../multi-turn/executor.js'

/** Execute one call string on `api` (named `name` as BFCL names the instance); the result string. */
export async function executeAgenticCall(api: AgenticApi, name: string, call: string): Promise<string> {
  const table = api.methods()
  const processed = call.replace(/\b([a-zA-Z_]\w*)\s*(?=\()/g, (_m, word: string) => (Object.hasOwn(table, word) && !word.startsWith('_') ? `${name}.${word}` : word))
  try {
    let head = processed.includes('(') ? processed.split('(')[0]! : processed
    if (head.includes('.')) head = head.split('.')[1]!
    if (FORBIDDEN.has(head)) throw new PyExc(`Function call ${head} is not allowed.`)
    const parsed = parsePythonExpression(processed)
    if (!parsed.ok) throw new PyExc('invalid syntax (<string>, line 1)')
    const node = parsed.node
    if (node.kind !== 'call') return resultString(evaluateLiteral(node))
    const dot = node.name.indexOf('.')
    if (dot < 0) throw new PyExc(`name '${node.name}' is not defined`)
    if (node.name.slice(0, dot) !== name) throw new PyExc(`name '${node.name.slice(0, dot)}' is not defined`)
    const methodName = node.name.slice(dot + 1)
    const method = Object.hasOwn(table, methodName) ? table[methodName] : undefined
    if (method === undefined) throw new PyExc(`'${api.className}' object has no attribute '${methodName}'`)
    const positional = node.positional.map((n) => literal(n))
    const keywords = node.keywords.map((k) => [k.key, literal(k.value)] as [string, Val])
    return resultString(await method.call(bindArgs(`${api.className}.${methodName}`, method.params, positional, keywords)))
  } catch (e) {
    if (e instanceof PyExc) return EXECUTION_ERROR + e.message
    throw e
  }
}

/** Python's `seq[:stop]` for a slice bound given by the model (an int, a bool, None), else Python's TypeError. */
export function sliceTo<T>(items: readonly T[], stop: Val): T[] {
  if (stop === null) return [...items]
  if (typeof stop === 'boolean') return items.slice(0, stop ? 1 : 0)
  if (typeof stop !== 'number' || !Number.isInteger(stop)) throw new PyExc('slice indices must be integers or None or have an __index__ method')
  return items.slice(0, stop)
}
