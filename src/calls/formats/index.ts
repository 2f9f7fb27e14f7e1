/**
 * The wire formats, in the order detection tries them. The rule: every format whose `detect` sees its marker is
 * tried in this order, and the first that yields at least one call wins; calls from different formats are never
 * mixed. Formats with distinctive special tokens come first, formats that share a marker are ordered from the most
 * specific shape to the least (Qwen3-Coder and GLM before Hermes, all three use `<tool_call>`), and the bare shapes
 * (pythonic lists, then any JSON call object, then a Python-literal list of call dicts) come last. NeMo's own order (Harmony, Hermes, Llama, Mistral, JSON
 * fallback) is preserved as a subsequence.
 */
import type { FormatParser } from '../types.js'
import { harmony } from './harmony.js'
import { kimiK2 } from './kimi-k2.js'
import { kimiK3 } from './kimi-k3.js'
import { atem } from './atem.js'
import { gigachat35 } from './gigachat35.js'
import { hunyuan4 } from './hunyuan4.js'
import { inkling } from './inkling.js'
import { k2Horizon } from './k2-horizon.js'
import { plamo3 } from './plamo3.js'
import { solarOpen2 } from './solar-open2.js'
import { minimaxM3 } from './minimax-m3.js'
import { minicpm5 } from './minicpm5.js'
import { hunyuan3 } from './hunyuan3.js'
import { longcatXml } from './longcat-xml.js'
import { deepseekV32 } from './deepseek-v32.js'
import { deepseekV3 } from './deepseek-v3.js'
import { deepseekV31 } from './deepseek-v31.js'
import { step3 } from './step3.js'
import { minimaxM2 } from './minimax-m2.js'
import { seedOss } from './seed-oss.js'
import { qwen3Coder } from './qwen3-coder.js'
import { glm } from './glm.js'
import { longcat } from './longcat.js'
import { gemma4 } from './gemma4.js'
import { functiongemma } from './functiongemma.js'
import { lfm2 } from './lfm2.js'
import { llama4Pythonic } from './llama4-pythonic.js'
import { olmo3 } from './olmo3.js'
import { commandR7b } from './command-r7b.js'
import { commandRPlus } from './command-r-plus.js'
import { internlm2 } from './internlm2.js'
import { apertus } from './apertus.js'
import { gigachat3 } from './gigachat3.js'
import { gigachat31 } from './gigachat31.js'
import { nemotronV2 } from './nemotron-v2.js'
import { toolCallsTag } from './tool-calls-tag.js'
import { granite } from './granite.js'
import { granite20bFc } from './granite-20b-fc.js'
import { functionaryV31 } from './functionary-v3-1.js'
import { functionaryV2 } from './functionary-v2.js'
import { hermes } from './hermes.js'
import { llama3Builtin } from './llama3-builtin.js'
import { llama3Json } from './llama3-json.js'
import { mistral } from './mistral.js'
import { functools } from './functools.js'
import { functionaryV32 } from './functionary-v3-2.js'
import { pythonic } from './pythonic.js'
import { genericJson } from './generic-json.js'
import { sarashina } from './sarashina.js'

export const FORMATS: readonly FormatParser[] = [
  harmony,
  kimiK2,
  kimiK3,
  atem,
  plamo3,
  inkling,
  solarOpen2,
  k2Horizon,
  deepseekV32,
  gigachat35,
  deepseekV3,
  deepseekV31,
  step3,
  minimaxM3,
  minimaxM2,
  seedOss,
  hunyuan4,
  hunyuan3,
  minicpm5,
  qwen3Coder,
  glm,
  longcatXml,
  longcat,
  gemma4,
  functiongemma,
  lfm2,
  llama4Pythonic,
  olmo3,
  commandR7b,
  commandRPlus,
  internlm2,
  apertus,
  gigachat3,
  gigachat31,
  nemotronV2,
  toolCallsTag,
  granite,
  granite20bFc,
  functionaryV31,
  functionaryV2,
  hermes,
  llama3Builtin,
  llama3Json,
  mistral,
  functools,
  functionaryV32,
  pythonic,
  genericJson,
  sarashina,
]
