/**
 * Inferring a wire format from probe renderings (the assistant turn only, see `index.ts`): find each call's span
 * by its known name and arguments, read the constant text around the spans as markers, and accept the result only
 * if it reads every probe back exactly. Runs on trusted template output only, never on model output.
 */
import { isPlainObject } from '../call-object.js'
import { parseJson, parseJsonAt } from '../json.js'
import { parsePythonCallAt } from '../../python/index.js'
import { parseDerived, readCall } from './parse.js'
import { PROBE_TOOLS, sameCalls, sameValue, type Probe, type ProbeCall } from './probes.js'
import type { CallIdForm, CallShape, DerivedFormat, DeriveError } from './types.js'

/** One probe as the template renders the assistant's turn (the text a model would generate). */
export interface Rendered {
  probe: Probe
  body: string
}

const SHAPES = ['json-object', 'name-json', 'xml-pairs', 'python'] as const
/** How far before a name a JSON object holding it may start, or after it its arguments (trusted text, small). */
const NEAR = 300

export function commonPrefix(a: string, b: string): number {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}

export function commonSuffix(a: string, b: string): number {
  let i = 0
  while (i < a.length && i < b.length && a[a.length - 1 - i] === b[b.length - 1 - i]) i++
  return i
}

/**
 * The format the renderings show. `rendered` holds the call probes the template could render ('one call' first);
 * `plain` is a plain answer's rendering, in which the format must find no call.
 */
export function inferFormat(rendered: Rendered[], plain: string, callIds = false): DerivedFormat | DeriveError {
  const one = rendered.find((r) => r.probe.id === 'one call')
  if (!one) return { error: 'the template does not render the one-call probe' }
  const failures: string[] = []
  for (const kind of SHAPES) {
    let shape = shapeOf(kind, one.body, one.probe.calls[0]!, callIds)
    if (typeof shape !== 'string' && shape.kind === 'xml-pairs') shape = typedPairs(shape, one.body, rendered)
    if (typeof shape === 'string') {
      failures.push(`${kind}: ${shape}`)
      continue
    }
    const f = segment(rendered, shape)
    if ('error' in f) {
      failures.push(`${kind}: ${f.error}`)
      continue
    }
    // With call ids, each call must also come back with its id.
    const idsBack = (got: { id?: string }[], r: Rendered): boolean =>
      !callIds || (f.shape.kind !== 'name-json' && f.shape.kind !== 'xml-pairs') || f.shape.id === undefined || got.every((c, i) => c.id === probeId(r.probe.calls[i]!.name, i))
    const bad = rendered.filter((r) => {
      const got = parseDerived(r.body, f, { tools: PROBE_TOOLS })
      return !sameCalls(got, r.probe.calls) || !idsBack(got, r)
    })
    if (parseDerived(plain, f).length > 0) failures.push(`${kind}: the markers read a call in a plain answer`)
    else if (bad.length > 0) failures.push(`${kind}: does not read back probe(s) ${bad.map((r) => `"${r.probe.id}"`).join(', ')}`)
    else {
      f.verified = rendered.map((r) => r.probe.id)
      return f
    }
  }
  return { error: `no known call shape reads the template's tool calls back (${failures.join('; ')})` }
}

/**
 * The call ids the probes pass when the template writes no name of its own (Kimi K2 writes only the id): the
 * convention of the templates that do, `functions.NAME:IDX`.
 */
export const PROBE_ID: CallIdForm = { prefix: 'functions.', separator: ':' }
export const probeId = (name: string, index: number): string => `${PROBE_ID.prefix}${name}${PROBE_ID.separator}${index}`

/**
 * Where the `index`-th call's name is written from `from` on: the name itself, or with `callIds` the whole call id
 * around it when the template writes one there. `id` says which.
 */
function nameSpan(body: string, from: number, call: ProbeCall, index: number, callIds: boolean): { start: number; end: number; id: boolean } | undefined {
  const at = body.indexOf(call.name, from)
  if (at < 0) return undefined
  const end = at + call.name.length
  const idEnd = end + PROBE_ID.separator.length + String(index).length
  if (
    callIds &&
    body.slice(at - PROBE_ID.prefix.length, at) === PROBE_ID.prefix &&
    body.startsWith(PROBE_ID.separator + index, end) &&
    !/[0-9]/.test(body[idEnd] ?? '')
  ) {
    return { start: at - PROBE_ID.prefix.length, end: idEnd, id: true }
  }
  return { start: at, end, id: false }
}

