/**
 * Reading calls with a derived format. Only literal marker searches (forward only, scan.ts) and the parser's own
 * JSON and Python readers: linear in the text, never throws, evaluates nothing. Markers are searched trimmed, so a
 * model that writes other whitespace around them than its template still parses.
 */
import { decodeArguments, invalidArguments, isPlainObject, makeCall } from '../call-object.js'
import { parseJson, parseJsonAt, skipSpace } from '../json.js'
import { parsePythonCallAt } from '../../python/index.js'
import { TOOL_CALL_SYNTAX, toolCallFromPython } from '../pythonic-calls.js'
import { FORMATS } from '../formats/index.js'
import { ForwardSearch, forEachBlock, forEachMarkerRegion } from '../scan.js'
import { ArgumentsBuilder, stripOneNewline, typeValue } from '../schema-values.js'
import type { ParseOptions, ToolCall } from '../types.js'
import type { CallIdForm, CallShape, DerivedFormat } from './types.js'

/** The `ToolCall.format` of calls read with a derived format that matches no hand-written one. */
export const DERIVED = 'derived'

/** Longest function name looked for (bounds the search for the text that ends a name). */
const MAX_NAME = 256
const NAME = /^[^\s<>{}()[\]"'`,]+$/

interface Read {
  call: ToolCall
  end: number
}

/** The forward searches of one parse: a search that may run past a call's region is asked in text order only. */
export interface Searches {
  valueClose?: ForwardSearch
}

function searchesFor(text: string, f: DerivedFormat): Searches {
  return f.shape.kind === 'xml-pairs' ? { valueClose: new ForwardSearch(text, f.shape.valueClose.trim()) } : {}
}

/** The calls in `text`, read with `f`. */
export function parseDerived(text: string, f: DerivedFormat, options: ParseOptions = {}, format = DERIVED): ToolCall[] {
  if (f.shape.kind === 'format') return parseWithFormat(text, f.matches, options)
  const out: ToolCall[] = []
  const callOpen = f.callOpen.trim()
  const callClose = f.callClose.trim()
  const blockOpen = f.blockOpen.trim()
  const searches = searchesFor(text, f)
  try {
    if (callOpen !== '') {
      // Each call has its opening marker: read each region it starts (to its close, or the next opening).
      const visit = (from: number, to: number, closed = false): void => {
        const r = readCall(text, from, to, f.shape, options, format, searches)
        if (!r) return
        // A closed call holding text after what its shape read may have lost an argument there: invalid, not short.
        if (closed && r.call.argumentsValid && skipSpace(text, r.end, to) < to) {
          const c = r.call
          out.push(makeCall(c.name, invalidArguments('text in the call that its format does not read'), format, text.slice(from, to), c.id))
        } else out.push(r.call)
      }
      // The generation prompt wrote the first call's opening: the output starts with that call's name.
      if (f.openedByPrompt) {
        const first = text.indexOf(callOpen)
        const limit = first < 0 ? text.length : first
        const close = callClose === '' ? -1 : text.indexOf(callClose)
        visit(0, close >= 0 && close < limit ? close : limit, close >= 0 && close < limit)
      }
      if (callClose !== '') forEachBlock(text, callOpen, callClose, (_b, from, to, closed) => visit(from, to, closed))
      else forEachMarkerRegion(text, callOpen, visit)
    } else if (blockOpen !== '') {
      readBlocks(text, blockOpen, f, options, format, out, searches)
    } else {
      // No marker at all (bare JSON objects): calls are read from the start of the output, or, for call objects, from
      // the first `{"NAME_KEY"` after the text before them (Llama 4 writes its content, then the objects back to back).
      readSequence(text, firstCallObject(text, f.shape), text.length, f, options, format, out, searches)
    }
  } catch {
    // A bug here must not crash an eval run: what was read so far stands.
  }
  return out
}

/** A shape-less derived format's calls: its hand-written format's (never throws, as every parseDerived). */
function parseWithFormat(text: string, name: string | undefined, options: ParseOptions): ToolCall[] {
  const fmt = FORMATS.find((f) => f.name === name)
  if (fmt === undefined) return []
  try {
    return fmt.parse(text, options)
  } catch {
    return []
  }
}

/** Where the first call object (`{`, then the name key) starts; 0 for other shapes or when none does. */
function firstCallObject(text: string, shape: CallShape): number {
  if (shape.kind !== 'json-object') return 0
  const key = JSON.stringify(shape.nameKey)
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) {
    if (text.startsWith(key, skipSpace(text, i + 1, text.length))) return i
  }
  return 0
}

/**
 * The blocks that `blockOpen` starts. A block's calls may hold the opening text themselves (`[` in the JSON
 * arguments of a `[{...}, {...}]` list), so a block is read on past the next opening, and openings inside what it
 * read start no block. Linear: reading on past the next opening covers text no earlier read covered, and once such a
 * read fails (it may have scanned to the end) the blocks after it are read up to the next opening only.
 */
