/**
 * The one walk from a parsed Python value to a value of the caller's model: the recursion and the JSON Pointer of
 * each child are shared, what each node becomes is the builder's. Two builders use it: plain JSON-like values for
 * the format parsers (to-plain.ts) and the BFCL checker's Python values (bfcl/checker/decode.ts), which differ in how
 * they treat names, unary operators, dict keys and nested calls. Recursion follows the tree, whose height the parser
 * bounds (MAX_PY_DEPTH).
 */
import type { PyCallNode, PyNode } from './types.js'

type NodeOf<K extends PyNode['kind']> = Extract<PyNode, { kind: K }>

/** What each kind of node becomes. `V` is a value, `K` a dict key. */
export interface PyValueBuilder<V, K> {
  /** `int`, `float`, and the constant expressions `unary` and `binary`. */
  number(node: NodeOf<'int' | 'float' | 'unary' | 'binary'>, path: string): V
  literal(value: string | boolean): V
  none(): V
  ellipsis(): V
  name(node: NodeOf<'name'>, path: string): V
  /** An expression that is not a constant (a subscript such as `data['sales']`): BFCL keeps its source text. */
  expression(node: NodeOf<'subscript'>, path: string): V
  list(items: V[]): V
  tuple(items: V[]): V
  /** A dict key; `fold` gives the key node's value when the builder needs it. */
  key(node: PyNode, fold: (node: PyNode) => V): K
  /** The key as a path segment (unescaped), for the value's path. */
  keySegment(key: K): string
  dict(keys: K[], values: V[]): V
  /** A call nested in a value; `fold` gives a keyword value's value at a path. */
  call(node: PyCallNode, path: string, fold: (node: PyNode, path: string) => V): V
}

/** The JSON Pointer of `key` under `path` (RFC 6901 escaping). */
export function childPath(path: string, key: string | number): string {
  const k = typeof key === 'number' ? String(key) : key.includes('~') || key.includes('/') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key
  return path + '/' + k
}

export function foldPyValue<V, K>(node: PyNode, path: string, b: PyValueBuilder<V, K>): V {
  switch (node.kind) {
    case 'str':
    case 'bool':
      return b.literal(node.value)
    case 'none':
      return b.none()
    case 'ellipsis':
      return b.ellipsis()
    case 'int':
    case 'float':
    case 'unary':
    case 'binary':
      return b.number(node, path)
    case 'name':
      return b.name(node, path)
    case 'subscript':
      return b.expression(node, path)
    case 'list':
      return b.list(node.items.map((item, k) => foldPyValue(item, path + '/' + k, b)))
    case 'tuple':
      return b.tuple(node.items.map((item, k) => foldPyValue(item, path + '/' + k, b)))
    case 'dict': {
      const keys: K[] = []
      const values: V[] = []
      const foldKey = (n: PyNode): V => foldPyValue(n, path, b)
      for (let k = 0; k < node.keys.length; k++) {
        const key = b.key(node.keys[k]!, foldKey)
        keys.push(key)
        values.push(foldPyValue(node.values[k]!, childPath(path, b.keySegment(key)), b))
      }
      return b.dict(keys, values)
    }
    case 'call':
      return b.call(node, path, (n, p) => foldPyValue(n, p, b))
  }
}
