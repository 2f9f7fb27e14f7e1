/**
 * Executing Python-call strings against simulated API instances, as BFCL's `execute_multi_turn_func_call` does:
 * method names are prefixed with their instance's name by the same regular expression (it also rewrites matching
 * words inside string arguments), the call is parsed (never evaluated) and dispatched, and each result becomes the
 * string the reference compares: a str as is, a dict as `json.dumps` (or `str()` when that fails), else `str()`.
 */
import { parsePythonExpression, type PyCallNode, type PyNode } from '../../python/index.js'
import { parseJson } from '../../calls/json.js'
import type { JsonValue } from '../../calls/types.js'
import { PyTuple, fromJson, type PyDict, type PyKey, type PyValue } from '../../python/operations.js'
import { ApiSession, bindArgs, type ApiMethod, type SimulatedApi } from './api.js'
import { GorillaFileSystem } from './file-system.js'
import { PyExc, deepCopy, fl, jsonDumps, neg, repr, str, type Val } from '../../python/runtime.js'
import { MessageApi, TicketApi, TwitterApi } from './social.js'
import { MathApi } from './math.js'
import { TradingBot } from './trading.js'
import { TravelApi } from './travel.js'
import { VehicleControlApi } from './vehicle.js'

export const API_CLASSES: Record<string, new (session: ApiSession) => SimulatedApi> = {
  GorillaFileSystem,
  MathAPI: MathApi,
  MessageAPI: MessageApi,
  TwitterAPI: TwitterApi,
  TicketAPI: TicketApi,
  TradingBot,
  TravelAPI: TravelApi,
  VehicleControlAPI: VehicleControlApi,
}

const FORBIDDEN = new Set(['kill', 'exit', 'quit', 'remove', 'unlink', 'popen', 'Popen', 'run'])

/** One set of instances (the model's, or the ground truth's) for one test entry, kept across turns. */
export class InstanceSet {
  readonly instances = new Map<string, SimulatedApi>()
  /** instance name → instance; method name → instance name (later classes win, as the reference's dict). */
  private readonly byName = new Map<string, SimulatedApi>()
  private readonly methodOwner = new Map<string, string>()
  private readonly methodTables = new Map<SimulatedApi, Record<string, ApiMethod>>()

  constructor(
    session: ApiSession,
    involvedClasses: readonly string[],
    initialConfig: PyDict,
    namePrefix: string,
    longContext: boolean,
  ) {
    for (const className of involvedClasses) {
      const Cls = API_CLASSES[className]
      if (Cls === undefined) throw new Error(`unknown BFCL API class ${className}`)
      const instance = new Cls(session)
      if (!instance.stateless) {
        const config = initialConfig.get(className)
        instance.loadScenario(config instanceof Map ? deepCopy(config) : new Map(), longContext)
      }
      const name = `${namePrefix}_${className}_instance`.replace(/[-./]/g, '_')
      this.instances.set(className, instance)
      this.byName.set(name, instance)
      const table = instance.methods()
      this.methodTables.set(instance, table)
      for (const method of Object.keys(table).sort()) this.methodOwner.set(method, name)
    }
  }

  /** Execute each call string; one result string per call. */
  execute(calls: readonly string[]): string[] {
    return calls.map((c) => {
      try {
        return resultString(this.run(c))
      } catch (e) {
        if (e instanceof PyExc) return `Error during execution: ${e.message}`
        throw e
      }
    })
  }

