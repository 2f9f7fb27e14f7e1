/**
 * The list, dict and str methods of Python that templates call and `@huggingface/jinja` lacks (`append`, `update`,
 * `format`, `find`, ...), for python-jinja.ts. Like it, this function runs in the renderer worker from its source
 * text: self-contained; `k` brings the engine's value classes and python-jinja.ts's helpers.
 */
import type { FilterKit, V } from './python-filters.js'

type Method = (self: V, args: V[], kwargs: Map<string, V>) => V

/** What the methods use of python-jinja.ts: the filters' helpers, and a few of their own. */
export type MethodKit = Pick<FilterKit, 'py' | 'Int' | 'List' | 'Tuple' | 'Dict' | 'fail' | 'str' | 'isList' | 'isDict' | 'items' | 'equal' | 'keyOf' | 'stringOf' | 'intOf' | 'boolOf'> & {
  none: () => V
  lookup: (dict: V, key: V) => V | undefined
  /** A list or dict is growing to `n` items: throws when that is over the memory budget (python-budget.ts). */
  grow: (n: number, what: string) => void
}

export function pythonMethods(k: MethodKit): { LIST: Record<string, Method>; DICT: Record<string, Method>; STR: Record<string, Method>; pairs: (args: V[], kwargs: Map<string, V>, what: string) => [string, V][] } {
  const { py, Int, List, Tuple, Dict, fail, str, none, isList, isDict, items, equal, lookup, keyOf, stringOf, intOf, boolOf, grow } = k
  /** Python's index into a sequence (negative from the end). */
  function indexIn(length: number, i: number, what: string): number {
    const at = i < 0 ? length + i : i
    return at >= 0 && at < length ? at : fail(`${what} index out of range`)
  }
  const codePoints = (s: string, utf16: number): number => (utf16 < 0 ? -1 : [...s.slice(0, utf16)].length)

  const LIST: Record<string, Method> = {
    append: (self, [x]) => (grow(self.value.length + 1, 'a list'), self.value.push(x ?? fail('list.append() takes exactly one argument (0 given)')), none()),
    extend: (self, [x]) => {
      // A copy first: `l.extend(l)` adds the items once, as in Python. In chunks: a spread of a long list overflows the
      // stack, and one push at a time lets a doubling list run into the time budget before the memory budget.
      const given = items(x ?? fail('list.extend() takes exactly one argument (0 given)'))
      grow(self.value.length + given.length, 'a list')
      const add = given.slice()
      for (let i = 0; i < add.length; i += 8192) self.value.push(...add.slice(i, i + 8192))
      return none()
    },
    insert: (self, [i, x]) => {
      const n = self.value.length
      const at = intOf(i, 0, 'list.insert() index')
      self.value.splice(at < 0 ? Math.max(0, n + at) : Math.min(n, at), 0, x ?? fail('list.insert() expected 2 arguments'))
      return none()
    },
    pop: (self, [i]) => {
      if (self.value.length === 0) fail('pop from empty list')
      return self.value.splice(indexIn(self.value.length, intOf(i, -1, 'list.pop() index'), 'pop'), 1)[0]
    },
    remove: (self, [x]) => {
      const at = self.value.findIndex((y: V) => equal(y, x!))
      return at < 0 ? fail('list.remove(x): x not in list') : (self.value.splice(at, 1), none())
    },
    index: (self, [x]) => {
      const at = self.value.findIndex((y: V) => equal(y, x!))
      return at < 0 ? fail(`${py.repr(x!)} is not in list`) : new Int(at)
    },
    count: (self, [x]) => new Int(self.value.filter((y: V) => equal(y, x!)).length),
    clear: (self) => (self.value.splice(0), none()),
    copy: (self) => new List(self.value.slice()),
    reverse: (self) => (self.value.reverse(), none()),
  }
  const DICT: Record<string, Method> = {
    // The engine lets a key shadow these; in Python the method wins.
    get: (self, [k, d]) => lookup(self, k ?? fail('get expected at least 1 argument, got 0')) ?? d ?? none(),
    items: (self) => new List([...self.value].map(([k, v]) => new Tuple([keyOf(self, k), v]))),
    keys: (self) => new List([...self.value.keys()].map((k) => keyOf(self, k))),
    values: (self) => new List([...self.value.values()]),
    pop: (self, [k, d]) => {
      const key = stringOf(k ?? fail('pop expected at least 1 argument, got 0'), 'key')
      const v = self.value.get(key)
      if (v === undefined) return d ?? fail(`KeyError: ${py.repr(k!)}`)
      self.value.delete(key)
      return v
    },
    setdefault: (self, [k, d]) => {
      const key = stringOf(k!, 'key')
      if (!self.value.has(key)) self.value.set(key, d ?? none())
      return self.value.get(key)
    },
    update: (self, args, kwargs) => {
      for (const [k, v] of pairs(args, kwargs, 'update')) self.value.set(k, v)
      grow(self.value.size, 'a dict')
      return none()
    },
    copy: (self) => new Dict(new Map(self.value)),
    clear: (self) => (self.value.clear(), none()),
  }
  const find = (self: V, [sub]: V[], last: boolean): number =>
    codePoints(self.value, last ? self.value.lastIndexOf(stringOf(sub!, 'substring')) : self.value.indexOf(stringOf(sub!, 'substring')))
  const STR: Record<string, Method> = {
    format: (self, args, kwargs) => str(py.strFormat(self.value, args, kwargs, (v, key, item) => formatField(v as V, key, item))),
    count: (self, [sub]) => {
      const s = stringOf(sub!, 'substring')
      return new Int(s === '' ? [...self.value].length + 1 : self.value.split(s).length - 1)
    },
    find: (self, args) => new Int(find(self, args, false)),
    rfind: (self, args) => new Int(find(self, args, true)),
    index: (self, args) => (find(self, args, false) < 0 ? fail('substring not found') : new Int(find(self, args, false))),
    rindex: (self, args) => (find(self, args, true) < 0 ? fail('substring not found') : new Int(find(self, args, true))),
    splitlines: (self, [keep], kwargs) => new List(py.splitlines(self.value, boolOf(keep ?? kwargs.get('keepends'), false)).map(str)),
    join: (self, [iterable]) => str(items(iterable ?? fail('join() takes exactly one argument')).map((x, i) => (x.type === 'StringValue' ? x.value : fail(`sequence item ${i}: expected str instance, ${py.pyType(x).slice(1, -1)} found`))).join(self.value)),
    strip: (self, [chars]) => str(py.strip(self.value, chars === undefined || chars.type === 'NullValue' ? null : stringOf(chars, 'chars'), true, true)),
    lstrip: (self, [chars]) => str(py.strip(self.value, chars === undefined || chars.type === 'NullValue' ? null : stringOf(chars, 'chars'), true, false)),
    rstrip: (self, [chars]) => str(py.strip(self.value, chars === undefined || chars.type === 'NullValue' ? null : stringOf(chars, 'chars'), false, true)),
  }

  /** `{0[key]}` (`item`) or `{0.name}` in str.format: an item of a list or dict, or a namespace's attribute. */
  function formatField(v: V, key: string, item: boolean): V {
    if (item && isList(v) && /^\d+$/.test(key)) return v.value[Number(key)] ?? fail('IndexError: list index out of range')
    if (item && isDict(v)) return v.value.get(key) ?? fail(`KeyError: ${py.repr(str(key))}`)
    if (!item && v.type === 'NamespaceValue') return v.value.get(key) ?? fail(`AttributeError: ${key}`)
    return fail(`${py.pyType(v)} object has no ${item ? 'item' : 'attribute'} ${py.repr(str(key))}`)
  }

  /** The (key, value) pairs of dict()/dict.update() arguments: a mapping or pairs, then keyword arguments. */
  function pairs(args: V[], kwargs: Map<string, V>, what: string): [string, V][] {
    if (args.length > 1) fail(`${what} expected at most 1 argument, got ${args.length}`)
    const out: [string, V][] = []
    const from = args[0]
    if (from !== undefined) {
      if (isDict(from) || from.type === 'NamespaceValue') out.push(...(from.value as Map<string, V>))
      else {
        for (const pair of items(from)) {
          if (!isList(pair) || pair.value.length !== 2) fail(`${what}: each element must be a pair`)
          out.push([stringOf(pair.value[0], 'a key'), pair.value[1]])
        }
      }
    }
    return [...out, ...kwargs]
  }

  return { LIST, DICT, STR, pairs }
}
