/**
 * What BFCL's OpenAI-compatible handler (gorilla 8db0b7ca, `model_handler/api_inference/openai_completion.py`,
 * `model_handler/utils.py`, `bfcl_eval/utils.py`) puts in a chat-completions request, as pure functions:
 *
 * - the data loader's language hint on every function of an entry (`_func_doc_language_specific_pre_processing`:
 *   " Note that the provided function is in Python 3 syntax.", Java and JavaScript parameters as strings);
 * - function-calling mode's tools (`convert_to_tool` for `OPENAI_COMPLETIONS`, `GORILLA_TO_OPENAPI` types, dots in
 *   names as underscores, `parameters.type` forced to `object`, floats annotated);
 * - prompting mode's system prompt (the default format: the function docs as `json.dumps(functions, indent=4)`).
 *
 * Functions are Python values (`PyValue`), as read from the data line, so floats and key order print as Python does.
 */
import { PyFloat, PyTuple, isPyDict, type PyDict, type PyValue } from '../../python/value.js'
import { pyIntRepr, pyJsonDumps, pyJsonFloat, pyJsonString } from '../../python/repr.js'
import { toPlain } from '../../python/operations.js'
import type { ToolDefinition } from '../../calls/types.js'

/** BFCL's `GORILLA_TO_OPENAPI` (constants/type_mappings.py). */
export const GORILLA_TO_OPENAPI: Readonly<Record<string, string>> = {
  integer: 'integer', number: 'number', float: 'number', string: 'string', boolean: 'boolean', bool: 'boolean',
  array: 'array', list: 'array', dict: 'object', object: 'object', tuple: 'array', any: 'string', byte: 'integer',
  short: 'integer', long: 'integer', double: 'number', char: 'string', ArrayList: 'array', Array: 'array',
  HashMap: 'object', Hashtable: 'object', Queue: 'array', Stack: 'array', Any: 'string', String: 'string', Bigint: 'integer',
}

/** The default prompting system prompt (`DEFAULT_SYSTEM_PROMPT_FORMAT`), up to the function docs, as BFCL prints it. */
export const BFCL_PROMPTING_PREFIX =
  'You are an expert in composing functions.You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose. If none of the functions can be used, point it out. If the given question lacks the parameters required by the function, also point it out.\n\n' +
  'You should only return the function calls in your response.\n\n' +
  'If you decide to invoke any of the function(s), you MUST put it in the format of [func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)].  You SHOULD NOT include any other text in the response.\n\n' +
  "At each turn, you should try your best to complete the tasks requested by the user within the current turn. Continue to output functions to call until you have fulfilled the user's request to the best of your ability. Once you have no more functions to call, the system will consider the current turn complete and proceed to the next turn or task.\n\n" +
  'Here is a list of functions in json format that you can invoke.\n'

/** A deep copy (BFCL mutates its copies; ours must not touch the caller's values). */
export function clonePy(v: PyValue): PyValue {
  if (Array.isArray(v)) return v.map(clonePy)
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, clonePy(x)]))
  if (v instanceof PyTuple) return new PyTuple(v.items.map(clonePy))
  return v
}

const str = (v: PyValue | undefined): string => (typeof v === 'string' ? v : String(toPlain(v ?? null)))
const dictAt = (d: PyDict, key: string): PyDict | undefined => {
  const v = d.get(key)
  return isPyDict(v) ? v : undefined
}

/** `_get_language_specific_hint`: by the category's name, as BFCL tests it (`javascript` before `java`). */
export function languageHint(category: string): string {
  if (category.includes('java') && !category.includes('javascript')) return ' Note that the provided function is in Java 8 SDK syntax.'
  if (category.includes('javascript')) return ' Note that the provided function is in JavaScript syntax.'
  return ' Note that the provided function is in Python 3 syntax.'
}

/** `_func_doc_language_specific_pre_processing` on copies of an entry's functions. */
export function hintedFunctions(functions: readonly PyValue[], category: string): PyValue[] {
  const java = category.includes('java') && !category.includes('javascript')
  const js = category.includes('javascript')
  return functions.map((f0) => {
    const f = clonePy(f0)
    if (!isPyDict(f)) return f
    f.set('description', str(f.get('description')) + languageHint(category))
    const properties = dictAt(dictAt(f, 'parameters') ?? new Map(), 'properties')
    if (properties === undefined || !(java || js)) return f
    const lang = java ? 'Java' : 'JavaScript'
    for (const value of properties.values()) {
      if (!isPyDict(value)) continue
      const type = str(value.get('type'))
      const add = (text: string) => value.set('description', str(value.get('description')) + text)
      if (type === 'any') add(` This parameter can be of any type of ${lang} object in string representation.`)
      else add(` This is ${lang} ${type} type parameter in string representation.`)
      if (java ? type === 'ArrayList' || type === 'Array' : type === 'array') {
        add(` The list elements are of type ${str(dictAt(value, 'items')?.get('type'))}; they are not in string representation.`)
        value.delete('items')
      }
      if (js && type === 'dict' && value.has('properties')) {
        add(` The dictionary entries have the following schema; they are not in string representation. ${pyJsonDumps(value.get('properties'))}`)
        value.delete('properties')
      }
      value.set('type', 'string')
    }
    return f
  })
}