/** The shape of `kind` that `call`'s rendering in `body` has, or why it has not. */
function shapeOf(kind: (typeof SHAPES)[number], body: string, call: ProbeCall, callIds: boolean): CallShape | string {
  const span = nameSpan(body, 0, call, 0, callIds)
  if (!span) return 'the function name is not rendered'
  const at = span.start
  const after = span.end
  const id = span.id ? { id: { ...PROBE_ID } } : {}
  if (span.id && kind !== 'name-json' && kind !== 'xml-pairs') return 'the name is written inside a call id, which only name-first shapes read'
  switch (kind) {
    case 'json-object': {
      const found = jsonObjectAround(body, at, call)
      return found ? found.shape : 'no JSON object holds both the name and the arguments'
    }
    case 'name-json': {
      for (let j = body.indexOf('{', after); j >= 0 && j < after + NEAR; j = body.indexOf('{', j + 1)) {
        const r = parseJsonAt(body, j)
        if (r.ok && sameValue(r.value, call.arguments)) return { kind, between: body.slice(after, j), ...id }
      }
      return 'no JSON object of the arguments follows the name'
    }
    case 'python': {
      const r = parsePythonCallAt(body.slice(at), 0, { jsonLiterals: true })
      return r.ok && r.calls.length === 1 && sameValue(r.calls[0]!.args, call.arguments) ? { kind } : 'no Python call at the name'
    }
    case 'xml-pairs': {
      const shape = pairsShape(body, after, call)
      return typeof shape === 'string' ? shape : { ...shape, ...id }
    }
  }
}

const OPENERS = '<[{('
const CLOSERS = '>]})'

/**
 * A common suffix taken as an opening marker may begin inside the token before it (`>\n<parameter=` after
 * `</parameter>`): drop leading characters up to whitespace or an opening bracket.
 */
function openingMarker(s: string): string {
  let i = 0
  while (i < s.length && !/\s/.test(s[i]!) && !OPENERS.includes(s[i]!)) i++
  return i < s.length ? s.slice(i) : s
}

/** Likewise a closing marker may end inside the next token (`</tool_call>\n<`): drop trailing opening brackets. */
function closingMarker(s: string): string {
  let e = s.length
  while (e > 0 && OPENERS.includes(s[e - 1]!) && !CLOSERS.includes(s[e - 1]!)) e--
  return s.slice(0, e)
}

/** The innermost JSON object around the name at `at` whose values are the name and the arguments. */
function jsonObjectAround(body: string, at: number, call: ProbeCall): { start: number; shape: CallShape } | undefined {
  for (let j = body.lastIndexOf('{', at); j >= 0 && j > at - NEAR; j = j > 0 ? body.lastIndexOf('{', j - 1) : -1) {
    const r = parseJsonAt(body, j)
    if (!r.ok || r.end <= at || !isPlainObject(r.value)) continue
    const obj = r.value
    const nameKey = Object.keys(obj).find((k) => obj[k] === call.name)
    if (nameKey === undefined) continue
    for (const k of Object.keys(obj)) {
      const v = obj[k]
      if (k !== nameKey && sameValue(v, call.arguments)) return { start: j, shape: { kind: 'json-object', nameKey, argumentsKey: k, argumentsAsString: false } }
      if (k !== nameKey && typeof v === 'string') {
        const d = parseJson(v)
        if (d.ok && sameValue(d.value, call.arguments)) return { start: j, shape: { kind: 'json-object', nameKey, argumentsKey: k, argumentsAsString: true } }
      }
    }
  }
  return undefined
}

/** Key/value tags, read off a call whose first two arguments are strings (written as they are, or as JSON). */
function pairsShape(body: string, after: number, call: ProbeCall): CallShape | string {
  const entries = Object.entries(call.arguments)
  if (entries.length < 2 || typeof entries[0]![1] !== 'string' || typeof entries[1]![1] !== 'string') return 'needs two string arguments'
  const [[k1, v1], [k2, v2]] = entries as [[string, string], [string, string]]
  const ik1 = body.indexOf(k1, after)
  const iv1 = ik1 < 0 ? -1 : body.indexOf(v1, ik1 + k1.length)
  const ik2 = iv1 < 0 ? -1 : body.indexOf(k2, iv1 + v1.length)
  const iv2 = ik2 < 0 ? -1 : body.indexOf(v2, ik2 + k2.length)
  if (iv2 < 0) return 'the argument keys and values are not written in order'
  let kv1 = body.slice(ik1 + k1.length, iv1)
  let kv2 = body.slice(ik2 + k2.length, iv2)
  let vk = body.slice(iv1 + v1.length, ik2)
  const lead = body.slice(after, ik1)
  // A string written as JSON: its quotes belong to the value, not to the tags.
  const quoted = kv1.endsWith('"') && vk.startsWith('"') && kv2.endsWith('"')
  if (quoted) {
    kv1 = kv1.slice(0, -1)
    kv2 = kv2.slice(0, -1)
    vk = vk.slice(1)
  }
  if (kv1 !== kv2) return 'the text between a key and its value differs from one argument to the next'
  const keyOpen = openingMarker(vk.slice(vk.length - commonSuffix(lead, vk)))
  const valueClose = vk.slice(0, vk.length - keyOpen.length)
  const kv = kv1.trim()
  if (keyOpen.trim() === '' || valueClose.trim() === '' || kv === '') return 'the key or value tags are blank'
  const split = kv.search(/\s/)
  return {
    kind: 'xml-pairs',
    between: lead.slice(0, lead.length - keyOpen.length),
    keyOpen,
    keyClose: split < 0 ? kv : kv.slice(0, split),
    valueOpen: split < 0 ? '' : kv.slice(split).trim(),
    valueClose,
    values: quoted ? 'json' : 'raw',
  }
}

