/**
 * What chat templates use of Python's Jinja that `@huggingface/jinja` lacks or does otherwise, supplied on top of the
 * engine's public exports (`tokenize`, `parse`, `Environment`, `Interpreter`): the `{% do %}` and `{% raw %}`
 * statements, tests with arguments, the list, dict and str methods templates call (`append`, `update`, `format`, ...),
 * `loop.cycle()`, `dict()`, `%` on strings, Python's loops, `==`/`in`/`~`/`+`, values written as `str()` writes them,
 * dict literals with number keys, and the filters (python-filters.ts).
 *
 * How: `{% do X %}` is rewritten in the engine's token stream (after its lexer, so strings, comments and whitespace
 * control are the lexer's own) into `{{ DO(X) }}`, a call whose value renders as nothing; `X is T(args)` into a
 * filter; `{% raw %}` blocks, before the lexer, into a string literal. The interpreter is a subclass whose `evaluate`
 * (the engine's public dispatch point, called for every node) takes the nodes it supplies and hands every other node
 * to the engine, with values already evaluated passed on as value nodes, so nothing is evaluated twice; its
 * `evaluateBlock` writes values as Python does. Lists, dicts and strings stay the engine's own values:
 * `ns.items.append(x)` mutates the list the template reads later.
 *
 * This function runs in the renderer worker from its source text (self-contained; `py` is `pythonText()`, `pv`
 * `pythonValues(py)`, `filters` `pythonFilters`). It probes the engine first and throws when the engine does not look
 * as expected; the worker then renders with the engine alone, and errors name the constructs it lacks as before.
 */
import type { PythonText } from './python-text.js'
import type { PythonValues } from './python-values.js'
import type { pythonFilters } from './python-filters.js'
import type { pythonSyntax } from './python-syntax.js'
import type { pythonMethods } from './python-methods.js'
import type { Meter } from './python-budget.js'

type V = { type: string; value: any; builtins: ReadonlyMap<string, V>; __bool__(): { value: boolean } }
type Node = { type: string; [key: string]: any }
type Args = [V[], Map<string, V>]
type ValueClass = new (value?: any) => V
type InterpreterClass = new (env: any) => { evaluate(node: Node | undefined, env: any): V; run(program: unknown): V }

export interface CompiledTemplate {
  /** `meter`: the budget checks of the rendering job (python-budget.ts); none, unbounded (in this thread). */
  render(context: Record<string, unknown>, meter?: Meter): string
}

