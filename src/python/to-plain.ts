/**
 * Parsed calls and values as plain (JSON-like) values, with the rules `PyCall` describes: numbers and constant
 * arithmetic computed, bare names as their text, nested calls as `ast.unparse` text or `{name: {keywords}}`, each
 * recorded by path so that callers can choose differently.
 */
import { compute } from './constant.js'
import { childPath, foldPyValue, type PyValueBuilder } from './interpret.js'
import { pyFloatRepr, unparsePython } from './repr.js'
import { PyError, type PyCall, type PyCallNode, type PyConst, type PyNode, type PyParseOptions } from './types.js'

/**
 * Set `obj[key]` as an own, enumerable data property, for every key: plain assignment of `__proto__` would replace
 * the object's prototype instead (and the key would vanish from the arguments).
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true })
  else obj[key] = value
}

/** Paths (JSON Pointers) of values that scoring treats apart. */
interface Paths {
  floats: string[]
  bareNames: string[]
  nestedCalls: string[]
}

const newPaths = (): Paths => ({ floats: [], bareNames: [], nestedCalls: [] })

/** The builder of plain values; it records paths as it goes. */
class PlainValues implements PyValueBuilder<unknown, string> {
  constructor(
    readonly paths: Paths,
    readonly options: PyParseOptions,
  ) {}

  number(node: PyNode, path: string): unknown {
    return plainNumberOrString(compute(node), node, path, this.paths)
  }
  literal(value: string | boolean): unknown {
    return value
  }
  none(): unknown {
    return null
  }
  ellipsis(): unknown {
    return '...'
  }
  name(node: { id: string }, path: string): unknown {
    if (this.options.jsonLiterals) {
      if (node.id === 'true') return true
      if (node.id === 'false') return false
      if (node.id === 'null') return null
    }
    this.paths.bareNames.push(path)
    return node.id
  }
  expression(node: PyNode, path: string): unknown {
    this.paths.bareNames.push(path)
    return unparsePython(node)
  }
  list(items: unknown[]): unknown {
    return items
  }
  tuple(items: unknown[]): unknown {
    return items
  }
  key(node: PyNode): string {
    return dictKey(node)
  }
  keySegment(key: string): string {
    return key
  }
  dict(keys: string[], values: unknown[]): unknown {
    const out: Record<string, unknown> = {}
    for (let k = 0; k < keys.length; k++) setOwn(out, keys[k]!, values[k])
    return out
  }
  call(node: PyCallNode, path: string, fold: (node: PyNode, path: string) => unknown): unknown {
    this.paths.nestedCalls.push(path)
    if (node.keywords.length === 0) return unparsePython(node)
    const inner: Record<string, unknown> = {}
    const prefix = childPath(path, node.name)
    for (const { key, value } of node.keywords) setOwn(inner, key, fold(value, childPath(prefix, key)))
    const out: Record<string, unknown> = {}
    setOwn(out, node.name, inner)
    return out
  }
}

/** The positional values of the calls that have none (most): shared, so frozen. */
const NO_VALUES: unknown[] = Object.freeze([]) as unknown as unknown[]

/** One parsed top-level call with plain values (see `PyCall`). */
export function pyCallOf(node: PyCallNode, text: string, options: PyParseOptions): PyCall {
  const args: Record<string, unknown> = {}
  const call: PyCall = { name: node.name, args, positional: NO_VALUES, node, raw: text.slice(node.start, node.end) }
  // Builders and their path lists only for arguments that need them: a literal string, boolean, None or number is
  // its value directly (calls are often nothing else, and a list of many short calls pays this per call).
  let paths: Paths | undefined
  let values: PlainValues | undefined
  for (const { key, value } of node.keywords) {
    let v: unknown
    switch (value.kind) {
      case 'str':
      case 'bool':
        v = value.value
        break
      case 'none':
        v = null
        break
      case 'int':
        v = Number(value.value)
        if (!Number.isFinite(v)) throw new PyError('integer too large for a JSON number', value.start)
        break
      case 'float':
        v = value.value
        if (!Number.isFinite(v)) throw new PyError('number out of range', value.start)
        if (Number.isInteger(v)) (paths ??= newPaths()).floats.push(childPath('', key))
        break
      default:
        values ??= new PlainValues((paths ??= newPaths()), options)
        v = foldPyValue(value, childPath('', key), values)
    }
    setOwn(args, key, v)
  }
  if (paths) {
    if (paths.floats.length > 0) call.floatPaths = paths.floats
    if (paths.bareNames.length > 0) call.bareNames = paths.bareNames
    if (paths.nestedCalls.length > 0) call.nestedCalls = paths.nestedCalls
  }
  if (node.positional.length > 0) {
    const posPaths = newPaths()
    const posValues = new PlainValues(posPaths, options)
    call.positional = node.positional.map((v, k) => foldPyValue(v, '/' + k, posValues))
    if (posPaths.floats.length > 0) call.positionalFloatPaths = posPaths.floats
  }
  return call
}

/** A node's plain value and the paths recorded on the way. Throws PyError. */
export function plainValue(node: PyNode, options: PyParseOptions = {}): { value: unknown; paths: Paths } {
  const paths = newPaths()
  return { value: foldPyValue(node, '', new PlainValues(paths, options)), paths }
}

function plainNumberOrString(v: PyConst, node: PyNode, path: string, paths: Paths): unknown {
  if (v.kind === 'str') return v.value
  if (v.kind === 'int') {
    const n = Number(v.value)
    if (!Number.isFinite(n)) throw new PyError('integer too large for a JSON number', node.start)
    return n
  }
  if (!Number.isFinite(v.value)) throw new PyError('number out of range', node.start)
  if (Number.isInteger(v.value)) paths.floats.push(path)
  return v.value
}

/** A dict key as JSON would write it (`json.dumps` turns 1 into "1", True into "true", None into "null"). */
function dictKey(node: PyNode): string {
  switch (node.kind) {
    case 'str':
      return node.value
    case 'bool':
      return node.value ? 'true' : 'false'
    case 'none':
      return 'null'
    case 'name':
      return node.id
    case 'int':
    case 'float':
    case 'unary':
    case 'binary': {
      const v = compute(node)
      if (v.kind === 'str') return v.value
      if (v.kind === 'int') return v.value.toString()
      return pyFloatRepr(v.value)
    }
    default:
      throw new PyError('unsupported dict key', node.start)
  }
}
