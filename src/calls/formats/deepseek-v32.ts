/**
 * DeepSeek V3.2 DSML:
 * ```
 * <｜DSML｜function_calls>
 * <｜DSML｜invoke name="NAME">
 * <｜DSML｜parameter name="k" string="true|false">v</｜DSML｜parameter>
 * </｜DSML｜invoke>
 * </｜DSML｜function_calls>
 * ```
 * `string="true"` marks a raw string value, `string="false"` a JSON value (number, boolean, array, object). Without
 * the attribute the tool's schema decides (a `string` parameter is raw, anything else is tried as JSON). An invoke
 * may hold one JSON object instead of parameter tags; an empty or blank invoke is `{}`. Indentation around the tags
 * is ignored; a value keeps its text except one newline right after the opening tag and one before the closing tag.
 *
 * Choices: a `string="false"` value that is not JSON is kept as its text (the attribute is bookkeeping, the model's
 * value is still there to score). A parameter cut off by the end of the output (a truncated stream) makes the call's
 * arguments invalid. Both `｜` (U+FF5C) and an ASCII `|` are accepted around `DSML`.
 *
 * Plain tags: where detokenizing dropped the `｜DSML｜` prefix (Xinference reads this form), an output without any
 * DSML tag is read from its `<function_calls>` blocks of plain `<invoke name="…">` and `<parameter name="…">` tags,
 * with the same rules. Outside such a block plain tags are text (OLMo 3's `<function_calls>` holds Python calls and
 * no invoke tag, so it gives nothing here).
 */
import { invalidArguments, isPlainObject, makeCall, setOwn } from '../call-object.js'
import { blankBetween, damagedMarkup, unreadText } from '../unread.js'
import { parseJson, toPointer } from '../json.js'
import type { FormatParser, ParseOptions, ToolCall, ToolDefinition } from '../types.js'
import { ForwardSearch } from '../scan.js'

type TagName = 'function_calls' | 'invoke' | 'parameter'

interface Tag {
  tag: TagName
  closing: boolean
  start: number
  end: number
  attrs: string
}

const MAX_TAG_NAME = 32
/** Attributes are short (a name and a flag); bounds the look-ahead for `>` at each tag. */
const MAX_ATTRS = 512

function isBar(c: number): boolean {
  return c === 0xff5c /* ｜ */ || c === 124 /* | */
}

function isTagNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || c === 95 // a-z _
}

/** The tags in `text`: the DSML ones, or where there are none, the plain ones inside `<function_calls>` blocks. */
function scanTags(text: string): { tags: Tag[]; plain: boolean } {
  const dsml = scanDsmlTags(text)
  return dsml.length > 0 ? { tags: dsml, plain: false } : { tags: scanPlainTags(text), plain: true }
}

const PLAIN_OPEN = '<function_calls>'
const PLAIN_CLOSE = '</function_calls>'

/** The plain tags read inside a `<function_calls>` block, opening and closing. */
const PLAIN_TAGS: { token: string; tag: TagName; closing: boolean }[] = [
  { token: '<invoke', tag: 'invoke', closing: false },
  { token: '</invoke', tag: 'invoke', closing: true },
  { token: '<parameter', tag: 'parameter', closing: false },
  { token: '</parameter', tag: 'parameter', closing: true },
]

/**
 * The plain tags inside each `<function_calls>` block (to its `</function_calls>` or the end). Every search only
 * moves forward (a `ForwardSearch` per tag, and the last `>` found is kept), so the scan is linear whatever the
 * blocks hold.
 */