function readBlocks(text: string, blockOpen: string, f: DerivedFormat, options: ParseOptions, format: string, out: ToolCall[], searches: Searches): void {
  let readTo = 0
  for (let at = text.indexOf(blockOpen); at >= 0; ) {
    const start = at + blockOpen.length
    const next = text.indexOf(blockOpen, start)
    const bounded = at < readTo
    const r = readSequence(text, start, bounded || next < 0 ? (next < 0 ? text.length : next) : text.length, f, options, format, out, searches)
    if (!bounded) readTo = r.failedRead ? text.length : r.end
    at = next < 0 ? -1 : text.indexOf(blockOpen, Math.max(next, r.end))
  }
}

/**
 * Calls one after another from `start` (no marker before each): separated by `separator`, each closed by `callClose`.
 * `end`: after the last call read; `failedRead`: the sequence ended in a call that did not read (which may have
 * scanned to `limit`), not at a missing separator.
 */
function readSequence(
  text: string,
  start: number,
  limit: number,
  f: DerivedFormat,
  options: ParseOptions,
  format: string,
  out: ToolCall[],
  searches: Searches,
): { end: number; failedRead: boolean } {
  const sep = f.separator.trim()
  const close = f.callClose.trim()
  let p = start
  let end = start
  for (;;) {
    const r = readCall(text, p, limit, f.shape, options, format, searches)
    if (!r) return { end, failedRead: true }
    out.push(r.call)
    end = r.end
    p = skipSpace(text, r.end, limit)
    if (close !== '' && text.startsWith(close, p)) p = skipSpace(text, p + close.length, limit)
    if (sep !== '') {
      if (!text.startsWith(sep, p)) return { end, failedRead: false }
      p += sep.length
    }
  }
}

/** One call of `shape` starting at `from` (whitespace skipped), within `limit`. */
export function readCall(
  text: string,
  from: number,
  limit: number,
  shape: CallShape,
  options: ParseOptions,
  format: string,
  searches: Searches = {},
): Read | undefined {
  const p = skipSpace(text, from, limit)
  switch (shape.kind) {
    case 'json-object':
      return readJsonObject(text, p, limit, shape, format)
    case 'name-json': {
      const n = readName(text, p, limit, shape.between, shape.id)
      if (!n) return undefined
      const r = parseJsonAt(text, n.end, limit)
      if (!r.ok) return undefined
      const raw = text.slice(p, r.end)
      return { call: makeCall(n.name, decodeArguments(r.value, r.floatPaths, raw.length), format, raw, n.id), end: r.end }
    }
    case 'python': {
      const r = parsePythonCallAt(text.slice(p, limit), 0, TOOL_CALL_SYNTAX)
      if (!r.ok || r.calls.length !== 1) return undefined
      return { call: toolCallFromPython(r.calls[0]!, format), end: p + r.end }
    }
    case 'xml-pairs':
      return readPairs(text, p, limit, shape, options, format, searches.valueClose ?? new ForwardSearch(text, shape.valueClose.trim()))
    case 'format':
      return undefined
  }
}

function readJsonObject(
  text: string,
  p: number,
  limit: number,
  shape: Extract<CallShape, { kind: 'json-object' }>,
  format: string,
): Read | undefined {
  const r = parseJsonAt(text, p, limit)
  if (!r.ok || !isPlainObject(r.value)) return undefined
  const name = r.value[shape.nameKey]
  if (typeof name !== 'string' || name === '') return undefined
  const raw = text.slice(p, r.end)
  const value = r.value[shape.argumentsKey]
  const floats = r.floatPaths?.flatMap((path) => {
    const prefix = '/' + shape.argumentsKey.replaceAll('~', '~0').replaceAll('/', '~1') + '/'
    return path.startsWith(prefix) ? [path.slice(prefix.length - 1)] : []
  })
  const args = value === undefined ? { arguments: {}, argumentsValid: true } : decodeArguments(value, floats, raw.length)
  return { call: makeCall(name, args, format, raw), end: r.end }
}

/**
 * The function name at `p`: up to `between` (trimmed), or the run of name characters when `between` is blank. With
 * `idForm` the text there is a call id (`functions.NAME:IDX`): the name is read out of it, and text not of that form
 * is no call.
 */