/** Where each call of a rendering starts and ends, read with `shape` from its name on. */
function spans(body: string, calls: readonly ProbeCall[], shape: CallShape): [number, number][] | string {
  const out: [number, number][] = []
  let from = 0
  for (const [index, call] of calls.entries()) {
    const span = nameSpan(body, from, call, index, 'id' in shape && shape.id !== undefined)
    if (!span) return `call ${call.name} is not rendered`
    if ('id' in shape && shape.id !== undefined && !span.id) return `call ${call.name} is not written in its call id`
    const at = span.start
    const start = shape.kind === 'json-object' ? jsonObjectAround(body, at, call)?.start : at
    if (start === undefined || start < from) return `call ${call.name} is not a JSON object`
    const r = readCall(body, start, body.length, shape, { tools: PROBE_TOOLS }, 'derived')
    if (!r) return `call ${call.name} does not read with the shape`
    out.push([start, r.end])
    from = r.end
  }
  return out
}

/** The markers: constant text before, between and after the calls of the two-call probe (or the one-call one). */
function segment(rendered: Rendered[], shape: CallShape): DerivedFormat | DeriveError {
  const one = rendered.find((r) => r.probe.id === 'one call')!
  const two = rendered.find((r) => r.probe.id === 'two calls')
  const notes: string[] = []
  const s1 = spans(one.body, one.probe.calls, shape)
  if (typeof s1 === 'string') return { error: s1 }
  const before1 = one.body.slice(0, s1[0]![0])
  const after1 = one.body.slice(s1[0]![1])
  const f: DerivedFormat = { blockOpen: '', blockClose: '', callOpen: before1, callClose: after1, separator: '', shape, verified: [], notes, example: one.body }
  if (!two) {
    notes.push('the template renders one call per turn at most: each call is read with its own markers, the separator is unknown')
    return f
  }
  const s2 = spans(two.body, two.probe.calls, shape)
  if (typeof s2 === 'string') return { error: s2 }
  const [[a1, b1], [a2, b2]] = s2 as [[number, number], [number, number]]
  const open = two.body.slice(0, a1)
  const gap = two.body.slice(b1, a2)
  const tail = two.body.slice(b2)
  f.callOpen = openingMarker(gap.slice(gap.length - commonSuffix(open, gap)))
  f.blockOpen = open.slice(0, open.length - f.callOpen.length)
  const rest = gap.slice(0, gap.length - f.callOpen.length)
  f.callClose = closingMarker(rest.slice(0, commonPrefix(rest, tail)))
  f.separator = rest.slice(f.callClose.length)
  f.blockClose = tail.slice(f.callClose.length)
  f.example = two.body
  if (before1 !== open) notes.push(`a single call is opened with ${JSON.stringify(before1)}, two with ${JSON.stringify(open)}`)
  if (after1 !== tail) notes.push(`a single call is closed with ${JSON.stringify(after1)}, two with ${JSON.stringify(tail)}`)
  return f
}

type PairsShape = Extract<CallShape, { kind: 'xml-pairs' }>
const WORD = /[A-Za-z0-9_]/
const JSON_TYPES: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  integer: (v) => Number.isInteger(v),
  number: (v) => typeof v === 'number',
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
}

const PYTHON_SCALARS = new Map<unknown, string>([[true, 'True'], [false, 'False'], [null, 'None']])

/**
 * A type tag between each key and its value, read off the text there: for a string argument (the one-call probe's
 * first) and for the scalar arguments of the every-type probe. The same text everywhere: no tag, `shape` as it is.
 * Otherwise the text must differ in one word, which must be a string flag (`true` for strings, `false` for the rest)
 * or the value's JSON type; any other difference is an error, not a guess.
 */