/** `_cast_to_openai_type` with `GORILLA_TO_OPENAPI`, in place on a copy. */
function castToOpenAI(properties: PyDict): void {
  for (const value of properties.values()) {
    if (!isPyDict(value)) continue
    if (!value.has('type')) value.set('type', 'string')
    else {
      const type = str(value.get('type'))
      if (type === 'float') {
        value.set('format', 'float')
        value.set('description', str(value.get('description')) + ' This is a float type value.')
      }
      value.set('type', GORILLA_TO_OPENAPI[type] ?? 'string')
    }
    const t = value.get('type')
    if (t !== 'array' && t !== 'object') continue
    const props = dictAt(value, 'properties')
    const items = dictAt(value, 'items')
    if (props !== undefined) castToOpenAI(props)
    else if (items !== undefined) {
      items.set('type', GORILLA_TO_OPENAPI[str(items.get('type'))] ?? str(items.get('type')))
      const inner = dictAt(items, 'items')
      const innerProps = dictAt(items, 'properties')
      if (items.get('type') === 'array' && inner !== undefined) inner.set('type', GORILLA_TO_OPENAPI[str(inner.get('type'))] ?? str(inner.get('type')))
      else if (items.get('type') === 'object' && innerProps !== undefined) castToOpenAI(innerProps)
    }
  }
}

/** `convert_to_tool(functions, GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS)`, as Python values. */
export function openAIToolsPy(functions: readonly PyValue[]): PyDict[] {
  return functions.map((f0) => {
    const f = clonePy(f0)
    if (isPyDict(f)) {
      const name = str(f.get('name'))
      // OpenAI's tool names are ^[a-zA-Z0-9_-]{1,64}$: BFCL sends dots as underscores.
      if (name.includes('.')) f.set('name', name.replace(/\./g, '_'))
      let params = dictAt(f, 'parameters')
      if (params === undefined) f.set('parameters', (params = new Map()))
      params.set('type', 'object')
      const properties = dictAt(params, 'properties') ?? new Map()
      castToOpenAI(properties)
      params.set('properties', properties)
    }
    return new Map<string, PyValue>([['type', 'function'], ['function', f]])
  })
}

/** The tools of a function-calling request, as JSON. */
export function bfclOpenAITools(functions: readonly PyValue[]): ToolDefinition[] {
  return openAIToolsPy(functions).map((t) => toPlain(t) as unknown as ToolDefinition)
}

/** Python's `json.dumps(v, indent=4)` (ASCII only, `", "` replaced by the indent's line breaks). */
export function pyJsonIndent(v: PyValue, indent = 4, level = 0): string {
  const pad = (n: number) => '\n' + ' '.repeat(indent * n)
  if (v === null) return 'null'
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'string') return pyJsonString(v, true)
  if (typeof v === 'number') return Number.isInteger(v) ? pyIntRepr(v) : pyJsonFloat(v)
  if (v instanceof PyFloat) return pyJsonFloat(v.value)
  const items = v instanceof PyTuple ? v.items : Array.isArray(v) ? v : undefined
  if (items !== undefined) {
    if (items.length === 0) return '[]'
    return '[' + items.map((x) => pad(level + 1) + pyJsonIndent(x, indent, level + 1)).join(',') + pad(level) + ']'
  }
  if (!(v instanceof Map)) return 'null'
  if (v.size === 0) return '{}'
  const parts = [...v].map(([k, x]) => pad(level + 1) + pyJsonString(typeof k === 'string' ? k : String(k), true) + ': ' + pyJsonIndent(x, indent, level + 1))
  return '{' + parts.join(',') + pad(level) + '}'
}

/** Prompting mode's system prompt for these (hinted) functions. */
export function bfclPromptingSystemPrompt(functions: readonly PyValue[]): string {
  return BFCL_PROMPTING_PREFIX + pyJsonIndent([...functions]) + '\n'
}

/** `system_prompt_pre_processing_chat_model`: the system prompt first, or before an existing system message's text. */
export function withPromptingSystemPrompt<M extends { role: string; content?: unknown }>(messages: readonly M[], functions: readonly PyValue[]): M[] {
  const prompt = bfclPromptingSystemPrompt(functions)
  const [first, ...rest] = messages
  if (first !== undefined && first.role === 'system') return [{ ...first, content: `${prompt}\n\n${String(first.content)}` }, ...rest]
  return [{ role: 'system', content: prompt } as M, ...messages]
}
