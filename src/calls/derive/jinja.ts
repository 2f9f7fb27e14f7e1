/**
 * The one place in src/calls that loads a package: `@huggingface/jinja`, the engine transformers.js renders chat
 * templates with, loaded on first use only, so users who never derive a format from a template need not install it.
 * Loaded with `require` (Node >= 20.19 requires ES modules too; the package also ships CommonJS) so that deriving,
 * and hence `parseToolCalls`, stays synchronous. Templates are trusted configuration; model output never reaches it.
 */
import { createRequire } from 'node:module'

interface JinjaTemplate {
  render(items?: Record<string, unknown>): string
}
type TemplateClass = new (template: string) => JinjaTemplate

let engine: TemplateClass | Error | undefined

function load(): TemplateClass | Error {
  if (engine !== undefined) return engine
  try {
    const mod = createRequire(import.meta.url)('@huggingface/jinja') as { Template?: TemplateClass }
    if (typeof mod.Template !== 'function') throw new Error('it exports no Template class')
    engine = mod.Template
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err)
    engine = new Error(
      `deriving a format from a chat template needs the package @huggingface/jinja (npm install @huggingface/jinja): ${why}`,
    )
  }
  return engine
}

/** A compiled template, or why it cannot be compiled (the engine missing, a syntax error). */
export function compileTemplate(source: string): JinjaTemplate | Error {
  const Template = load()
  if (Template instanceof Error) return Template
  try {
    return new Template(source)
  } catch (err) {
    return new Error(`the chat template does not compile: ${explainEngineError(source, err instanceof Error ? err.message : String(err))}`)
  }
}

/**
 * Constructs of Python's Jinja (and of the Python values templates call methods on) that `@huggingface/jinja` lacks:
 * the engine's own message says only "not a function" or "unknown filter", so the template is searched for them.
 */
const ENGINE_GAPS: { construct: string; pattern: RegExp }[] = [
  { construct: '{% do %}', pattern: /\{%-?\s*do\b/ },
  { construct: 'list.append()', pattern: /\.append\(/ },
  { construct: 'list.extend()', pattern: /\.extend\(/ },
  { construct: 'list.pop()', pattern: /\.pop\(/ },
  { construct: 'dict.update()', pattern: /\.update\(/ },
  { construct: 'str.format()', pattern: /\.format\(/ },
  { construct: 'str.count()', pattern: /\.count\(/ },
  { construct: 'str.find()', pattern: /\.r?find\(/ },
  { construct: 'str.splitlines()', pattern: /\.splitlines\(/ },
  { construct: 'loop.cycle()', pattern: /loop\.cycle\(/ },
  { construct: 'dict()', pattern: /[^\w.]dict\(/ },
  { construct: 'zip()', pattern: /[^\w.]zip\(/ },
  { construct: "map('tojson') (map without attribute=)", pattern: /\|\s*map\(\s*['"]/ },
  { construct: 'a filter it lacks (format, round, e, sum, min, max, batch, groupby, attr, pprint, truncate, urlencode, wordcount, bool)', pattern: /\|\s*(?:format|round|e|sum|min|max|batch|groupby|attr|pprint|truncate|urlencode|wordcount|bool)\b/ },
]

/** `message` (an engine error), with the constructs of `source` the engine lacks named when the error is one of those. */
export function explainEngineError(source: string, message: string): string {
  if (!/not a function|Unknown \w+ filter|Unknown statement type|not currently supported|Unknown operator/.test(message)) return message
  const used = ENGINE_GAPS.filter((g) => g.pattern.test(source)).map((g) => g.construct)
  return used.length === 0
    ? `${message} (a construct of Python's Jinja that @huggingface/jinja lacks)`
    : `${message} (the template uses ${used.join(', ')}, which Python's Jinja has and @huggingface/jinja lacks)`
}