export function pythonJinja(jinja: any, py: PythonText, pv: PythonValues, filters: typeof pythonFilters, syntax: typeof pythonSyntax, methods: typeof pythonMethods): (source: string) => CompiledTemplate {
  const DO = '__python_jinja_do__'
  const VALUE = 'PythonJinjaValue'
  const TEST = '__python_jinja_test__'
  const TEST_NOT = '__python_jinja_test_not__'
  const { rewriteRaw, rewriteDo, rewriteTests } = syntax({ DO, TEST, TEST_NOT })
  for (const name of ['tokenize', 'parse', 'Environment', 'Interpreter', 'Template']) {
    if (typeof jinja[name] !== 'function') throw new Error(`the engine exports no ${name}`)
  }
  if (typeof jinja.Interpreter.prototype.evaluate !== 'function') throw new Error('the engine interpreter has no evaluate()')
  // The budget checks of the rendering under way (render() sets it): text written in one step is checked before it is
  // built, through `str()` and `dumps` (tojson), which every filter and method here writes values with.
  let meter: Meter | undefined
  const { str: writeStr } = py
  py = { ...py, str: (v) => (v.type !== 'StringValue' && meter?.text(v, 'the text of a value'), writeStr(v)) }
  const { dumps } = pv
  pv = { ...pv, dumps: (v, o) => (meter?.text(v, 'the JSON of a value', o.indent === null ? 0 : typeof o.indent === 'string' ? o.indent.length : Math.max(0, o.indent)), dumps(v, o)) }
  // A field's width (or precision) is padding built in one step: each is checked first.
  const fields = (format: string, spec: RegExp): void => {
    if (meter !== undefined) for (const m of format.matchAll(spec)) for (const n of [m[1], m[2]]) if (n !== undefined) meter.chars(Number(n), 'a formatted field')
  }
  const { printf, strFormat } = py
  py.printf = (format, ...rest) => (fields(format, /%(?:\([^)]*\))?[-+ #0]*(\d+)?(?:\.(\d+))?/g), printf(format, ...rest))
  py.strFormat = (format, ...rest) => (fields(format, /\{[^{}]*?:[^{}\d]*(\d+)?[,_]?(?:\.(\d+))?/g), strFormat(format, ...rest))

  // The engine's value classes, from values its public API returns; each is checked by its type name.
  const probe = new jinja.Environment()
  const interpreter0 = new jinja.Interpreter(probe)
  const classOf = (value: V, type: string): ValueClass => {
    if (value?.type !== type) throw new Error(`the engine's values are not as expected (${type})`)
    return value.constructor as ValueClass
  }
  const Str = classOf(probe.set('s', ''), 'StringValue')
  const Int = classOf(probe.set('i', 1), 'IntegerValue')
  const Float = classOf(probe.set('f', 1.5), 'FloatValue')
  const Bool = classOf(probe.set('b', true), 'BooleanValue')
  const Null = classOf(probe.set('n', null), 'NullValue')
  const Undefined = classOf(probe.set('u', undefined), 'UndefinedValue')
  const List = classOf(probe.set('l', []), 'ArrayValue')
  const Dict = classOf(probe.set('d', {}), 'ObjectValue')
  const Func = classOf(probe.set('g', () => 0), 'FunctionValue')
  const Tuple = classOf(interpreter0.evaluate({ type: 'TupleLiteral', value: [] }, probe), 'TupleValue')
  classOf(probe.lookupVariable('namespace').value([], probe), 'NamespaceValue')
  // The engine's own globals (`range`, `strftime_now`, `raise_exception`), as the functions its values call.
  let engineGlobals: unknown[] = []
  new jinja.Template('{{ grab(range, strftime_now, raise_exception) }}').render({ grab: (...fns: unknown[]) => void (engineGlobals = fns) })
  if (engineGlobals.length !== 3 || engineGlobals.some((f) => typeof f !== 'function')) throw new Error("the engine's globals are not as expected")

  /** A list whose `.grouper` and `.list` are its two items: what `groupby` yields (a list, so loops unpack it). */
  class Group extends List {
    // @ts-expect-error an accessor in place of the declared property, as the engine's own classes define it
    override get builtins(): Map<string, V> {
      return new Map([...(super.builtins as Map<string, V>), ['grouper', this.value[0]], ['list', this.value[1]]])
    }
  }

  /** markupsafe's Markup: a string that `safe` and `e` give; `+` with a plain string escapes that string. */
  class Markup extends Str {}
  const isMarkup = (v: V): boolean => v instanceof Markup

  const fail = (message: string): never => {
    throw new Error(message)
  }
  const none = (): V => new Null()
  const str = (s: string): V => new Str(s)
  const isList = (v: V) => v.type === 'ArrayValue' || v.type === 'TupleValue'
  const isDict = (v: V) => v.type === 'ObjectValue' || v.type === 'KeywordArgumentsValue'
  const number = (x: number, float: boolean): V => (float ? new Float(x) : new Int(x))
  const valueNode = (value: V): Node => ({ type: VALUE, value })
  const stringOf = (v: V, what: string): string => (v.type === 'StringValue' ? v.value : fail(`${what} must be a string, not ${py.pyType(v)}`))
  const intOf = (v: V | undefined, fallback: number, what: string): number =>
    v === undefined || v.type === 'NullValue' ? fallback : v.type === 'IntegerValue' || v.type === 'BooleanValue' ? Number(v.value) : fail(`${what} must be an integer, not ${py.pyType(v)}`)
  const boolOf = (v: V | undefined, fallback: boolean): boolean => (v === undefined ? fallback : v.__bool__().value)

  /** The items a Python loop over `v` yields (none for an undefined value, as Jinja's Undefined yields). */
  function items(v: V): V[] {
    if (isList(v)) return v.value
    if (v.type === 'UndefinedValue') return []
    if (isDict(v)) return [...v.value.keys()].map((k) => keyOf(v, k))
    if (v.type === 'StringValue') return [...(v.value as string)].map(str)
    return fail(`${py.pyType(v)} object is not iterable`)
  }

  const SCALAR_KEYS = new Set(['IntegerValue', 'FloatValue', 'BooleanValue', 'NullValue'])
  /** A dict's key as the template wrote it: a string, or the number (boolean, None) a dict literal had there. */
  const keyOf = (dict: V, k: string): V => (dict as V & { keyValues?: Map<string, V> }).keyValues?.get(k) ?? str(k)
  /** The value under `key`, by Python's `==` where a dict literal had number keys; undefined when there is none. */
  function lookup(dict: V, key: V): V | undefined {
    const keyValues = (dict as V & { keyValues?: Map<string, V> }).keyValues
    if (key.type === 'StringValue') return keyValues?.has(key.value) ? undefined : dict.value.get(key.value)
    if (!SCALAR_KEYS.has(key.type)) return undefined
    for (const [k, kv] of keyValues ?? []) if (equal(kv, key)) return dict.value.get(k)
    return undefined
  }

  /** Python's `==`. */
  function equal(a: V, b: V): boolean {
    const numeric = (x: V) => x.type === 'IntegerValue' || x.type === 'FloatValue' || x.type === 'BooleanValue'
    if (numeric(a) && numeric(b)) return Number(a.value) === Number(b.value)
    if (a.type !== b.type) return (a.type === 'NullValue' || a.type === 'UndefinedValue') && a.type === b.type
    if (isList(a)) return a.value.length === b.value.length && a.value.every((x: V, i: number) => equal(x, b.value[i]))
    if (isDict(a)) return a.value.size === b.value.size && [...a.value].every(([k, x]) => b.value.has(k) && equal(x, b.value.get(k)))
    return a.value === b.value
  }

  /** Jinja's attribute getter: `a.b.0` through dict keys, namespace attributes and list indices; Undefined when missing. */
  function attribute(item: V, path: string | number): V {
    let v = item
    for (const part of typeof path === 'number' ? [String(path)] : path.split('.')) {
      if (isDict(v) || v.type === 'NamespaceValue') v = v.value.get(part) ?? new Undefined()
      else if (isList(v) && /^-?\d+$/.test(part)) v = v.value.at(Number(part)) ?? new Undefined()
      else v = new Undefined()
    }
    return v
  }
  const attributeArg = (v: V | undefined): string | number | undefined =>
    v === undefined || v.type === 'NullValue' ? undefined : v.type === 'IntegerValue' ? v.value : stringOf(v, 'attribute')
  const lower = (v: V, caseSensitive: boolean): V => (!caseSensitive && v.type === 'StringValue' ? str(v.value.toLowerCase()) : v)

  const grow = (n: number, what: string): void => meter?.count(n, what)
  const { LIST, DICT, STR, pairs } = methods({ py, Int, List, Tuple, Dict, fail, str, none, isList, isDict, items, equal, lookup, keyOf, stringOf, intOf, boolOf, grow })

  const { FILTERS, TESTS } = filters({ py, pv, Float, Int, List, Tuple, Dict, Undefined, Group, Markup, fail, str, number, isList, isDict, items, equal, attribute, attributeArg, lower, stringOf, intOf, boolOf, keyOf })
  // join writes its items in one step: their text is checked first.
  const { join } = FILTERS
  FILTERS['join'] = (interp, v, ...rest) => (meter?.text(v, 'the text of a join'), join!(interp, v, ...rest))
  // A test with arguments (see rewriteTests).
  FILTERS[TEST] = (interp, v, args, _, env) => new Bool(interp.test(v, args, env))
  FILTERS[TEST_NOT] = (interp, v, args, _, env) => new Bool(!interp.test(v, args, env))

  /** Filters on strings that Python's Jinja applies to str() of any value. */
  const STRING_FILTERS = new Set(['upper', 'lower', 'title', 'capitalize', 'replace', 'indent'])
  /** Nodes whose None value prints as `None` (a statement's None prints nothing). */
  const EXPRESSIONS = new Set(['Identifier', 'MemberExpression', 'CallExpression', 'FilterExpression', 'BinaryExpression', 'UnaryExpression', 'Ternary', 'TestExpression', 'SelectExpression', VALUE])

  /** `{% break %}` / `{% continue %}` on its way to its loop, with what the iteration wrote before it. */
  class LoopControl extends Error {
    written = ''
    constructor(readonly isBreak: boolean) {
      super('break or continue outside a loop')
    }
  }

  class PythonInterpreter extends (jinja.Interpreter as InterpreterClass) {
    /** Every node passes here (the engine evaluates children through it): the budget is checked as the template runs. */
    override evaluate(node: Node | undefined, env: any): V {
      if (meter === undefined) return this.dispatch(node, env)
      meter.tick()
      const v = this.dispatch(node, env)
      if (v.type === 'StringValue') meter.chars(v.value.length, 'a string')
      else if (v.type === 'ArrayValue') meter.count(v.value.length, 'a list')
      return v
    }

    dispatch(node: Node | undefined, env: any): V {
      switch (node?.type) {
        case VALUE:
          return node.value
        case 'CallExpression':
          if (node.callee.type === 'MemberExpression' && !node.callee.computed && node.callee.property.type === 'Identifier') return this.method(node, env)
          break
        case 'FilterExpression': {
          const name = node.filter.type === 'Identifier' ? node.filter.value : node.filter.callee?.value
          if (Object.hasOwn(FILTERS, name)) return this.filter(this.evaluate(node.operand, env), node.filter, env)
          if (!STRING_FILTERS.has(name)) break
          // Python's string filters write any value as str() first: `['a'] | upper` is "['A']".
          const operand = this.evaluate(node.operand, env)
          const text = operand.type === 'StringValue' ? operand : str(py.str(operand))
          if (name !== 'indent' || meter === undefined) return super.evaluate({ ...node, operand: valueNode(text) }, env)
          // indent writes its width on every line in one step: the size is checked first.
          const [args, kwargs] = node.filter.type === 'CallExpression' ? this.args(node.filter.args, env) : [[], new Map<string, V>()]
          const width = args[0] ?? kwargs.get('width')
          const lines = (text.value.match(/\n/g)?.length ?? 0) + 1
          meter.chars(text.value.length + lines * (width?.type === 'StringValue' ? width.value.length : Number(width?.value ?? 4)), 'the output of indent')
          return this.filterByName(text, name, args, kwargs, env)
        }
        case 'FilterStatement': {
          const name = node.filter.type === 'Identifier' ? node.filter.value : node.filter.callee?.value
          if (Object.hasOwn(FILTERS, name)) return this.filter(super.evaluate({ type: 'Program', body: node.body }, env), node.filter, env)
          break
        }
        case 'ObjectLiteral': {
          // The engine's dicts hold string keys: a number, boolean or None as a key (`{0: 0, 512: 128}`) is held under its
          // text, its value kept beside it (`keyValues`), so that loops, `items()` and subscripts see the number.
          const map = new Map<string, V>()
          const keyValues = new Map<string, V>()
          for (const [k, x] of node.value as Map<Node, Node>) {
            const key = this.evaluate(k, env)
            const text = key.type === 'StringValue' ? key.value : SCALAR_KEYS.has(key.type) ? py.repr(key) : fail(`unhashable type: ${py.pyType(key)}`)
            if (map.has(text) && (keyValues.get(text)?.type ?? 'StringValue') !== key.type) fail(`a dict literal with the keys ${py.repr(key)} and ${py.repr(keyValues.get(text) ?? str(text))}: not held apart here`)
            if (key.type !== 'StringValue') keyValues.set(text, key)
            map.set(text, this.evaluate(x, env))
          }
          const dict = new Dict(map)
          if (keyValues.size > 0) (dict as V & { keyValues?: Map<string, V> }).keyValues = keyValues
          return dict
        }
        case 'MemberExpression': {
          if (node.property.type === 'SliceExpression') break
          const object = this.evaluate(node.object, env)
          const key = node.computed ? this.evaluate(node.property, env) : undefined
          // A dict subscript by a key that is no string: a number key of a dict literal, else Undefined, as Jinja's getitem
          // gives it for a missing or unhashable key (`basic_type_map[["string", "null"]] is defined`).
          let v: V
          if (key !== undefined && isDict(object) && (key.type !== 'StringValue' || 'keyValues' in object)) v = lookup(object, key) ?? new Undefined()
          else if (key !== undefined && object.type === 'NamespaceValue' && key.type !== 'StringValue') v = new Undefined()
          else v = super.evaluate({ ...node, object: valueNode(object), ...(key === undefined ? {} : { property: valueNode(key) }) }, env)
          // What is missing, for the error of a later use, as Python's Undefined says it.
          if (v.type === 'UndefinedValue' && object.type !== 'UndefinedValue') {
            const type = py.pyType(object).slice(1, -1)
            ;(v as V & { missing?: string }).missing =
              isList(object) && key?.type === 'IntegerValue' ? `${type} object has no element ${key.value}` : `'${type} object' has no attribute ${py.repr(key ?? str(node.property.value))}`
          }
          return v
        }
        case 'Identifier': {
          const v = super.evaluate(node, env)
          if (v.type === 'UndefinedValue') (v as V & { missing?: string }).missing = `'${node.value}' is undefined`
          return v
        }
        case 'For':
          return this.loop(node, env)
        case 'Break':
        case 'Continue':
          throw new LoopControl(node.type === 'Break')
        case 'TestExpression': {
          const test = node.test.type === 'Identifier' ? TESTS.get(node.test.value) : undefined
          if (test === undefined) break
          return new Bool(test(this.evaluate(node.operand, env)) !== Boolean(node.negate))
        }
        case 'BinaryExpression': {
          const op: string = node.operator.value
          if (op === '~') return str(py.str(this.evaluate(node.left, env)) + py.str(this.evaluate(node.right, env)))
          if (op === '+') {
            const left = this.evaluate(node.left, env)
            const right = this.evaluate(node.right, env)
            // An undefined operand raises as Python's Undefined does, naming what is missing.
            const missing = [left, right].find((x) => x.type === 'UndefinedValue') as (V & { missing?: string }) | undefined
            if (missing !== undefined) fail(missing.missing ?? `an undefined value in +`)
            // Python adds a str only to a str: `'x' + {...}` raises (the engine would write `[object Map]`).
            if ((left.type === 'StringValue') !== (right.type === 'StringValue')) {
              fail(left.type === 'StringValue' ? `can only concatenate str (not "${py.pyType(right).slice(1, -1)}") to str` : `unsupported operand type(s) for +: ${py.pyType(left)} and 'str'`)
            }
            if (left.type === 'StringValue' && right.type === 'StringValue' && (isMarkup(left) || isMarkup(right))) {
              const text = (v: V) => (isMarkup(v) ? v.value : py.escapeHtml(v.value))
              return new Markup(text(left) + text(right))
            }
            return super.evaluate({ ...node, left: valueNode(left), right: valueNode(right) }, env)
          }
          if (op === '==' || op === '!=') return new Bool(equal(this.evaluate(node.left, env), this.evaluate(node.right, env)) === (op === '=='))
          if (op === 'in' || op === 'not in') {
            const left = this.evaluate(node.left, env)
            const right = this.evaluate(node.right, env)
            // Membership in a list by Python's ==: a list in a list of lists, 1 in [1.0]; a number among a dict's keys.
            if (isList(right)) return new Bool(right.value.some((x: V) => equal(left, x)) === (op === 'in'))
            if (isDict(right) && (left.type !== 'StringValue' || 'keyValues' in right)) return new Bool((lookup(right, left) !== undefined) === (op === 'in'))
            return super.evaluate({ ...node, left: valueNode(left), right: valueNode(right) }, env)
          }
          if (op === '%') {
            const left = this.evaluate(node.left, env)
            if (left.type !== 'StringValue') return super.evaluate({ ...node, left: valueNode(left) }, env)
            const right = this.evaluate(node.right, env)
            return str(right.type === 'TupleValue' ? py.printf(left.value, right.value) : isDict(right) ? py.printf(left.value, [right], right.value) : py.printf(left.value, [right]))
          }
          break
        }
      }
      return super.evaluate(node, env)
    }

    /**
     * Output as Python writes it: str() of each value (`True`, `{'a': 1}`, `None` for an expression's None). A
     * `{% break %}` or `{% continue %}` carries what the block wrote before it to the loop.
     */
    evaluateBlock(statements: Node[], env: any): V {
      let out = ''
      for (const statement of statements) {
        let v: V
        try {
          v = this.evaluate(statement, env)
        } catch (e) {
          if (e instanceof LoopControl) e.written = out + e.written
          throw e
        }
        if (v.type === 'UndefinedValue' || (v.type === 'NullValue' && !EXPRESSIONS.has(statement.type))) continue
        out += py.str(v)
        meter?.chars(out.length, 'the output of a block')
      }
      return str(out)
    }

    /**
     * `{% for %}` as Python's Jinja runs it: over a string's characters, over nothing for an undefined value; what the
     * body sets lasts one iteration; the iteration that breaks keeps what it wrote (the engine drops all three).
     */
    loop(node: Node, env: any): V {
      const select = node.iterable.type === 'SelectExpression' ? node.iterable : undefined
      const all = items(this.evaluate(select ? select.lhs : node.iterable, env))
      const scope = new jinja.Environment(env)
      const bind = (target: any, item: V): void => {
        if (node.loopvar.type === 'Identifier') return void target.setVariable(node.loopvar.value, item)
        const names: Node[] = node.loopvar.type === 'TupleLiteral' ? node.loopvar.value : fail('invalid loop variable')
        const values = items(item)
        if (values.length !== names.length) fail(`${values.length > names.length ? 'too many' : 'not enough'} values to unpack (expected ${names.length}, got ${values.length})`)
        names.forEach((n, i) => target.setVariable(n.type === 'Identifier' ? n.value : fail('invalid loop variable'), values[i]))
      }
      const kept = select === undefined ? all : all.filter((x) => {
        const test = new jinja.Environment(scope)
        bind(test, x)
        return this.evaluate(select.test, test).__bool__().value
      })
      let out = ''
      for (const [i, x] of kept.entries()) {
        meter?.tick() // an empty body evaluates no node
        const iteration = new jinja.Environment(scope)
        const n = kept.length
        iteration.setVariable('loop', new Dict(new Map<string, V>([
          ['index', new Int(i + 1)], ['index0', new Int(i)], ['revindex', new Int(n - i)], ['revindex0', new Int(n - i - 1)],
          ['first', new Bool(i === 0)], ['last', new Bool(i === n - 1)], ['length', new Int(n)], ['depth', new Int(1)], ['depth0', new Int(0)],
          ['previtem', i > 0 ? kept[i - 1]! : new Undefined()], ['nextitem', i < n - 1 ? kept[i + 1]! : new Undefined()],
        ])))
        bind(iteration, x)
        try {
          out += this.evaluateBlock(node.body, iteration).value
          meter?.chars(out.length, 'the output of a loop')
        } catch (e) {
          if (!(e instanceof LoopControl)) throw e
          out += e.written
          meter?.chars(out.length, 'the output of a loop')
          if (e.isBreak) break
        }
      }
      if (kept.length === 0 && node.defaultBlock) out += this.evaluateBlock(node.defaultBlock, scope).value
      return str(out)
    }

    /** `object.name(args)`: the supplied method where Python has one the engine lacks, else the engine's call. */
    method(node: Node, env: any): V {
      const object = this.evaluate(node.callee.object, env)
      const name: string = node.callee.property.value
      let table: typeof LIST | undefined
      if (isList(object)) table = LIST
      else if (object.type === 'StringValue') table = STR
      else if (isDict(object)) table = DICT
      const supplied = table !== undefined && Object.hasOwn(table, name) ? table[name] : undefined
      if (supplied === undefined || (object.type === 'TupleValue' && name !== 'index' && name !== 'count')) {
        if (name === 'cycle' && object.type === 'ObjectValue' && object.value.has('index0') && object.value.has('revindex0')) {
          const [args] = this.args(node.args, env)
          return args.length === 0 ? fail('no items for cycling given') : args[object.value.get('index0').value % args.length]!
        }
        return super.evaluate({ ...node, callee: { ...node.callee, object: valueNode(object) } }, env)
      }
      const [args, kwargs] = this.args(node.args, env)
      return supplied(object, args, kwargs)
    }

    filter(operand: V, filter: Node, env: any): V {
      const [args, kwargs] = filter.type === 'CallExpression' ? this.args(filter.args, env) : [[], new Map<string, V>()]
      const name: string = filter.type === 'Identifier' ? filter.value : filter.callee.value
      return FILTERS[name]!(this, operand, args, kwargs, env)
    }

    /** Filter `name` applied to `value` (for `map`): a supplied filter, or the engine's. */
    filterByName(value: V, name: string, args: V[], kwargs: Map<string, V>, env: any): V {
      if (Object.hasOwn(FILTERS, name)) return FILTERS[name]!(this, value, args, kwargs, env)
      const callArgs = [...args.map(valueNode), ...[...kwargs].map(([k, x]) => ({ type: 'KeywordArgumentExpression', key: { type: 'Identifier', value: k }, value: valueNode(x) }))]
      const filter = callArgs.length === 0 ? { type: 'Identifier', value: name } : { type: 'CallExpression', callee: { type: 'Identifier', value: name }, args: callArgs }
      return super.evaluate({ type: 'FilterExpression', operand: valueNode(value), filter }, env)
    }

    /** `select`/`reject`: the named test of the engine (with arguments), or truthiness. */
    test(value: V, [name, ...rest]: V[], env: any): boolean {
      if (name === undefined) return value.__bool__().value
      const test = TESTS.get(stringOf(name, 'test name')) ?? env.tests.get(name.value)
      return test === undefined ? fail(`Unknown test: ${name.value}`) : Boolean(test(value, ...rest))
    }

    /** Arguments as the engine evaluates them: positional ones (with `*x`) first, then keyword ones (with `**x`). */
    args(nodes: Node[], env: any): Args {
      const positional: V[] = []
      const keyword = new Map<string, V>()
      for (const n of nodes) {
        if (n.type === 'SpreadExpression') positional.push(...items(this.evaluate(n.argument, env)))
        else if (n.type !== 'KeywordArgumentExpression' && n.type !== 'KeywordSpreadExpression') positional.push(this.evaluate(n, env))
      }
      for (const n of nodes) {
        if (n.type === 'KeywordArgumentExpression') keyword.set(n.key.value, this.evaluate(n.value, env))
        else if (n.type === 'KeywordSpreadExpression') for (const [k, x] of pairs([this.evaluate(n.argument, env)], new Map(), '**')) keyword.set(k, x)
      }
      return [positional, keyword]
    }
  }

  const GLOBALS: [string, V][] = [
    [DO, new Func(() => new Undefined())],
    ['dict', new Func((args: V[]) => {
      const kwargs = args.at(-1)?.type === 'KeywordArgumentsValue' ? (args.pop() as V).value : new Map()
      return new Dict(new Map(pairs(args, kwargs, 'dict')))
    })],
  ]

  return (source: string): CompiledTemplate => {
    const program = jinja.parse(rewriteTests(rewriteDo(jinja.tokenize(rewriteRaw(source), { lstrip_blocks: true, trim_blocks: true }))))
    return {
      render(context: Record<string, unknown>, budget?: Meter): string {
        // As the engine's Template renders: its globals, then the context, then what is supplied here.
        const env = new jinja.Environment()
        for (const [name, value] of [['false', false], ['true', true], ['none', null], ['False', false], ['True', true], ['None', null]] as const) env.set(name, value)
        ;(['range', 'strftime_now', 'raise_exception'] as const).forEach((name, i) => env.variables.set(name, new Func(engineGlobals[i])))
        // range(n) is built in one step: its length is checked first.
        const range = engineGlobals[0] as (args: V[], scope: unknown) => V
        env.variables.set('range', new Func((args: V[], scope: unknown) => {
          const [a = 0, b, c = 1] = args.map((x) => Number(x.value))
          const [start, stop] = b === undefined ? [0, a] : [a, b]
          meter?.count(Math.max(0, Math.ceil((stop - start) / c)), 'range()')
          return range(args, scope)
        }))
        env.variables.set('strftime_now', new Func(([format]: V[]) => str(pv.strftime(stringOf(format ?? fail('strftime_now() needs a format'), 'format'), new Date()))))
        for (const [key, value] of Object.entries(context)) env.set(key, value)
        for (const [name, value] of GLOBALS) if (!env.variables.has(name)) env.variables.set(name, value)
        meter = budget
        try {
          return new PythonInterpreter(env).run(program).value
        } finally {
          meter = undefined
        }
      },
    }
  }
}
