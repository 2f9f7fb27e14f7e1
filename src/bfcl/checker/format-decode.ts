/**
 * Decoding a prompting result under one of BFCL's prompt formats (gorilla 8db0b7ca, `default_decode_ast_prompting`,
 * `ast_parse`, `parser/json_parser.py`, `parser/xml_parser.py`): the text stripped and bracketed as for the default
 * format, the `<TOOLCALL>` section taken where the format has the tag, then by return format:
 *
 * - python: Python call syntax (the project's parser, never evaluated);
 * - json: the text from the first `[` to the last `]`, its first `[{...}, ...]` run parsed as JSON (text that is not
 *   JSON decodes to no call, as BFCL's), each `{"function": name, "parameters": {...}}` a call;
 * - verbose_xml / concise_xml: the first `<functions>...</functions>` parsed as XML, each `<function name>` a call,
 *   each `<param>` converted by its `type` attribute (`int()`, `float()`, `ast.literal_eval` for arrays and dicts).
 *
 * The XML is read by a small parser of elements, attributes, text and character references. What it does not read
 * (comments, CDATA, processing instructions, a DOCTYPE, non-ASCII names) is `unsupported`: the caller must not
 * score such an entry as if decoded (BFCL's expat may accept it). Error messages are ours, not expat's or Python's.
 */
import { parseJson } from '../../calls/json.js'
import { parsePythonExpression } from '../../python/index.js'
import { literal } from '../multi-turn/executor.js'
import { decodePythonText, PY_SPACE, stripChars, type DecodeResult } from './decode.js'
import { PyExc } from '../../python/runtime.js'
import { fromJson, PyFloat, type PyDict, type PyKey, type PyValue } from '../../python/operations.js'

export type ReturnFormat = 'python' | 'json' | 'verbose_xml' | 'concise_xml'

const fail = (error: string): DecodeResult => ({ ok: false, format: 'prompting', error })
const pyStrip = (s: string) => stripChars(s, (ch) => PY_SPACE.test(ch))

/** Thrown where our XML reader cannot say what expat would do. */
export class UnsupportedXml extends Error {}

export type FormatDecodeResult = DecodeResult | { ok: false; format: 'prompting'; error: string; unsupported: true }

export function decodeFormatted(result: PyValue, returnFormat: ReturnFormat, toolCallTag: boolean): FormatDecodeResult {
  if (typeof result !== 'string') return fail(`'${result === null ? 'NoneType' : typeof result}' object has no attribute 'strip'`)
  let text = stripChars(result, (ch) => ch === '`' || ch === '\n' || ch === ' ')
  if (!text.startsWith('[')) text = '[' + text
  if (!text.endsWith(']')) text = text + ']'
  if (toolCallTag) {
    const m = /<TOOLCALL>([\s\S]*?)<\/TOOLCALL>/.exec(text)
    if (m === null) return fail(`No tool call tag found in input string: ${text}`)
    text = pyStrip(m[1]!)
  }
  try {
    if (returnFormat === 'python') return decodePythonText(stripChars(pyStrip(text), (ch) => ch === "'"))
    if (returnFormat === 'json') return decodeJson(text)
    const m = /<functions>([\s\S]*?)<\/functions>/.exec(text)
    if (m === null) return fail(`No XML function call found in input string: ${text}. Missing <functions> tag.`)
    const root = parseXml(m[0])
    return { ok: true, format: 'prompting', decoded: returnFormat === 'verbose_xml' ? verboseCalls(root) : conciseCalls(root) }
  } catch (e) {
    if (e instanceof UnsupportedXml) return { ok: false, format: 'prompting', error: e.message, unsupported: true }
    if (e instanceof PyExc || e instanceof XmlError) return fail(e.message)
    throw e
  }
}

