/**
 * `tool-evals bfcl run` for `format_sensitivity`, as BFCL's generation runs it (gorilla 8db0b7ca,
 * `utils.load_format_sensitivity_test_cases`, `system_prompt_pre_processing_chat_model`): the entries named in
 * `BFCL_v4_format_sensitivity.json` (by category, in each category's data order, with the data loader's language
 * hint, twice as BFCL's loader adds it), each asked once under each of the 26 prompt formats (`bfcl/data/prompt-formats.ts`), as one prompting
 * request. Ids are BFCL's: `format_sensitivity_<n>:<config>:<original id>`, n counting entry by entry, format by
 * format. BFCL runs it for prompting models only.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ChatMessage } from '../../calls/types.js'
import { hintedFunctions } from '../data/request.js'
import { FORMAT_SENSITIVITY_CONFIGS, formulateSystemPrompt } from '../data/prompt-formats.js'
import type { Sample } from '../../data/types.js'
import { dataFileName } from '../checker/categories.js'
import { parseJsonLines } from '../checker/files.js'
import { isPyDict, type PyValue } from '../../python/operations.js'
import { generateEntries, recording, type GenerateSettings, type GeneratedCategory } from './generate.js'

export interface FormatSensitivityEntry {
  id: string
  category: string
  config: string
  messages: ChatMessage[]
}

/** The ids file: `<data>/agentic/BFCL_v4_format_sensitivity.json` or `<data>/BFCL_v4_format_sensitivity.json`. */
export function formatSensitivityIdsFile(dataDir: string): string {
  const file = [join(dataDir, 'agentic', 'BFCL_v4_format_sensitivity.json'), join(dataDir, 'BFCL_v4_format_sensitivity.json')].find((f) => existsSync(f))
  if (file === undefined) throw new Error(`${dataDir}: no BFCL_v4_format_sensitivity.json (in agentic/ or the folder itself)`)
  return file
}

/** The original entries, in BFCL's order: by category as the ids file lists them, each in its data order. */
export function formatSensitivityOriginals(dataDir: string): { category: string; json: Record<string, unknown>; py: PyValue }[] {
  const ids = JSON.parse(readFileSync(formatSensitivityIdsFile(dataDir), 'utf8')) as Record<string, string[]>
  const out: { category: string; json: Record<string, unknown>; py: PyValue }[] = []
  for (const [category, wanted] of Object.entries(ids)) {
    if (wanted.length === 0) continue
    const file = join(dataDir, dataFileName(category))
    const parsed = parseJsonLines(readFileSync(file, 'utf8'), file)
    if (parsed.errors.length > 0) throw new Error(parsed.errors.map((e) => e.message).join('\n'))
    const set = new Set(wanted)
    for (const l of parsed.lines) {
      const json = l.json as Record<string, unknown>
      if (set.has(String(json['id']))) out.push({ category, json, py: l.py })
    }
  }
  return out
}

/** Every request of the category (the first `limit` original entries, each under every format). */
export function formatSensitivityEntries(dataDir: string, limit?: number): FormatSensitivityEntry[] {
  let originals = formatSensitivityOriginals(dataDir)
  if (limit !== undefined) originals = originals.slice(0, limit)
  let n = 0
  return originals.flatMap(({ category, json, py }) => {
    // BFCL's loader hints the functions twice: once loading the original category, once loading format_sensitivity.
    const functions = hintedFunctions(hintedFunctions(isPyDict(py) && Array.isArray(py.get('function')) ? (py.get('function') as PyValue[]) : [], category), 'format_sensitivity')
    const question = (json['question'] as ChatMessage[][])[0] ?? []
    const rendered = new Map<string, string>()
    return FORMAT_SENSITIVITY_CONFIGS.map((config) => {
      const prompt = formulateSystemPrompt(config, functions, rendered)
      const [first, ...rest] = question
      const messages: ChatMessage[] = first !== undefined && first.role === 'system' ? [{ ...first, content: `${prompt}\n\n${String(first.content)}` }, ...rest] : [{ role: 'system', content: prompt }, ...question]
      return { id: `format_sensitivity_${n++}:${config}:${String(json['id'])}`, category, config, messages }
    })
  })
}

export async function generateFormatSensitivity(dataDir: string, settings: GenerateSettings): Promise<GeneratedCategory> {
  const entries = formatSensitivityEntries(dataDir, settings.limit)
  const samples: Sample[] = entries.map((entry) => ({ id: entry.id, messages: entry.messages, expected: [] }))
  return generateEntries(samples, settings, async (sample) => {
    const { provider, steps } = recording(settings.provider, 'prompting')
    await provider.generate(sample)
    const s = steps[0]!
    return { record: { id: sample.id, result: s.response, input_token_count: s.input, output_token_count: s.output, latency: s.latencyS }, requests: 1 }
  })
}