function readName(
  text: string,
  p: number,
  limit: number,
  between: string,
  idForm?: CallIdForm,
): { name: string; end: number; id?: string } | undefined {
  const b = between.trim()
  let nameEnd: number
  let end: number
  if (b === '') {
    nameEnd = p
    while (nameEnd < limit && nameEnd - p <= MAX_NAME && !/[\s<>{}()[\]"'`,]/.test(text[nameEnd]!)) nameEnd++
    end = nameEnd
  } else {
    nameEnd = text.slice(p, Math.min(limit, p + MAX_NAME + b.length)).indexOf(b)
    if (nameEnd < 0) return undefined
    nameEnd += p
    end = nameEnd + b.length
  }
  const name = text.slice(p, nameEnd).trim()
  if (!NAME.test(name)) return undefined
  if (!idForm) return { name, end }
  const sep = name.lastIndexOf(idForm.separator)
  if (!name.startsWith(idForm.prefix) || sep <= idForm.prefix.length || !/^[0-9]+$/.test(name.slice(sep + idForm.separator.length))) return undefined
  return { name: name.slice(idForm.prefix.length, sep), end, id: name }
}

/**
 * NAME, then `keyOpen KEY keyClose [typeOpen TYPE typeClose] valueOpen VALUE valueClose` per argument. A pair that
 * starts but does not complete makes the call's arguments invalid (it may have held an argument), rather than a
 * valid call without it.
 */
function readPairs(
  text: string,
  p: number,
  limit: number,
  shape: Extract<CallShape, { kind: 'xml-pairs' }>,
  options: ParseOptions,
  format: string,
  valueEnds: ForwardSearch,
): Read | undefined {
  const n = readName(text, p, limit, shape.between, shape.id)
  if (!n) return undefined
  const keyOpen = shape.keyOpen.trim()
  const keyClose = shape.keyClose.trim()
  const valueOpen = shape.valueOpen.trim()
  const valueClose = shape.valueClose.trim()
  const types = shape.types
  const typeOpen = types?.open.trim() ?? ''
  const typeClose = types?.close.trim() ?? ''
  const args = new ArgumentsBuilder(n.name, options)
  let q = n.end
  let end = n.end
  let error: string | undefined
  for (;;) {
    q = skipSpace(text, q, limit)
    if (!text.startsWith(keyOpen, q)) break
    const k = q + keyOpen.length
    const ke = text.slice(k, Math.min(limit, k + MAX_NAME + keyClose.length)).indexOf(keyClose)
    if (ke < 0) {
      error = `${keyOpen} not closed by ${keyClose}`
      break
    }
    let v = k + ke + keyClose.length
    let declared: string | undefined
    if (types) {
      v = skipSpace(text, v, limit)
      if (!text.startsWith(typeOpen, v)) {
        error = `no type after the key (${typeOpen})`
        break
      }
      v += typeOpen.length
      const te = text.slice(v, Math.min(limit, v + MAX_NAME + typeClose.length)).indexOf(typeClose)
      if (te < 0) {
        error = `the type is not closed by ${typeClose}`
        break
      }
      declared = text.slice(v, v + te).trim()
      v += te + typeClose.length
    }
    if (valueOpen !== '') {
      v = skipSpace(text, v, limit)
      if (!text.startsWith(valueOpen, v)) {
        error = `${keyClose} without ${valueOpen}`
        break
      }
      v += valueOpen.length
    }
    const ve = valueEnds.next(v)
    if (ve < 0 || ve + valueClose.length > limit) {
      error = `value not closed by ${valueClose}`
      break
    }
    const key = text.slice(k, k + ke).trim()
    const value = stripOneNewline(text.slice(v, ve))
    addValue(args, key, value, shape, declared)
    q = end = ve + valueClose.length
  }
  const decoded = error === undefined ? args.result() : invalidArguments(error)
  return { call: makeCall(n.name, decoded, format, text.slice(p, end), n.id), end }
}

/** One value, decoded as the format writes it: by its type tag, as JSON, or typed by the tool schema. */
function addValue(args: ArgumentsBuilder, key: string, value: string, shape: Extract<CallShape, { kind: 'xml-pairs' }>, declared: string | undefined): void {
  const types = shape.types
  if (types && declared !== undefined) {
    if (types.kind === 'string-flag') {
      if (declared === types.stringWord) return args.add(key, { value })
      const json = parseJson(value)
      // Flagged JSON that does not decode stays text: the scorer's schema checks then see the mismatch.
      return json.ok ? args.add(key, json.floatPaths ? { value: json.value, floatPaths: json.floatPaths } : { value: json.value }) : args.addText(key, value)
    }
    const t = declared.toLowerCase()
    if (DECLARED.has(t)) return args.add(key, typeValue(value, { type: t }))
  }
  const json = shape.values === 'json' ? parseJson(value) : undefined
  if (json?.ok) args.add(key, json.floatPaths ? { value: json.value, floatPaths: json.floatPaths } : { value: json.value })
  else args.addText(key, value)
}

const DECLARED = new Set(['string', 'integer', 'number', 'boolean', 'object', 'array', 'null'])
