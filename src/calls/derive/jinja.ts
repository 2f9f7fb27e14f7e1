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
    return new Error(`the chat template does not compile: ${err instanceof Error ? err.message : String(err)}`)
  }
}
