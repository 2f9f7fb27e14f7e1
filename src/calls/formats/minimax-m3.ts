/**
 * MiniMax M3: invokes whose parameters are tags named after their key, every tag prefixed by the namespace token
 * `]<]minimax[>[` (NS below):
 *
 * ```
 * NS<tool_call>
 * NS<invoke name="create_order">NS<user_id>42NS</user_id>NS<shipping>NS<city>SingaporeNS</city>NS</shipping>NS</invoke>
 * NS</tool_call>
 * ```
 *
 * Sources: SGLang's `function_call/minimax_m3.py` (the grammar: values end at the next NS token, a tag holding only
 * tags is an object, `<item>` children make an array, a repeated tag makes a list) and vLLM's
 * `tests/tool_parsers/test_minimax_m3_tool_parser.py` (vLLM's parser is its Rust crate). Xinference writes the same
 * tags without NS, inside M2's wrapper: `<minimax:tool_call><invoke name="search"><query>…</query></invoke>`; those
 * invokes are read here (tried before M2, whose reader would find no `<parameter>` in them), and an invoke holding
 * `<parameter>` elements is left to M2; their text is XML, its entities (`&amp;`, `&lt;`) decoded. Values are typed by the tool schema (`../schema-values.ts`), nested ones by the
 * nested schema; containers written as JSON text are decoded. A tag closed by a plain `</key>` inside an NS value is
 * accepted. Anything in an invoke that is not a tag or a value (a stray word, a tag closed in the wrong order, a tag
 * never closed) makes the call's arguments invalid, with the reason. Linear: forward searches and one pass per invoke.
 */
import { invalidArguments, makeCall, setOwn } from '../call-object.js'
import { parameterSchemas, renderRawValue, typeValue } from '../schema-values.js'
import { ForwardSearch } from '../scan.js'
import { skipSpace } from '../json.js'
import type { FormatParser, JsonSchema, ParseOptions, ToolCall } from '../types.js'
import { markedBy } from '../marker-scan.js'
import { decodeXmlEntities } from '../xml-entities.js'

const FORMAT = 'minimax_m3'
const NS = ']<]minimax[>['
const INVOKE = '<invoke'
const INVOKE_END = '</invoke>'
const XINFERENCE_WRAPPER = '<minimax:tool_call>'
const NAME_ATTRIBUTE = /^\s+name\s*=\s*(?:"([^"]*)"|'([^']*)')\s*$/

interface Frame {
  tag: string
  schema: JsonSchema | undefined
  /** The leaf's text, when the tag held text. */
  text?: string
  /** The container, once a child tag was seen. */
  value?: Record<string, unknown> | unknown[]
  /** Keys whose value is the list their repeated tag made (so an array value is never taken for one). */
  repeated?: Set<string>
}

function childSchema(parent: JsonSchema | undefined, tag: string): JsonSchema | undefined {
  if (!parent || typeof parent !== 'object') return undefined
  if (tag === 'item' && parent.items && typeof parent.items === 'object') return parent.items
  const p = parent.properties?.[tag]
  if (p && typeof p === 'object') return p
  const extra = parent['additionalProperties']
  return extra && typeof extra === 'object' ? (extra as JsonSchema) : undefined
}

function isArraySchema(schema: JsonSchema | undefined): boolean {
  const t = schema?.type
  return t === 'array' || (Array.isArray(t) && t.includes('array'))
}

/**
 * Put a finished child into its parent: arrays append, a repeated key becomes the list of its values (SGLang,
 * Xinference). Which keys hold such a list is kept, so a first value that is itself an array stays one element
 * (`<a><item>1</item></a><a><item>2</item></a>` is `[[1], [2]]`, as Xinference reads it, not `[1, [2]]`).
 */
function assign(parent: Frame, tag: string, value: unknown): void {
  if (parent.value === undefined) parent.value = tag === 'item' || isArraySchema(parent.schema) ? [] : {}
  const c = parent.value
  if (Array.isArray(c)) {
    c.push(value)
  } else if (Object.prototype.hasOwnProperty.call(c, tag)) {
    const prev = c[tag]
    parent.repeated ??= new Set()
    if (parent.repeated.has(tag)) (prev as unknown[]).push(value)
    else {
      setOwn(c, tag, [prev, value])
      parent.repeated.add(tag)
    }
  } else {
    setOwn(c, tag, value)
  }
}

function finish(frame: Frame): unknown {
  if (frame.value !== undefined) return frame.value
  return typeValue(frame.text ?? '', frame.schema).value
}

/**
 * The arguments in `text[from, end)`, or the reason they cannot be read. `ns`: the NS dialect, where a value runs to
 * the next NS token; without it a value runs to the next `<`.
 */
