/**
 * What every simulated API class shares: its public methods with Python's argument binding, its scenario loading
 * and its public attributes (the state the checker compares).
 */
import type { PyDict } from '../../python/operations.js'
import { loadLongContextData, type LongContextData } from './long-context.js'
import { PyExc, deepCopy, type Val } from '../../python/runtime.js'

/** A parameter: its name, and for an optional one the default (a function, so a mutable default can be shared). */
export type Param = string | readonly [string, () => Val]

export interface ApiMethod {
  params: readonly Param[]
  call: (args: Val[]) => Val | undefined
}

/** State shared by every instance of one scoring run, as Python's process shares it (mutable default arguments). */
export class ApiSession {
  private readonly shared = new Map<string, Val>()
  /** The same object for every call that leaves the argument out (Python evaluates a default once). */
  sharedDefault(key: string, make: () => Val): Val {
    if (!this.shared.has(key)) this.shared.set(key, make())
    return this.shared.get(key)!
  }
  private longContextData: LongContextData | undefined
  /** The long-context module data, loaded on first use and shared (and changed) by every instance of the session. */
  longContext(): LongContextData {
    this.longContextData ??= loadLongContextData()
    return this.longContextData
  }
}

export abstract class SimulatedApi {
  abstract readonly className: string
  /** Whether `_load_scenario` runs (MathAPI is stateless). */
  readonly stateless: boolean = false
  constructor(protected readonly session: ApiSession) {}
  /** Public methods by name, in the order `inspect.getmembers` lists them (alphabetical). */
  abstract methods(): Record<string, ApiMethod>
  abstract loadScenario(config: PyDict, longContext: boolean): void
  /** Public attributes in `vars()` order: what the state checker compares. */
  abstract state(): [string, Val][]
}

/** `scenario.get(key, default)` on a deep copy of the scenario. */
export function get(config: PyDict, key: string, fallback: Val): Val {
  return config.has(key) ? config.get(key)! : deepCopy(fallback)
}

/**
 * Bind positional and keyword arguments to parameters as Python does, with its TypeError messages
 * (`GorillaFileSystem.cd() missing 1 required positional argument: 'folder'`).
 */
export function bindArgs(qualname: string, params: readonly Param[], positional: Val[], keywords: [string, Val][]): Val[] {
  const names = params.map((p) => (typeof p === 'string' ? p : p[0]))
  if (positional.length > names.length) {
    const n = names.length + 1
    throw new PyExc(`${qualname}() takes ${n} positional argument${n === 1 ? '' : 's'} but ${positional.length + 1} were given`)
  }
  const out: (Val | undefined)[] = new Array(names.length).fill(undefined)
  const set = new Array<boolean>(names.length).fill(false)
  positional.forEach((v, i) => {
    out[i] = v
    set[i] = true
  })
  for (const [k, v] of keywords) {
    const i = names.indexOf(k)
    if (i < 0) throw new PyExc(`${qualname}() got an unexpected keyword argument '${k}'`)
    if (set[i]) throw new PyExc(`${qualname}() got multiple values for argument '${k}'`)
    out[i] = v
    set[i] = true
  }
  const missing: string[] = []
  params.forEach((p, i) => {
    if (set[i]) return
    if (typeof p === 'string') missing.push(`'${p}'`)
    else out[i] = p[1]()
  })
  if (missing.length > 0) {
    const list = missing.length === 1 ? missing[0]! : missing.slice(0, -1).join(', ') + ' and ' + missing[missing.length - 1]
    throw new PyExc(`${qualname}() missing ${missing.length} required positional argument${missing.length === 1 ? '' : 's'}: ${list}`)
  }
  return out as Val[]
}

/** Shorthand for a method table entry. */
export function m(params: readonly Param[], call: (args: Val[]) => Val | undefined): ApiMethod {
  return { params, call }
}

/** An optional parameter with an immutable default. */
export function opt(name: string, value: Val): Param {
  return [name, () => value] as const
}
