/**
 * The filters of Python's Jinja that `@huggingface/jinja` lacks or writes otherwise (`round`, `e`, `format`, `groupby`,
 * `map('tojson')`, transformers' `tojson`, `string`/`join`/`trim`/`items` of any value, ...), and the tests it lacks
 * or answers otherwise (`float`, `iterable`, `divisibleby(n)`, `in(seq)`, ...), for python-jinja.ts.
 * Like it, this function runs in the renderer worker from its source text: self-contained; `k` brings the engine's
 * value classes and python-jinja.ts's helpers.
 */
import type { PythonText } from './python-text.js'
import type { PythonValues } from './python-values.js'

export type V = { type: string; value: any; builtins: ReadonlyMap<string, V>; __bool__(): { value: boolean } }
export type ValueClass = new (value?: any) => V

/** What the filters use of python-jinja.ts. */
export interface FilterKit {
  py: PythonText
  pv: PythonValues
  Float: ValueClass
  Int: ValueClass
  List: ValueClass
  Tuple: ValueClass
  Dict: ValueClass
  Undefined: ValueClass
  Group: ValueClass
  /** markupsafe's Markup (a string value): what `safe` and the escaping filters give. */
  Markup: ValueClass
  fail: (message: string) => never
  str: (s: string) => V
  number: (x: number, float: boolean) => V
  isList: (v: V) => boolean
  isDict: (v: V) => boolean
  items: (v: V) => V[]
  equal: (a: V, b: V) => boolean
  attribute: (item: V, path: string | number) => V
  attributeArg: (v: V | undefined) => string | number | undefined
  lower: (v: V, caseSensitive: boolean) => V
  stringOf: (v: V, what: string) => string
  intOf: (v: V | undefined, fallback: number, what: string) => number
  boolOf: (v: V | undefined, fallback: boolean) => boolean
  keyOf: (dict: V, k: string) => V
}

/** The interpreter, as filters call back into it. */
export interface FilterHost {
  filterByName(value: V, name: string, args: V[], kwargs: Map<string, V>, env: any): V
  test(value: V, args: V[], env: any): boolean
}

export type Filter = (interp: FilterHost, operand: V, args: V[], kwargs: Map<string, V>, env: any) => V

