/**
 * Reading calls with a derived format. Only literal marker searches (forward only, scan.ts) and the parser's own
 * JSON and Python readers: linear in the text, never throws, evaluates nothing. Markers are searched trimmed, so a
 * model that writes other whitespace around them than its template still parses.
 */
import { decodeArguments, isPlainObject, makeCall } from '../call-object.js'
import { parseJson, parseJsonAt, skipSpace } from '../json.js'
import { parsePythonCallAt } from '../../python/index.js'
import { toolCallFromPython } from '../pythonic-calls.js'
import { ForwardSearch, forEachBlock, forEachMarkerRegion } from '../scan.js'
import { ArgumentsBuilder, stripOneNewline } from '../schema-values.js'
import type { ParseOptions, ToolCall } from '../types.js'
import type { CallShape, DerivedFormat } from './types.js'

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
  const out: ToolCall[] = []
  const callOpen = f.callOpen.trim()
  const callClose = f.callClose.trim()
  const blockOpen = f.blockOpen.trim()
  const searches = searchesFor(text, f)
  try {
    if (callOpen !== '') {
      // Each call has its opening marker: read each region it starts (to its close, or the next opening).
      const visit = (from: number, to: number): void => {
        const r = readCall(text, from, to, f.shape, options, format, searches)
        if (r) out.push(r.call)
      }
      if (callClose !== '') forEachBlock(text, callOpen, callClose, (_b, from, to) => visit(from, to))
      else forEachMarkerRegion(text, callOpen, visit)
    } else if (blockOpen !== '') {
      forEachMarkerRegion(text, blockOpen, (start, limit) => readSequence(text, start, limit, f, options, format, out, searches))
    } else {
      // No marker at all (bare JSON objects): calls are read at the start of the output only.
      readSequence(text, 0, text.length, f, options, format, out, searches)
    }
  } catch {
    // A bug here must not crash an eval run: what was read so far stands.
  }
  return out
}

/** Calls one after another from `start` (no marker before each): separated by `separator`, each closed by `callClose`. */
function readSequence(
  text: string,
  start: number,
  limit: number,
  f: DerivedFormat,
  options: ParseOptions,
  format: string,
  out: ToolCall[],
  searches: Searches,
): void {
  const sep = f.separator.trim()
  const close = f.callClose.trim()
  let p = start
  for (;;) {
    const r = readCall(text, p, limit, f.shape, options, format, searches)
    if (!r) return
    out.push(r.call)
    p = skipSpace(text, r.end, limit)
    if (close !== '' && text.startsWith(close, p)) p = skipSpace(text, p + close.length, limit)
    if (sep !== '') {
      if (!text.startsWith(sep, p)) return
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
      const n = readName(text, p, limit, shape.between)
      if (!n) return undefined
      const r = parseJsonAt(text, n.end, limit)
      if (!r.ok) return undefined
      const raw = text.slice(p, r.end)
      return { call: makeCall(n.name, decodeArguments(r.value, r.floatPaths, raw.length), format, raw), end: r.end }
    }
    case 'python': {
      const r = parsePythonCallAt(text.slice(p, limit), 0, { jsonLiterals: true })
      if (!r.ok || r.calls.length !== 1) return undefined
      return { call: toolCallFromPython(r.calls[0]!, format), end: p + r.end }
    }
    case 'xml-pairs':
      return readPairs(text, p, limit, shape, options, format, searches.valueClose ?? new ForwardSearch(text, shape.valueClose.trim()))
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

/** The function name at `p`: up to `between` (trimmed), or the run of name characters when `between` is blank. */
function readName(text: string, p: number, limit: number, between: string): { name: string; end: number } | undefined {
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
  return NAME.test(name) ? { name, end } : undefined
}

/** NAME, then `keyOpen KEY keyClose valueOpen VALUE valueClose` per argument. */
function readPairs(
  text: string,
  p: number,
  limit: number,
  shape: Extract<CallShape, { kind: 'xml-pairs' }>,
  options: ParseOptions,
  format: string,
  valueEnds: ForwardSearch,
): Read | undefined {
  const n = readName(text, p, limit, shape.between)
  if (!n) return undefined
  const keyOpen = shape.keyOpen.trim()
  const keyClose = shape.keyClose.trim()
  const valueOpen = shape.valueOpen.trim()
  const valueClose = shape.valueClose.trim()
  const args = new ArgumentsBuilder(n.name, options)
  let q = n.end
  let end = n.end
  for (;;) {
    q = skipSpace(text, q, limit)
    if (!text.startsWith(keyOpen, q)) break
    const k = q + keyOpen.length
    const ke = text.slice(k, Math.min(limit, k + MAX_NAME + keyClose.length)).indexOf(keyClose)
    if (ke < 0) break
    let v = k + ke + keyClose.length
    if (valueOpen !== '') {
      v = skipSpace(text, v, limit)
      if (!text.startsWith(valueOpen, v)) break
      v += valueOpen.length
    }
    const ve = valueEnds.next(v)
    if (ve < 0 || ve + valueClose.length > limit) break
    const key = text.slice(k, k + ke).trim()
    const value = stripOneNewline(text.slice(v, ve))
    const json = shape.values === 'json' ? parseJson(value) : undefined
    if (json?.ok) args.add(key, json.floatPaths ? { value: json.value, floatPaths: json.floatPaths } : { value: json.value })
    else args.addText(key, value)
    q = end = ve + valueClose.length
  }
  return { call: makeCall(n.name, args.result(), format, text.slice(p, end)), end }
}
