/**
 * BFCL v4's format-sensitivity configurations (gorilla 8db0b7ca, `utils.get_all_format_sensitivity_configs`,
 * `model_handler/utils.parse_prompt_variation_params`): 26 prompt formats, each a return format, a `<TOOLCALL>` tag
 * or none, a function-doc format, plain text or markdown, and a wording style. The prompts themselves are built in
 * `bfcl/data/prompt-formats.ts`.
 */
import type { ReturnFormat } from './format-decode.js'

export interface PromptFormat {
  returnFormat: ReturnFormat
  toolCallTag: boolean
  docFormat: 'python' | 'xml' | 'json'
  promptFormat: 'plaintext' | 'markdown'
  style: 'classic' | 'experimental'
}

export const DEFAULT_PROMPT_FORMAT = 'ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic'

/** The 26 configurations, in BFCL's order (the leaderboard's CSV columns use the same list). */
export { FORMAT_SENSITIVITY_CONFIGS } from './leaderboard.js'

const CONFIG = /^ret_fmt=(python|json|verbose_xml|concise_xml)&tool_call_tag=(True|False)&func_doc_fmt=(python|xml|json)&prompt_fmt=(plaintext|markdown)&style=(classic|experimental)$/

/** `parse_prompt_variation_params`; undefined where BFCL raises. */
export function parsePromptFormat(config: string): PromptFormat | undefined {
  const m = CONFIG.exec(config)
  if (m === null) return undefined
  return { returnFormat: m[1] as ReturnFormat, toolCallTag: m[2] === 'True', docFormat: m[3] as PromptFormat['docFormat'], promptFormat: m[4] as PromptFormat['promptFormat'], style: m[5] as PromptFormat['style'] }
}
