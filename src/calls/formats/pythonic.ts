/**
 * Pythonic call lists: `[get_weather(city='Paris'), search(query="x")]` (Llama 3.2 pythonic template, Llama 4 without
 * its markers, LFM2.5, ToolACE-style models, BFCL prompting). Read with our own Python-literal parser
 * (`../python/`); nothing is evaluated.
 *
 * Rules: every `[` followed by a dotted name and `(` starts a candidate list; a candidate that parses completely as a
 * list of calls gives its calls, anything else is prose (so `[1, 2]`, `[see above]`, a JSON array, and text with a
 * broken list such as `[A(A=\t)` give nothing). Several lists in one output all count (sglang). The JSON literals
 * `true`, `false`, `null` are read as constants (vLLM and OLMo accept them); another bare name becomes its string and
 * a nested call its source text (BFCL's decoder rules); positional arguments are dropped (vLLM and BFCL drop them).
 * A failed candidate is skipped up to where its parse stopped, so scanning stays linear.
 *
 * Contested cases: `sglang-pythonic-4` and `-12` (streamed, whole text here) give their calls; `sglang-pythonic-8`
 * (`Let's try this: [`) gives none.
 */
import type { FormatParser } from '../types.js'
import { pythonicListsIn, renderPythonicList } from '../pythonic-calls.js'
import { callLimit } from '../call-limit.js'

const FORMAT = 'pythonic'

export const pythonic: FormatParser = {
  name: FORMAT,
  aliases: ['python', 'llama3_2_pythonic', 'bfcl_prompting'],
  detect: (text) => text.includes('[') && text.includes('('),
  parse: (text, options) => pythonicListsIn(text, FORMAT, 0, text.length, undefined, callLimit(options)),
  render: renderPythonicList,
}