  private run(call: string): Val | undefined {
    const processed = call.replace(/\b([a-zA-Z_]\w*)\s*(?=\()/g, (_m, name: string) => {
      const owner = this.methodOwner.get(name)
      return owner === undefined ? name : `${owner}.${name}`
    })
    let head = processed.includes('(') ? processed.split('(')[0]! : processed
    if (head.includes('.')) head = head.split('.')[1]!
    if (FORBIDDEN.has(head)) throw new PyExc(`Function call ${head} is not allowed.`)
    const parsed = parsePythonExpression(processed)
    if (!parsed.ok) throw new PyExc(`invalid syntax (<string>, line 1)`)
    return evaluateLiteral(parsed.node, this.onCall)
  }

  private readonly onCall = (n: PyCallNode): Val | undefined =>
    this.call(n.name, n.positional.map((a) => literal(a, this.onCall)), n.keywords.map((k) => [k.key, literal(k.value, this.onCall)] as [string, Val]))

  private call(name: string, positional: Val[], keywords: [string, Val][]): Val | undefined {
    const dot = name.indexOf('.')
    if (dot < 0) throw new PyExc(`name '${name}' is not defined`)
    const instance = this.byName.get(name.slice(0, dot))
    if (instance === undefined) throw new PyExc(`name '${name.slice(0, dot)}' is not defined`)
    const methodName = name.slice(dot + 1)
    const table = this.methodTables.get(instance)!
    const method = Object.hasOwn(table, methodName) ? table[methodName] : undefined
    if (method === undefined) throw new PyExc(`'${instance.className}' object has no attribute '${methodName}'`)
    return method.call(bindArgs(`${instance.className}.${methodName}`, method.params, positional, keywords))
  }
}

/**
 * A call as the Python-call string BFCL's executor runs (`cd(folder='documents')`), built as BFCL builds it: a name
 * that is no identifier (`ls<|channel|>commentary`) makes a string the executor rejects as Python does ("invalid
 * syntax"), never evaluated. `floatPaths` (the call's, JSON Pointers into `args`) mark the integral floats.
 */
export function callString(name: string, args: Record<string, unknown>, floatPaths?: readonly string[]): string {
  const parts: string[] = []
  for (const [key, value] of Object.entries(args)) {
    // The arguments' integral floats (`1.0`, as `json.loads` keeps them) stay floats: repr writes `1.0`.
    const v = fromJson(value as JsonValue, floatPaths && pathsUnder(floatPaths, '/' + key.replace(/~/g, '~0').replace(/\//g, '~1')))
    if (v === undefined) throw new Error(`the value of ${key} is not a JSON value`)
    parts.push(`${key}=${repr(v)}`)
  }
  return `${name}(${parts.join(',')})`
}

/** The JSON Pointers at or below `prefix`, relative to it (the value at `prefix` itself is `''`). */
function pathsUnder(paths: readonly string[], prefix: string): string[] {
  return paths.flatMap((p) => (p === prefix ? [''] : p.startsWith(prefix + '/') ? [p.slice(prefix.length)] : []))
}

/**
 * A Python expression of literals as a value (`ast.literal_eval`-like, without complex numbers); a call goes to
 * `onCall` (nested ones too, their None as null), and without it is an unsupported expression. PyExc otherwise.
 */
export function evaluateLiteral(node: PyNode, onCall?: (node: PyCallNode) => Val | undefined): Val | undefined {
  const value = (n: PyNode): Val => literal(n, onCall)
  switch (node.kind) {
    case 'int':
      return Number(node.value)
    case 'float':
      return fl(node.value)
    case 'str':
    case 'bool':
      return node.value
    case 'none':
      return null
    case 'list':
      return node.items.map(value)
    case 'tuple':
      return new PyTuple(node.items.map(value))
    case 'dict': {
      const out: PyDict = new Map()
      node.keys.forEach((k, i) => out.set(value(k) as PyKey, value(node.values[i]!)))
      return out
    }
    case 'unary':
      if (node.op === '-') return neg(value(node.operand))
      if (node.op === '+') return value(node.operand)
      throw new PyExc('unsupported unary operator')
    case 'name':
      throw new PyExc(`name '${node.id.split('.')[0]}' is not defined`)
    case 'call':
      if (onCall) return onCall(node)
      throw new PyExc('unsupported expression')
    default:
      throw new PyExc('unsupported expression')
  }
}

/** `evaluateLiteral` with a call's None as null: the value of an argument or an item. */
export function literal(node: PyNode, onCall?: (node: PyCallNode) => Val | undefined): Val {
  const v = evaluateLiteral(node, onCall)
  return v === undefined ? null : v
}

/** The string the reference keeps for a call's result. */
export function resultString(v: Val | undefined): string {
  if (v === undefined || v === null) return 'None'
  if (typeof v === 'string') return v
  if (v instanceof Map) {
    try {
      return jsonDumps(v)
    } catch (e) {
      if (e instanceof PyExc) return str(v)
      throw e
    }
  }
  return repr(v)
}

/**
 * A function-calling step (`[{name: "json args"}, ...]`) as the reference's `convert_to_function_call` turns it into
 * Python-call strings; undefined where that raises (the step is then skipped).
 */
export function decodeFunctionCallingStep(step: PyValue): string[] | undefined {
  const items = step instanceof Map ? [step] : Array.isArray(step) ? step : undefined
  if (items === undefined) return undefined
  const out: string[] = []
  for (const item of items) {
    if (!(item instanceof Map)) return undefined
    for (const [name, raw] of item) {
      let args: PyValue = raw
      if (typeof raw === 'string') {
        const r = parseJson(raw)
        if (!r.ok) return undefined
        const v = fromJson(r.value, r.floatPaths)
        if (v === undefined) return undefined
        args = v
      }
      if (!(args instanceof Map)) return undefined
      out.push(`${String(name)}(${[...args].map(([k, v]) => `${String(k)}=${repr(v)}`).join(',')})`)
    }
  }
  return out
}
