/**
 * BFCL v4's prompt formats for format sensitivity (gorilla 8db0b7ca, `constants/default_prompts.py`,
 * `model_handler/utils.py`'s `formulate_system_prompt`, `utils.get_all_format_sensitivity_configs`): 26
 * configurations of the prompting system prompt, each a return format (python, json, verbose_xml, concise_xml),
 * with or without a `<TOOLCALL>` tag, the function docs as python, xml or json, plain text or markdown, and the
 * classic or experimental wording. The default configuration is the one every prompting request uses.
 */
import { isPyDict, type PyDict, type PyValue } from '../../python/value.js'
import { pyRepr } from '../../python/repr.js'
import { pyJsonIndent } from './request.js'
import { parsePromptFormat } from '../checker/format-config.js'
import type { ReturnFormat } from '../checker/format-decode.js'

export { DEFAULT_PROMPT_FORMAT, FORMAT_SENSITIVITY_CONFIGS, parsePromptFormat, type PromptFormat } from '../checker/format-config.js'

const OUTPUT_FORMAT: Record<ReturnFormat, string> = {
  python: '[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]',
  json: '```json\n[{"function":"func_name1","parameters":{"param1":"value1","param2":"value2"...}},{"function":"func_name2","parameters":{"param":"value"}}]\n```',
  verbose_xml: '<functions><function name="func_name1"><params><param name="param1" value="value1" type="type1"/><param name="param2" value="value2" type="type2"/>...</params></function><function name="func_name2"><param name="param3" value="value3" type="type3"/></function></functions>',
  concise_xml: '<functions><function name="func_name1"><param name="param1" type="type1">value1</param><param name="param2" type="type2">value2</param>...</function><function name="func_name2"><param name="param3" type="type3">value</param></function></functions>',
}
const XML_TYPES = 'The type fields of the parameters in your function calls must be one of: string, integer, float, boolean, array, dict, or tuple.'
const PARAM_TYPES: Record<ReturnFormat, string> = { python: '', json: '', verbose_xml: XML_TYPES, concise_xml: XML_TYPES }

const STYLES = {
  classic: {
    persona: 'You are an expert in composing functions.',
    task: 'You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose. If none of the functions can be used, point it out. If the given question lacks the parameters required by the function, also point it out.',
    noTag: (o: string, p: string) => `You should only return the function calls in your response.\n\nIf you decide to invoke any of the function(s), you MUST put it in the format of ${o}. ${p} You SHOULD NOT include any other text in the response.`,
    tag: (o: string, p: string) => `You should only return the function calls in the <TOOLCALL> section. If you decide to invoke any of the function(s), you MUST put it in the format of <TOOLCALL>${o}</TOOLCALL>. ${p} You SHOULD NOT include any other text in the response.`,
    multiturn: "At each turn, you should try your best to complete the tasks requested by the user within the current turn. Continue to output functions to call until you have fulfilled the user's request to the best of your ability. Once you have no more functions to call, the system will consider the current turn complete and proceed to the next turn or task.",
    tools: (f: string, docs: string) => `Here is a list of functions in ${f} format that you can invoke.\n${docs}\n`,
  },
  experimental: {
    persona: 'You are an expert in generating structured function calls.',
    task: "You are given a user query and a set of available functions. Your task is to produce one or more function/tool calls to fulfill the user's request. If no suitable function exists, or required parameters are missing, clearly indicate this.",
    noTag: (o: string, p: string) => `Respond with only the function calls.\n\nYou MUST format it exactly as ${o}. ${p} Do NOT include any other text.`,
    tag: (o: string, p: string) => `Return only the function calls enclosed in <TOOLCALL> tags.\n\nYou MUST format it exactly as <TOOLCALL>${o}</TOOLCALL>. ${p} Do NOT include any other text.`,
    multiturn: "At every turn, aim to complete the user's tasks within that turn. Continue emitting function calls until the request is satisfied to the best of your ability. Once no more calls are needed, the system will proceed to the next turn.",
    tools: (f: string, docs: string) => `Below is a list of callable functions in the ${f} style:\n${docs}\n`,
  },
}

/** Python's `str()` of a value in an f-string. */
const s = (v: PyValue | undefined): string => (typeof v === 'string' ? v : pyRepr(v ?? null))
const get = (d: PyDict, key: string, fallback: PyValue): PyValue => (d.has(key) ? d.get(key)! : fallback)
const dict = (v: PyValue | undefined): PyDict => (isPyDict(v) ? v : new Map())
/** Python's `x in container` for a list (or a dict's keys, or a str's substrings). */
function isIn(x: string, container: PyValue): boolean {
  if (Array.isArray(container)) return container.includes(x)
  if (isPyDict(container)) return container.has(x)
  return typeof container === 'string' && container.includes(x)
}