function scanPlainTags(text: string): Tag[] {
  const tags: Tag[] = []
  let open = text.indexOf(PLAIN_OPEN)
  // No invoke after the first block's opener (OLMo 3's blocks): no call, and nothing more to set up.
  if (open < 0 || text.indexOf('<invoke', open) < 0) return tags
  const searches = PLAIN_TAGS.map((t) => new ForwardSearch(text, t.token))
  const gts = new ForwardSearch(text, '>')
  while (open >= 0) {
    tags.push({ tag: 'function_calls', closing: false, start: open, end: open + PLAIN_OPEN.length, attrs: '' })
    const closeAt = text.indexOf(PLAIN_CLOSE, open + PLAIN_OPEN.length)
    const end = closeAt < 0 ? text.length : closeAt
    let at = open + PLAIN_OPEN.length
    for (;;) {
      let k = -1
      let lt = end
      for (let j = 0; j < searches.length; j++) {
        const p = searches[j]!.next(at)
        if (p >= 0 && p < lt) {
          lt = p
          k = j
        }
      }
      if (k < 0) break
      const t = PLAIN_TAGS[k]!
      const i = lt + t.token.length
      at = i
      // `<invoke` must end its name there (`<invoked` is text); `>` within the attributes' bound and the block.
      if (isTagNameChar(text.charCodeAt(i))) continue
      const gt = gts.next(i)
      if (gt < 0 || gt >= end || gt - i > MAX_ATTRS) continue
      tags.push({ tag: t.tag, closing: t.closing, start: lt, end: gt + 1, attrs: text.slice(i, gt) })
      at = gt + 1
    }
    if (closeAt < 0) break
    tags.push({ tag: 'function_calls', closing: true, start: closeAt, end: closeAt + PLAIN_CLOSE.length, attrs: '' })
    open = text.indexOf(PLAIN_OPEN, closeAt + PLAIN_CLOSE.length)
  }
  return tags
}

/** The DSML tags in `text`, in order; each `DSML` occurrence is looked at once with a bounded look-ahead. */
function scanDsmlTags(text: string): Tag[] {
  const tags: Tag[] = []
  const marks = new ForwardSearch(text, 'DSML')
  let p = marks.next(0)
  while (p >= 0) {
    let next = p + 4
    const tag = tagAt(text, p)
    if (tag) {
      tags.push(tag)
      next = tag.end
    }
    p = marks.next(next)
  }
  return tags
}

function tagAt(text: string, p: number): Tag | undefined {
  if (!isBar(text.charCodeAt(p - 1)) || !isBar(text.charCodeAt(p + 4))) return undefined
  let start: number
  let closing: boolean
  if (text.charCodeAt(p - 2) === 60 /* < */) {
    start = p - 2
    closing = false
  } else if (text.charCodeAt(p - 2) === 47 /* / */ && text.charCodeAt(p - 3) === 60 /* < */) {
    start = p - 3
    closing = true
  } else return undefined
  let i = p + 5
  const nameStart = i
  while (i < text.length && i - nameStart < MAX_TAG_NAME && isTagNameChar(text.charCodeAt(i))) i++
  const tag = text.slice(nameStart, i)
  if (tag !== 'function_calls' && tag !== 'invoke' && tag !== 'parameter') return undefined
  const window = text.slice(i, i + MAX_ATTRS)
  const gt = window.indexOf('>')
  if (gt < 0) return undefined
  return { tag, closing, start, end: i + gt + 1, attrs: window.slice(0, gt) }
}

const NAME_ATTR = /(?:^|\s)name="([^"]*)"/
// A tag's attribute text: attributes and whitespace only (other text in the tag is not read).
const ATTRIBUTES = /^(?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))*\s*\/?$/
const STRING_ATTR = /(?:^|\s)string="([^"]*)"/

function attr(attrs: string, pattern: RegExp): string | undefined {
  return pattern.exec(attrs)?.[1]
}

/** The schema type of a parameter, from the offered tools. */
function schemaType(tools: ToolDefinition[] | undefined, fn: string, key: string): string | undefined {
  const tool = tools?.find((t) => t.function?.name === fn)
  const t = tool?.function.parameters?.properties?.[key]?.type
  return typeof t === 'string' ? t : Array.isArray(t) ? t.find((x) => x !== 'null') : undefined
}