function decodeJson(input: string): DecodeResult {
  let text = input
  const outer = /\[[\s\S]*\]/.exec(text)
  if (outer !== null) text = outer[0]
  const inner = /\[\s*\{[\s\S]*?\}\s*(?:,\s*\{[\s\S]*?\}\s*)*\]/.exec(text)
  if (inner !== null) text = inner[0]
  const parsed = parseJson(pyStrip(text))
  if (!parsed.ok) return { ok: true, format: 'prompting', decoded: [] }
  const value = fromJson(parsed.value, parsed.floatPaths)
  if (value === undefined) return fail('JSON nested too deeply')
  const items: PyValue[] = Array.isArray(value) ? value : typeof value === 'string' ? [...value] : value instanceof Map ? [...value.keys()] : []
  if (!Array.isArray(value) && !(value instanceof Map) && typeof value !== 'string') return fail(`'${typeof value}' object is not iterable`)
  const calls: PyValue[] = []
  for (const item of items) {
    if (!(item instanceof Map)) continue
    if (!item.has('function')) return fail("'function'")
    if (!item.has('parameters')) return fail("'parameters'")
    const name = item.get('function')!
    if (Array.isArray(name) || name instanceof Map) return fail(`unhashable type: '${Array.isArray(name) ? 'list' : 'dict'}'`)
    calls.push(new Map([[name as PyKey, item.get('parameters')!]]))
  }
  return { ok: true, format: 'prompting', decoded: calls }
}

// ---------------------------------------------------------------------------------------------------------------
// XML

class XmlError extends Error {}

interface XmlElement {
  tag: string
  attrib: Map<string, string>
  /** Text before the first child (ElementTree's `text`), or null. */
  text: string | null
  children: XmlElement[]
}

const NAME = /[A-Za-z_:][A-Za-z0-9_.:-]*/y
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }
// XML 1.0's characters: no control characters but tab, newline and carriage return.
const BAD_CHAR = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/

function parseXml(text: string): XmlElement {
  if (BAD_CHAR.test(text)) throw new XmlError('not well-formed (invalid token)')
  let i = 0
  const name = (): string => {
    if (i < text.length && text.charCodeAt(i) > 127) throw new UnsupportedXml('an XML name with non-ASCII characters')
    NAME.lastIndex = i
    const m = NAME.exec(text)
    if (m === null) throw new XmlError(`not well-formed (invalid token) at ${i}`)
    i += m[0].length
    if (i < text.length && text.charCodeAt(i) > 127) throw new UnsupportedXml('an XML name with non-ASCII characters')
    return m[0]
  }
  const space = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++
  }
  const reference = (): string => {
    const end = text.indexOf(';', i)
    if (end < 0) throw new XmlError(`not well-formed (invalid token) at ${i}`)
    const ref = text.slice(i + 1, end)
    i = end + 1
    if (Object.hasOwn(ENTITIES, ref)) return ENTITIES[ref]!
    const m = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(ref)
    if (m === null) throw new XmlError(/^[A-Za-z_:][A-Za-z0-9_.:-]*$/.test(ref) ? `undefined entity &${ref};` : `not well-formed (invalid token)`)
    const code = m[1] !== undefined ? parseInt(m[1], 16) : parseInt(m[2]!, 10)
    const ok = code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff)
    if (!ok) throw new XmlError('reference to invalid character number')
    return String.fromCodePoint(code)
  }
  const element = (): XmlElement => {
    i++ // '<'
    const tag = name()
    const attrib = new Map<string, string>()
    for (;;) {
      const before = i
      space()
      if (text.startsWith('/>', i)) {
        i += 2
        return { tag, attrib, text: null, children: [] }
      }
      if (text[i] === '>') {
        i++
        break
      }
      if (i === before) throw new XmlError(`not well-formed (invalid token) at ${i}`)
      const key = name()
      space()
      if (text[i] !== '=') throw new XmlError(`not well-formed (invalid token) at ${i}`)
      i++
      space()
      const quote = text[i]
      if (quote !== '"' && quote !== "'") throw new XmlError(`not well-formed (invalid token) at ${i}`)
      i++
      let value = ''
      for (;;) {
        if (i >= text.length) throw new XmlError('unclosed token')
        const ch = text[i]!
        if (ch === quote) break
        if (ch === '<') throw new XmlError(`not well-formed (invalid token) at ${i}`)
        if (ch === '&') value += reference()
        else if (ch === '\r') {
          // Attribute-value normalisation: line ends and tabs become spaces (a CR LF pair one space).
          value += ' '
          i += text[i + 1] === '\n' ? 2 : 1
        } else {
          value += ch === '\n' || ch === '\t' ? ' ' : ch
          i++
        }
      }
      i++
      if (attrib.has(key)) throw new XmlError('duplicate attribute')
      attrib.set(key, value)
    }
    const children: XmlElement[] = []
    let own: string | null = null
    let textRun = ''
    const flushText = () => {
      if (textRun !== '' && children.length === 0) own = (own ?? '') + textRun
      textRun = ''
    }
    for (;;) {
      if (i >= text.length) throw new XmlError('no element found')
      const ch = text[i]!
      if (ch === '<') {
        if (text.startsWith('</', i)) {
          flushText()
          i += 2
          const end = name()
          space()
          if (end !== tag || text[i] !== '>') throw new XmlError('mismatched tag')
          i++
          return { tag, attrib, text: own, children }
        }
        if (text[i + 1] === '!' || text[i + 1] === '?') throw new UnsupportedXml('XML comments, CDATA, declarations and processing instructions are not read')
        flushText()
        children.push(element())
      } else if (ch === '&') textRun += reference()
      else if (ch === '\r') {
        textRun += '\n'
        i += text[i + 1] === '\n' ? 2 : 1
      } else {
        if (text.startsWith(']]>', i)) throw new XmlError('not well-formed (invalid token)')
        textRun += ch
        i++
      }
    }
  }
  if (text[0] !== '<') throw new XmlError('syntax error')
  const root = element()
  if (i !== text.length) throw new XmlError('junk after document element')
  return root
}