function typedPairs(shape: PairsShape, oneBody: string, rendered: Rendered[]): PairsShape | string {
  const typed = rendered.find((r) => r.probe.id === 'every value type') ?? rendered.find((r) => r.probe.id === 'two calls')
  const call = typed?.probe.calls.find((c) => Object.values(c.arguments).some((v) => typeof v === 'number'))
  if (!typed || !call) return shape
  const keyOpen = shape.keyOpen.trim()
  const valueClose = shape.valueClose.trim()
  const quote = shape.values === 'json' ? '"' : ''
  /** The text between the key and the value `text` written at its end, in `body` from `from` on. */
  const between = (body: string, from: number, key: string, text: string, atEnd: boolean): [string, number] | undefined => {
    const k = body.indexOf(keyOpen + key, from)
    if (k < 0) return undefined
    const ke = k + keyOpen.length + key.length
    if (!atEnd) {
      const v = body.indexOf(quote + text, ke)
      return v < 0 ? undefined : [body.slice(ke, v), v]
    }
    let e = body.indexOf(valueClose, ke)
    while (e > ke && /\s/.test(body[e - 1]!)) e--
    return e < 0 || !body.startsWith(text, e - text.length) ? undefined : [body.slice(ke, e - text.length), e]
  }
  const lookup = rendered.find((r) => r.probe.id === 'one call')!.probe.calls[0]!
  const [k1, v1] = Object.entries(lookup.arguments)[0] as [string, string]
  const first = between(oneBody, 0, k1, v1, false)
  if (!first) return shape
  const kvs: { text: string; value: unknown }[] = [{ text: first[0], value: v1 }]
  let from = Math.max(0, typed.body.indexOf(call.name))
  for (const [key, value] of Object.entries(call.arguments)) {
    if (typeof value === 'object' && value !== null) continue
    // A scalar written as JSON, or as Python writes it (`True`, `None`: templates that print `value|string`).
    const found =
      typeof value === 'string'
        ? between(typed.body, from, key, value, false)
        : (between(typed.body, from, key, JSON.stringify(value), true) ?? between(typed.body, from, key, PYTHON_SCALARS.get(value) ?? JSON.stringify(value), true))
    if (!found) return 'an argument of the every-type probe is not written between its tags'
    kvs.push({ text: found[0], value })
    from = found[1]
  }
  if (kvs.every((kv) => kv.text === kvs[0]!.text)) return shape
  // The common text before and after the differing word, cut back to word boundaries.
  const a = kvs[0]!.text
  let p = kvs.reduce((n, kv) => Math.min(n, commonPrefix(a, kv.text)), a.length)
  let s = kvs.reduce((n, kv) => Math.min(n, commonSuffix(a, kv.text), kv.text.length - p), a.length - p)
  while (p > 0 && WORD.test(a[p - 1]!)) p--
  while (s > 0 && WORD.test(a[a.length - s]!)) s--
  const words = kvs.map((kv) => kv.text.slice(p, kv.text.length - s))
  if (!words.every((w) => /^[A-Za-z0-9_]+$/.test(w))) return `the text between a key and its value differs by more than one word (${JSON.stringify(kvs.map((kv) => kv.text))})`
  const head = a.slice(0, p).trim()
  const tail = a.slice(a.length - s).trim()
  const hs = head.search(/\s/)
  const ts = tail.search(/\s/)
  const tags = {
    keyClose: hs < 0 ? head : head.slice(0, hs),
    typeOpen: hs < 0 ? '' : head.slice(hs).trim(),
    typeClose: ts < 0 ? tail : tail.slice(0, ts),
    valueOpen: ts < 0 ? '' : tail.slice(ts).trim(),
  }
  if (tags.keyClose === '' || tags.typeClose === '') return 'the type written between a key and its value has no tags around it'
  const stringWords = new Set(words.filter((_w, i) => typeof kvs[i]!.value === 'string'))
  const otherWords = new Set(words.filter((_w, i) => typeof kvs[i]!.value !== 'string'))
  const base = { ...shape, keyClose: tags.keyClose, valueOpen: tags.valueOpen }
  if (stringWords.size === 1 && otherWords.size === 1 && [...stringWords][0]!.toLowerCase() === 'true' && [...otherWords][0]!.toLowerCase() === 'false') {
    return { ...base, types: { open: tags.typeOpen, close: tags.typeClose, kind: 'string-flag', stringWord: [...stringWords][0]! } }
  }
  if (words.every((w, i) => JSON_TYPES[w.toLowerCase()]?.(kvs[i]!.value) === true)) {
    return { ...base, types: { open: tags.typeOpen, close: tags.typeClose, kind: 'json-type' } }
  }
  return `the template writes a word between each key and its value (${words.join(', ')}) that is neither a string flag nor a JSON type`
}