/** The parameters the offered tool `fn` declares that `params` lacks. */
function missingParameters(tools: ToolDefinition[] | undefined, fn: string, params: Record<string, unknown>): string[] {
  const props = tools?.find((t) => t.function?.name === fn)?.function.parameters?.properties
  return props ? Object.keys(props).filter((k) => !Object.prototype.hasOwnProperty.call(params, k)) : []
}

/** A value's text without one newline after the opening tag and one before the closing tag. */
function trimOneNewline(s: string): string {
  let a = 0
  let b = s.length
  if (s.startsWith('\r\n')) a = 2
  else if (s.startsWith('\n')) a = 1
  if (b - a >= 2 && s.endsWith('\r\n')) b -= 2
  else if (b > a && s.endsWith('\n')) b -= 1
  return s.slice(a, b)
}

interface OpenInvoke {
  name: string
  start: number
  bodyStart: number
  params: Record<string, unknown> | undefined
  floatPaths: string[]
  truncated: boolean
  /** Why text of its body was not read (issue 22): then the call is invalid. */
  unread?: string
  /** End of the last tag or value read in its body. */
  read: number
  /** The raw values read, for `damagedMarkup`. */
  values: string[]
}

interface OpenParam {
  key: string
  asString: boolean | undefined
  valueStart: number
}

export function parseDsml(text: string, options: ParseOptions = {}): ToolCall[] {
  const calls: ToolCall[] = []
  let invoke: OpenInvoke | undefined
  let param: OpenParam | undefined
  let last: ToolCall | undefined // the last call, until the next invoke opens

  const closeParam = (end: number, closed: boolean): void => {
    if (!invoke || !param) return
    const raw = trimOneNewline(text.slice(param.valueStart, end))
    invoke.params ??= {}
    // `DSML` in a value is a tag the scan could not read (a damaged one), which may have held an argument.
    if (raw.includes('DSML')) invoke.unread ??= 'a value holds a DSML tag that could not be read'
    invoke.values.push(raw)
    const asString = param.asString ?? schemaType(options.tools, invoke.name, param.key) === 'string'
    let value: unknown = raw
    if (!asString) {
      const r = parseJson(raw)
      if (r.ok) {
        value = r.value
        for (const p of r.floatPaths ?? []) invoke.floatPaths.push(toPointer([param.key]) + p)
      }
    }
    setOwn(invoke.params, param.key, value)
    if (!closed) invoke.truncated = true
    param = undefined
  }

  const closeInvoke = (end: number): void => {
    if (!invoke) return
    const inv = invoke
    invoke = undefined
    const raw = text.slice(inv.start, end)
    if (inv.params) {
      if (!blankBetween(text, inv.read, end)) inv.unread ??= 'text in the invoke that is not a parameter'
      inv.unread ??= damagedMarkup(inv.values, paramClose, missingParameters(options.tools, inv.name, inv.params))
      const args = inv.truncated
        ? { arguments: {}, argumentsValid: false }
        : inv.unread !== undefined
          ? invalidArguments(inv.unread)
          : { arguments: inv.params, argumentsValid: true, floatPaths: inv.floatPaths }
      calls.push(makeCall(inv.name, args, 'deepseek_v32', raw))
      last = calls[calls.length - 1]
      return
    }
    const body = text.slice(inv.bodyStart, end).trim()
    if (body === '') {
      calls.push(makeCall(inv.name, { arguments: {}, argumentsValid: true }, 'deepseek_v32', raw))
      return
    }
    const r = parseJson(body)
    const args =
      r.ok && isPlainObject(r.value)
        ? { arguments: r.value, argumentsValid: true, floatPaths: r.floatPaths }
        : { arguments: {}, argumentsValid: false }
    calls.push(makeCall(inv.name, args, 'deepseek_v32', raw))
    last = calls[calls.length - 1]
  }

  const { tags, plain } = scanTags(text)
  const paramClose = plain ? '</parameter>' : '</｜DSML｜parameter>'
  for (const t of tags) {
    // A parameter or invoke closer with none open, after a call and before the next invoke: the call's own closer
    // was written inside a value and the call ran on past it (issue 22).
    if (!invoke && last && t.closing && t.tag !== 'function_calls') {
      unreadText([last], `a closing ${t.tag} tag after the invoke's end: the text between is unread`)
    }
    const inParam = param !== undefined
    // A parameter whose closing tag is missing ends at the next tag (only the end of the output truncates it).
    if (param && !(t.tag === 'parameter' && t.closing)) closeParam(t.start, true)
    if (invoke && !inParam && !blankBetween(text, invoke.read, t.start)) {
      invoke.unread ??= `text in the invoke that is not a parameter: ${JSON.stringify(text.slice(invoke.read, t.start).trim().slice(0, 40))}`
    }
    if (t.tag === 'parameter') {
      if (t.closing) {
        // A closer with no parameter open closes nothing: its parameter's opening tag was not read.
        if (invoke && !inParam) invoke.unread ??= 'a closing parameter tag with no parameter open'
        closeParam(t.start, true)
        if (invoke) invoke.read = t.end
      } else if (invoke) {
        const key = ATTRIBUTES.test(t.attrs) ? attr(t.attrs, NAME_ATTR) : undefined
        const flag = attr(t.attrs, STRING_ATTR)
        invoke.read = t.end
        invoke.params ??= {}
        if (key !== undefined) param = { key, asString: flag === undefined ? undefined : flag === 'true', valueStart: t.end }
        else invoke.unread ??= `a parameter tag that could not be read: ${JSON.stringify(t.attrs.slice(0, 40))}`
      }
    } else if (t.tag === 'invoke') {
      closeInvoke(t.start)
      const name = t.closing ? undefined : attr(t.attrs, NAME_ATTR)
      if (name) {
        invoke = { name, start: t.start, bodyStart: t.end, params: undefined, floatPaths: [], truncated: false, read: t.end, values: [] }
        last = undefined
      }
    } else closeInvoke(t.start)
  }
  closeParam(text.length, false)
  closeInvoke(text.length)
  return calls
}