/** `_generate_function_doc_xml`. */
function xmlDocs(functions: readonly PyValue[]): string {
  const param = (name: string, meta: PyDict, required: PyValue | undefined, level: number): string => {
    const indent = ' '.repeat(level * 2)
    let type = s(get(meta, 'type', 'string'))
    let desc = s(get(meta, 'description', ''))
    const isRequired = required === undefined || required === null ? 'true' : isIn(name, required) ? 'true' : 'false'
    if (meta.has('enum')) desc += ` Enum values: ${s(meta.get('enum'))}.`
    const items = meta.get('items')
    if (isPyDict(items) && items.has('type')) type = `${type}[${s(items.get('type'))}]`
    else if (meta.has('additionalProperties')) type = `${type}[${s(get(dict(meta.get('additionalProperties')), 'type', 'string'))}]`
    const attrs = [`name="${name}", type="${type}", required="${isRequired}"`]
    if (meta.has('default')) attrs.push(`default="${pyRepr(meta.get('default')!)}"`)
    const parts = [`${indent}<param ${attrs.join(' ').replaceAll(',', '')}>\n`, `${indent}  <desc>${desc}</desc>\n`]
    if (meta.has('properties')) {
      parts.push(`${indent}  <params>\n`)
      for (const [child, childMeta] of dict(meta.get('properties'))) parts.push(param(String(child), dict(childMeta), meta.has('required') ? meta.get('required') : undefined, level + 2))
      parts.push(`${indent}  </params>\n`)
    }
    parts.push(`${indent}</param>\n`)
    return parts.join('')
  }
  return functions
    .map((f0) => {
      const f = dict(f0)
      const params = dict(f.get('parameters'))
      let xml = `<function name="${s(f.get('name'))}">\n  <desc>${s(get(f, 'description', ''))}</desc>\n  <params>\n`
      for (const [name, meta] of dict(get(params, 'properties', new Map()))) xml += param(String(name), dict(meta), params.has('required') ? params.get('required') : undefined, 2)
      return xml + '  </params>\n</function>\n'
    })
    .join('\n')
}

/** `_generate_function_doc_python`. */
function pythonDocs(functions: readonly PyValue[]): string {
  const pyType = (meta: PyDict): string => {
    const t = s(get(meta, 'type', 'string'))
    const primitive: Record<string, string> = { string: 'str', number: 'float', integer: 'int', boolean: 'bool' }
    if (Object.hasOwn(primitive, t)) return primitive[t]!
    if ((t === 'array' || t === 'list' || t === 'tuple') && meta.has('items')) return `list[${pyType(dict(meta.get('items')))}]`
    if (t === 'object' || t === 'dict') return meta.has('additionalProperties') ? `dict[str, ${pyType(dict(meta.get('additionalProperties')))}]` : 'dict'
    return t
  }
  const paramDoc = (name: string, meta: PyDict, depth: number): string[] => {
    const indent = ' '.repeat(8 + 4 * depth)
    let desc = s(get(meta, 'description', ''))
    if (meta.has('enum')) desc += ` Enum values: ${s(meta.get('enum'))}.`
    const note = meta.has('default') ? `, default=${pyRepr(meta.get('default')!)}` : ''
    const lines = [`${indent}${name} (${pyType(meta)}${note}): ${desc}\n`]
    if (meta.has('properties')) for (const [child, childMeta] of dict(meta.get('properties'))) lines.push(...paramDoc(String(child), dict(childMeta), depth + 1))
    return lines
  }
  const docs: string[] = []
  for (const f0 of functions) {
    const f = dict(f0)
    const lines = [`# Function: ${s(f.get('name'))}\n`, '    """\n', `    ${s(get(f, 'description', ''))}\n\n`]
    const props = dict(get(dict(get(f, 'parameters', new Map())), 'properties', new Map()))
    if (props.size > 0) {
      lines.push('    Args:\n')
      for (const [name, meta] of props) lines.push(...paramDoc(String(name), dict(meta), 0))
    }
    lines.push('    """\n')
    docs.push(lines.join(''), '\n')
  }
  return docs.join('\n\n')
}

/**
 * `formulate_system_prompt(config, functions)`; throws on a configuration BFCL rejects. `rendered` keeps the
 * functions' docs by doc format for further calls with the same functions (26 formats share three renderings).
 */
export function formulateSystemPrompt(config: string, functions: readonly PyValue[], rendered?: Map<string, string>): string {
  const f = parsePromptFormat(config)
  if (f === undefined) throw new Error(`Invalid query format: '${config}'`)
  let docs = rendered?.get(f.docFormat)
  if (docs === undefined) {
    docs = f.docFormat === 'xml' ? xmlDocs(functions) : f.docFormat === 'python' ? pythonDocs(functions) : pyJsonIndent([...functions])
    rendered?.set(f.docFormat, docs)
  }
  const style = STYLES[f.style]
  const toolCall = (f.toolCallTag ? style.tag : style.noTag)(OUTPUT_FORMAT[f.returnFormat], PARAM_TYPES[f.returnFormat])
  const tools = style.tools(f.docFormat, docs)
  if (f.promptFormat === 'markdown') return `${style.persona}\n\n## Task\n${style.task}\n\n## Tool Call Format\n${toolCall}\n\n## Multi-turn Behavior\n${style.multiturn}\n\n## Available Tools\n${tools}`
  return `${style.persona}${style.task}\n\n${toolCall}\n\n${style.multiturn}\n\n${tools}`
}
