/**
 * The dispatcher's pre-scan. Most formats' markers are tags (`<tool_call>`, `<|python_tag|>`, `<｜tool▁sep｜>`), and
 * calling ~30 `detect` functions, each a search of the whole text, costs more than parsing a typical output. One
 * walk over the text's `<` characters instead records which tag openings occur (the two characters after each `<`),
 * and a format whose every marker starts with a tag opening that does not occur is skipped without its `detect`.
 * The same walk tells whether the text may hold reasoning tags, so most outputs skip `stripReasoning`'s searches.
 *
 * This is only a filter: a format that passes it still runs its own `detect`, so detection decides exactly as
 * before. The one rule to keep when a format's `detect` changes: every marker it looks for must start with one of
 * the format's probes below (a format with no entry is never filtered). The corpus and render tests detect every
 * format, so a probe missing here shows up there as a format never found.
 */

/**
 * Tag openings by format name: `detect(text)` implies that the text holds at least one of these. Formats whose
 * markers are not tags (Harmony's `to=functions.`, `[TOOL_CALLS]`, bare JSON, ...) are absent: always detected.
 */
const PROBES: Record<string, readonly string[]> = {
  kimi_k2: ['<|t'], // <|tool_call_begin|>
  deepseek_v3: ['<｜t'], // <｜tool
  deepseek_v31: ['<｜t'],
  step3: ['<st'], // <steptml:invoke
  minimax_m2: ['<mi'], // <minimax:tool_call>
  seed_oss: ['<se'], // <seed:tool_call>
  qwen3_coder: ['<fu'], // <function=
  glm45: ['<to'], // <tool_call>
  longcat: ['<lo'], // <longcat_tool_call>
  gemma4: ['<|t'], // <|tool_call>
  functiongemma: ['<st'], // <start_function_call>
  lfm2: ['<|t'], // <|tool_call_start|>
  llama4_pythonic: ['<|p'], // <|python_start|>
  olmo3: ['<fu'], // <function_calls>
  command_r7b: ['<|S'], // <|START_ACTION|>
  internlm2: ['<|a'], // <|action_start|>
  apertus: ['<|t'], // <|tools_prefix|>
  gigachat3: ['<|r'], // function call<|role_sep|>
  gigachat31: ['<|f'], // <|function_call|>
  nemotron_v2: ['<TO'], // <TOOLCALL>
  tool_calls_tag: ['<to'], // <tool_calls>
  granite: ['<|t'], // <|tool_call|>
  granite_20b_fc: ['<fu'], // <function_call>
  functionary_v3_1: ['<fu'], // <function=
  hermes: ['<to', '<fu', '<re', '<js', '<xm', '<JS'], // <tool_call>, <function, <tool>, <tools>, <response>, <json>, <xml>, <JSON>
  llama3_builtin: ['<|p'], // <|python_tag|>
  llama3_json: ['<|p'],
}

/** Bits for reasoning markers, which `stripReasoning` removes: `<think>` / `</think>`, and Harmony's `<|channel|>`. */
const THINK = 1 << 29
const CHANNEL = 1 << 30

/** Probe bits by the two characters after `<`, for ASCII characters (index c1 * 128 + c2). */
const ASCII_PROBES = new Int32Array(128 * 128)
/** Probe bits of probes with other characters, by c1 * 65536 + c2. */
const WIDE_PROBES = new Map<number, number>()
/** Bit of each distinct probe, by its text. */
const probeBits = new Map<string, number>()

function addProbe(c1: number, c2: number, bit: number): void {
  if (c1 < 128 && c2 < 128) ASCII_PROBES[c1 * 128 + c2]! |= bit
  else WIDE_PROBES.set(c1 * 65536 + c2, (WIDE_PROBES.get(c1 * 65536 + c2) ?? 0) | bit)
}

for (const list of Object.values(PROBES)) {
  for (const p of list) {
    if (p.length !== 3 || p[0] !== '<' || p[1] === '/') throw new Error(`markers.ts: bad probe ${p}`)
    if (probeBits.has(p)) continue
    if (probeBits.size === 29) throw new Error('markers.ts: too many distinct probes for one bit mask')
    probeBits.set(p, 1 << probeBits.size)
    addProbe(p.charCodeAt(1), p.charCodeAt(2), probeBits.get(p)!)
  }
}
addProbe(116, 104, THINK) // <th
addProbe(124, 99, CHANNEL) // <|c

/** The probe bits a format needs (any one of them), or 0 when the format is never filtered. */
export function probeMask(formatName: string): number {
  let mask = 0
  for (const p of PROBES[formatName] ?? []) mask |= probeBits.get(p)!
  return mask
}

/** Whether text with these probe bits may hold reasoning that `stripReasoning` would remove. */
export function mayHoldReasoning(probes: number): boolean {
  return (probes & (THINK | CHANNEL)) !== 0
}

/** The probe bits whose tag openings occur in `text`: one pass of `indexOf('<')`. */
export function probesIn(text: string): number {
  let mask = 0
  const last = text.length - 2 // a probe needs two characters after its `<`
  let i = text.indexOf('<')
  while (i >= 0 && i < last) {
    const c1 = text.charCodeAt(i + 1)
    const c2 = text.charCodeAt(i + 2)
    if (c1 === 47 /* / */) {
      if (c2 === 116 && text.charCodeAt(i + 3) === 104) mask |= THINK // </th
    } else if (c1 < 128 && c2 < 128) mask |= ASCII_PROBES[c1 * 128 + c2]!
    else mask |= WIDE_PROBES.get(c1 * 65536 + c2) ?? 0
    i = text.indexOf('<', i + 1)
  }
  return mask
}