const SAFE_KEY = /^[^"<>\s]+$/

function safeValueText(s: string): boolean {
  return !s.includes('DSML') && !s.startsWith('\n') && !s.endsWith('\n') && !s.startsWith('\r')
}

/** One invoke: parameter tags when every key and value survives them, else the JSON-body form. */
function renderInvoke(c: { name: string; arguments: Record<string, unknown> }): string {
  const entries = Object.entries(c.arguments)
  const params = entries.map(([k, v]) => {
    const isString = typeof v === 'string'
    const valueText = isString ? v : JSON.stringify(v)
    return { k, isString, valueText }
  })
  const tagged = params.every((p) => SAFE_KEY.test(p.k) && p.valueText !== undefined && safeValueText(p.valueText))
  const body = tagged
    ? params
        .map((p) => `<｜DSML｜parameter name="${p.k}" string="${p.isString}">${p.valueText}</｜DSML｜parameter>\n`)
        .join('')
    : JSON.stringify(c.arguments) + '\n'
  return `<｜DSML｜invoke name="${c.name}">\n${body}</｜DSML｜invoke>\n`
}

export const deepseekV32: FormatParser = {
  name: 'deepseek_v32',
  // A call needs an opening invoke tag, `<` then `DSML` between bars of either kind.
  markers: ['<｜DSML｜', '<｜DSML|', '<|DSML｜', '<|DSML|', PLAIN_OPEN],
  detect: (text) => text.includes('DSML') || text.includes(PLAIN_OPEN),
  // OLMo 3's `<function_calls>` (no DSML, no invoke) is common: nothing to set up for it.
  parse: (text, options) => (text.includes('DSML') || text.includes('<invoke') ? parseDsml(text, options) : []),
  render: (calls) => `<｜DSML｜function_calls>\n${calls.map(renderInvoke).join('')}</｜DSML｜function_calls>`,
}