/** Python's `int(str)`: optional sign, digits with single underscores between them, surrounding whitespace. */
function pyInt(raw: string): number {
  const t = pyStrip(raw)
  if (!/^[+-]?[0-9](?:_?[0-9])*$/.test(t)) throw new PyExc(`invalid literal for int() with base 10: '${raw}'`)
  const n = Number(t.replace(/_/g, ''))
  if (!Number.isSafeInteger(n)) throw new UnsupportedXml('an integer beyond 2**53')
  return n
}

/** Python's `float(str)`. */
function pyFloat(raw: string): PyFloat {
  const t = pyStrip(raw)
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(t)
  if (special !== null) return new PyFloat(special[2]!.toLowerCase().startsWith('inf') ? (special[1] === '-' ? -Infinity : Infinity) : NaN)
  const digits = '[0-9](?:_?[0-9])*'
  if (!new RegExp(`^[+-]?(?:${digits}(?:\\.(?:${digits})?)?|\\.${digits})(?:[eE][+-]?${digits})?$`).test(t)) throw new PyExc(`could not convert string to float: '${raw}'`)
  return new PyFloat(Number(t.replace(/_/g, '')))
}

function literalEval(raw: string): PyValue {
  const parsed = parsePythonExpression(raw.replace(/^[ \t]+/, ''))
  if (!parsed.ok) throw new PyExc(`invalid syntax (<unknown>, line 1)`)
  return literal(parsed.node)
}

/** `convert_value_by_type`. */
function convert(raw: string, type: string): PyValue {
  switch (type) {
    case 'string':
      return raw
    case 'integer':
      return pyInt(raw)
    case 'float':
      return pyFloat(raw)
    case 'boolean':
      return raw.toLowerCase() === 'true'
    case 'null':
      return null
    case 'array':
    case 'tuple':
    case 'object':
    case 'dict':
      return literalEval(raw)
    default:
      return raw
  }
}

function verboseCalls(root: XmlElement): PyValue[] {
  return root.children
    .filter((f) => f.tag === 'function')
    .map((f) => {
      const name = f.attrib.get('name')
      if (name === undefined) throw new PyExc("'name'")
      const container = f.children.find((c) => c.tag === 'params')
      const params: PyDict = new Map()
      for (const p of (container ?? f).children.filter((c) => c.tag === 'param')) params.set(p.attrib.get('name') ?? null, convert(p.attrib.get('value') ?? '', p.attrib.get('type') ?? 'string'))
      return new Map([[name, params]])
    })
}

function conciseCalls(root: XmlElement): PyValue[] {
  return root.children
    .filter((f) => f.tag === 'function')
    .map((f) => {
      const name = f.attrib.get('name')
      if (name === undefined) throw new PyExc("'name'")
      const params: PyDict = new Map()
      for (const p of f.children.filter((c) => c.tag === 'param')) {
        const key = p.attrib.get('name')
        if (key === undefined) throw new PyExc("'name'")
        params.set(key, convert(pyStrip(p.text ?? ''), p.attrib.get('type') ?? 'string'))
      }
      return new Map([[name, params]])
    })
}