function readBody(
  text: string,
  from: number,
  end: number,
  ns: boolean,
  schema: JsonSchema | undefined,
  search: { ns: ForwardSearch; lt: ForwardSearch; gt: ForwardSearch },
): Record<string, unknown> | string {
  const root: Frame = { tag: '', schema, value: {} }
  const stack: Frame[] = [root]
  let p = from
  for (;;) {
    p = skipSpace(text, p, end)
    while (text.startsWith(NS, p)) p = skipSpace(text, p + NS.length, end)
    if (p >= end) break
    if (text.charCodeAt(p) !== 60) return 'text in the invoke that is not an argument tag'
    const close = search.gt.next(p)
    if (close < 0 || close >= end) return 'argument tag not closed'
    const top = stack[stack.length - 1]!
    if (text.charCodeAt(p + 1) === 47) {
      // `</tag>`
      const tag = text.slice(p + 2, close).trim()
      if (stack.length === 1 || top.tag !== tag) return `</${tag}> does not close the open tag`
      stack.pop()
      assign(stack[stack.length - 1]!, tag, finish(top))
      p = close + 1
      continue
    }
    const tag = text.slice(p + 1, close).trim()
    if (tag.length === 0 || /[\s"'=/]/.test(tag)) return `<${tag}> is not an argument tag`
    if (top.text !== undefined) return `<${tag}> inside the value of <${top.tag}>`
    const frame: Frame = { tag, schema: childSchema(top.schema, tag) }
    const valueFrom = close + 1
    let valueEnd = (ns ? search.ns : search.lt).next(valueFrom)
    if (valueEnd < 0 || valueEnd > end) valueEnd = end
    let raw = text.slice(valueFrom, valueEnd)
    let closedHere = false
    // `NS<query>text</query>NS<next>`: a plain closer at the end of an NS value closes the tag.
    if (ns && raw.trimEnd().endsWith(`</${tag}>`)) {
      raw = raw.trimEnd().slice(0, -(tag.length + 3))
      closedHere = true
    }
    // Without NS the invoke is XML (Xinference's): its text escapes `&`, `<`, `>` as entities.
    if (raw.trim().length > 0) frame.text = ns ? raw.trimEnd() : decodeXmlEntities(raw)
    else if (closedHere) frame.text = ''
    if (closedHere) assign(top, tag, finish(frame))
    else stack.push(frame)
    p = frame.text !== undefined || closedHere ? valueEnd : valueFrom
  }
  if (stack.length > 1) return `<${stack[stack.length - 1]!.tag}> not closed`
  return root.value as Record<string, unknown>
}

function parse(text: string, options: ParseOptions): ToolCall[] {
  const out: ToolCall[] = []
  const invoke = new ForwardSearch(text, INVOKE)
  const invokeEnd = new ForwardSearch(text, INVOKE_END)
  const search = { ns: new ForwardSearch(text, NS), lt: new ForwardSearch(text, '<'), gt: new ForwardSearch(text, '>') }
  const wrapper = text.indexOf(XINFERENCE_WRAPPER)
  let at = invoke.next(0)
  while (at >= 0) {
    const next = invoke.next(at + INVOKE.length)
    const end = invokeEnd.next(at + INVOKE.length)
    if (end < 0 || (next >= 0 && next < end)) {
      at = next
      continue
    }
    const ns = at >= NS.length && text.startsWith(NS, at - NS.length)
    const tagEnd = search.gt.next(at + INVOKE.length)
    const m = tagEnd >= 0 && tagEnd < end ? NAME_ATTRIBUTE.exec(text.slice(at + INVOKE.length, tagEnd)) : null
    const name = m ? decodeXmlEntities((m[1] ?? m[2])!.trim()) : ''
    // Without NS, only Xinference's shape inside M2's wrapper is M3's; `<parameter>` children are M2's.
    const firstChild = tagEnd < 0 ? end : skipSpace(text, tagEnd + 1, end)
    const ownPlain =
      !ns && wrapper >= 0 && wrapper < at && firstChild < end && !text.startsWith('<parameter', firstChild) && !text.startsWith('</', firstChild)
    if (name && (ns || ownPlain)) {
      let bodyEnd = end
      if (ns && text.startsWith(NS, end - NS.length)) bodyEnd = end - NS.length
      const body = readBody(text, tagEnd + 1, bodyEnd, ns, schemaOf(options, name), search)
      const args = typeof body === 'string' ? invalidArguments(body) : { arguments: body, argumentsValid: true }
      out.push(makeCall(name, args, FORMAT, text.slice(ns ? at - NS.length : at, end + INVOKE_END.length)))
    }
    at = invoke.next(end)
  }
  return out
}

function schemaOf(options: ParseOptions, name: string): JsonSchema | undefined {
  const props = parameterSchemas(options.tools, name)
  return props ? { type: 'object', properties: props } : undefined
}

function render(calls: readonly { name: string; arguments: Record<string, unknown> }[]): string {
  const invokes = calls.map((c) => {
    let s = `${NS}${INVOKE} name="${c.name}">`
    // Containers are written as JSON text, which the schema (or, without one, JSON) reads back.
    for (const [k, v] of Object.entries(c.arguments)) s += `${NS}<${k}>${renderRawValue(v)}${NS}</${k}>`
    return s + NS + INVOKE_END
  })
  return `${NS}<tool_call>\n${invokes.join('\n')}\n${NS}</tool_call>`
}

export const minimaxM3: FormatParser = {
  name: FORMAT,
  aliases: ['minimax-m3'],
  ...markedBy(NS + INVOKE, XINFERENCE_WRAPPER),
  parse,
  render,
}