/** The filters, and the tests the engine lacks or answers otherwise than Python. */
export function pythonFilters(k: FilterKit): { FILTERS: Record<string, Filter>; TESTS: Map<string, (v: V, ...args: V[]) => boolean> } {
  const { py, pv, Float, Int, List, Tuple, Dict, Undefined, Group, Markup, fail, str, number, isList, isDict, items, equal, attribute, attributeArg, lower, stringOf, intOf, boolOf, keyOf } = k
  const arg = (args: V[], kwargs: Map<string, V>, i: number, name: string): V | undefined => args[i] ?? kwargs.get(name)
  // Markup, as markupsafe gives it: `e` leaves Markup as it is, `forceescape` escapes it too.
  const escape: Filter = (_, v) => (v instanceof Markup ? v : new Markup(py.escapeHtml(py.str(v))))
  const aggregate = (pick: 1 | -1): Filter => (_, v, args, kwargs) => {
    const caseSensitive = boolOf(arg(args, kwargs, 0, 'case_sensitive'), false)
    const path = attributeArg(arg(args, kwargs, 1, 'attribute'))
    const key = (x: V) => lower(path === undefined ? x : attribute(x, path), caseSensitive)
    let best: V | undefined
    for (const x of items(v)) if (best === undefined || pick * py.compare(key(x), key(best)) > 0) best = x
    return best ?? new Undefined()
  }
  const FILTERS: Record<string, Filter> = {
    round: (_, v, args, kwargs) => {
      const precision = intOf(arg(args, kwargs, 0, 'precision'), 0, 'precision')
      const method = arg(args, kwargs, 1, 'method') === undefined ? 'common' : stringOf(arg(args, kwargs, 1, 'method')!, 'method')
      if (v.type !== 'IntegerValue' && v.type !== 'FloatValue' && v.type !== 'BooleanValue') fail(`type ${py.pyType(v)} doesn't define __round__ method`)
      if (method === 'common') return v.type === 'FloatValue' ? new Float(py.round(v.value, precision)) : new Int(Number(v.value))
      if (method !== 'ceil' && method !== 'floor') fail('method must be common, ceil or floor')
      const scale = 10 ** precision
      return new Float((method === 'ceil' ? Math.ceil(Number(v.value) * scale) : Math.floor(Number(v.value) * scale)) / scale)
    },
    sum: (_, v, args, kwargs) => {
      const path = attributeArg(arg(args, kwargs, 0, 'attribute'))
      let total = arg(args, kwargs, 1, 'start') ?? new Int(0)
      for (const x of items(v)) {
        const y = path === undefined ? x : attribute(x, path)
        const ok = (z: V) => z.type === 'IntegerValue' || z.type === 'FloatValue' || z.type === 'BooleanValue'
        if (!ok(total) || !ok(y)) fail(`unsupported operand type(s) for +: ${py.pyType(total)} and ${py.pyType(y)}`)
        total = number(Number(total.value) + Number(y.value), total.type === 'FloatValue' || y.type === 'FloatValue')
      }
      return total
    },
    min: aggregate(-1),
    max: aggregate(1),
    format: (_, v, args, kwargs) => {
      if (args.length > 0 && kwargs.size > 0) fail("can't handle positional and keyword arguments at the same time")
      return str(kwargs.size > 0 ? py.printf(py.str(v), [new Dict(kwargs)], kwargs) : py.printf(py.str(v), args))
    },
    e: escape,
    escape,
    forceescape: (_, v) => new Markup(py.escapeHtml(py.str(v))),
    safe: (_, v) => (v instanceof Markup ? v : new Markup(py.str(v))),
    batch: (_, v, args, kwargs) => {
      const size = intOf(arg(args, kwargs, 0, 'linecount'), 0, 'linecount')
      if (size <= 0) fail('batch size must be positive')
      const fill = arg(args, kwargs, 1, 'fill_with')
      const all = items(v)
      const out: V[] = []
      for (let i = 0; i < all.length; i += size) {
        const row = all.slice(i, i + size)
        if (fill !== undefined && fill.type !== 'NullValue') while (row.length < size) row.push(fill)
        out.push(new List(row))
      }
      return new List(out)
    },
    groupby: (_, v, args, kwargs) => {
      const path = attributeArg(arg(args, kwargs, 0, 'attribute')) ?? fail('groupby() needs an attribute')
      const fallback = arg(args, kwargs, 1, 'default')
      const caseSensitive = boolOf(arg(args, kwargs, 2, 'case_sensitive'), false)
      const raw = (x: V) => {
        const a = attribute(x, path)
        return a.type === 'UndefinedValue' && fallback !== undefined ? fallback : a
      }
      const sorted = items(v).map((x) => ({ x, key: lower(raw(x), caseSensitive) })).sort((a, b) => py.compare(a.key, b.key))
      const out: V[] = []
      for (let i = 0; i < sorted.length; ) {
        let j = i + 1
        while (j < sorted.length && equal(sorted[j]!.key, sorted[i]!.key)) j++
        const members = sorted.slice(i, j).map((s) => s.x)
        out.push(new Group([caseSensitive ? sorted[i]!.key : raw(members[0]!), new List(members)]))
        i = j
      }
      return new List(out)
    },
    attr: (_, v, args, kwargs) => {
      const name = stringOf(arg(args, kwargs, 0, 'name') ?? fail('attr() needs a name'), 'name')
      if (v.type === 'UndefinedValue') fail(`attr('${name}') of an undefined value`)
      // A dict's keys are not attributes in Python: only its methods are.
      return (v.type === 'NamespaceValue' ? v.value.get(name) : v.builtins.get(name)) ?? new Undefined()
    },
    truncate: (_, v, args, kwargs) => {
      const end = arg(args, kwargs, 2, 'end')
      const leeway = arg(args, kwargs, 3, 'leeway')
      return str(py.truncate(py.str(v), intOf(arg(args, kwargs, 0, 'length'), 255, 'length'), boolOf(arg(args, kwargs, 1, 'killwords'), false), end === undefined ? '...' : stringOf(end, 'end'), intOf(leeway, 5, 'leeway')))
    },
    urlencode: (_, v) => {
      if (v.type === 'StringValue' || !(isList(v) || isDict(v))) return str(py.urlQuote(py.str(v), false))
      const entries: [string, V][] = isDict(v) ? [...v.value] : items(v).map((p) => (isList(p) && p.value.length === 2 ? [py.str(p.value[0]), p.value[1]] : fail('urlencode: each element must be a pair')))
      return str(entries.map(([k, x]) => `${py.urlQuote(k, true)}=${py.urlQuote(py.str(x), true)}`).join('&'))
    },
    wordcount: (_, v) => new Int(py.wordcount(py.str(v))),
    map: (interp, v, args, kwargs, env) => {
      if (args.length === 0 && kwargs.has('attribute')) {
        const path = attributeArg(kwargs.get('attribute')) ?? fail('map(): attribute must be a string')
        const fallback = kwargs.get('default')
        return new List(items(v).map((x) => {
          const a = attribute(x, path)
          return a.type === 'UndefinedValue' && fallback !== undefined ? fallback : a
        }))
      }
      const name = stringOf(args[0] ?? fail('map requires a filter argument'), 'filter name')
      return new List(items(v).map((x) => interp.filterByName(x, name, args.slice(1), kwargs, env)))
    },
    // The engine has these for some types only, or writes Python values as JSON (`true`, `null`, `["a"]`).
    string: (_, v) => (v.type === 'StringValue' ? v : str(py.str(v))),
    list: (_, v) => new List(items(v).slice()),
    join: (_, v, args, kwargs) => {
      const sep = arg(args, kwargs, 0, 'd')
      const path = attributeArg(arg(args, kwargs, 1, 'attribute'))
      return str(items(v).map((x) => py.str(path === undefined ? x : attribute(x, path))).join(sep === undefined ? '' : stringOf(sep, 'separator')))
    },
    trim: (_, v, args, kwargs) => {
      const chars = arg(args, kwargs, 0, 'chars')
      return str(py.strip(py.str(v), chars === undefined || chars.type === 'NullValue' ? null : stringOf(chars, 'chars'), true, true))
    },
    items: (_, v) => {
      if (v.type === 'UndefinedValue') return new List([])
      return isDict(v) ? new List([...v.value].map(([k, x]) => new Tuple([keyOf(v, k), x]))) : fail('Can only get item pairs from a mapping.')
    },
    // The pairs sorted by key (or value), strings case-insensitively unless asked: a dict literal's number keys sort as numbers.
    dictsort: (_, v, args, kwargs) => {
      if (!isDict(v)) fail('dictsort: the value must be a dict')
      const caseSensitive = boolOf(arg(args, kwargs, 0, 'case_sensitive'), false)
      const by = arg(args, kwargs, 1, 'by') === undefined ? 'key' : stringOf(arg(args, kwargs, 1, 'by')!, 'by')
      if (by !== 'key' && by !== 'value') fail("You can only sort by either 'key' or 'value'")
      const pairs = [...v.value].map(([key, x]) => [keyOf(v, key), x] as [V, V])
      const at = by === 'key' ? 0 : 1
      pairs.sort((a, b) => py.compare(lower(a[at], caseSensitive), lower(b[at], caseSensitive)))
      if (boolOf(arg(args, kwargs, 2, 'reverse'), false)) pairs.reverse()
      return new List(pairs.map((pair) => new Tuple(pair)))
    },
    // transformers' tojson: json.dumps(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False).
    tojson: (_, v, args, kwargs) => {
      const indent = arg(args, kwargs, 1, 'indent')
      const separators = arg(args, kwargs, 2, 'separators')
      const pair = separators === undefined || separators.type === 'NullValue' ? null : items(separators).map((x) => stringOf(x, 'a separator'))
      if (pair !== null && pair.length !== 2) fail('separators must be a pair (item separator, key separator)')
      return str(pv.dumps(v, {
        ensureAscii: boolOf(arg(args, kwargs, 0, 'ensure_ascii'), false),
        indent: indent === undefined || indent.type === 'NullValue' ? null : indent.type === 'StringValue' ? indent.value : intOf(indent, 0, 'indent'),
        separators: pair as [string, string] | null,
        sortKeys: boolOf(arg(args, kwargs, 3, 'sort_keys'), false),
      }))
    },
    select: (interp, v, args, _, env) => new List(items(v).filter((x) => interp.test(x, args, env))),
    reject: (interp, v, args, _, env) => new List(items(v).filter((x) => !interp.test(x, args, env))),
  }

  /** Tests the engine lacks or answers otherwise than Python: a dict, and Jinja's Undefined, are iterable and sequences there. */
  const iterable = (v: V): boolean => isList(v) || isDict(v) || v.type === 'StringValue' || v.type === 'UndefinedValue'
  const arg0 = (x: V | undefined): V => x ?? fail('the test needs an argument')
  const TESTS = new Map<string, (v: V, ...args: V[]) => boolean>([
    ['float', (v) => v.type === 'FloatValue'],
    ['iterable', iterable],
    ['sequence', iterable],
    ['divisibleby', (v, n) => Number(v.value) % Number(arg0(n).value) === 0],
    ['in', (v, seq) => (arg0(seq).type === 'StringValue' ? seq!.value.includes(stringOf(v, "'in <string>' left operand")) : isDict(seq!) ? seq!.value.has(v.value) : items(seq!).some((x) => equal(v, x)))],
    ['sameas', (v, x) => v === arg0(x) || (v.type === x!.type && ['NullValue', 'BooleanValue', 'UndefinedValue'].includes(v.type) && v.value === x!.value)],
    ...(['eq', 'equalto', '=='] as const).map((n) => [n, (v: V, x?: V) => equal(v, arg0(x))] as const),
    ...(['ne', '!='] as const).map((n) => [n, (v: V, x?: V) => !equal(v, arg0(x))] as const),
    ...([['lt', '<', -1, -1], ['le', '<=', -1, 0], ['gt', '>', 1, 1], ['ge', '>=', 0, 1]] as const).flatMap(([n, op, lo, hi]) => {
      const test = (v: V, x?: V): boolean => {
        const c = Math.sign(py.compare(v, arg0(x)))
        return c >= lo && c <= hi
      }
      return [[n, test], [op, test]] as const
    }),
  ])

  return { FILTERS, TESTS }
}
