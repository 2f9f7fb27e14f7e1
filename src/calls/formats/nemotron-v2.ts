/**
 * NVIDIA Nemotron Nano v2: `<TOOLCALL>[{"name": ..., "arguments": {...}}]</TOOLCALL>`. Content may follow the block,
 * and a trailing end-of-turn token (`<SPECIAL_12>`) may remain; neither is part of a call.
 */
import type { FormatParser } from '../types.js'
import { callsInBlocks, renderJsonList, standardCall } from '../json-blocks.js'
import { markedBy } from '../marker-scan.js'

const OPEN = '<TOOLCALL>'
const CLOSE = '</TOOLCALL>'

export const nemotronV2: FormatParser = {
  name: 'nemotron_v2',
  ...markedBy(OPEN),
  parse: (text) => callsInBlocks(text, OPEN, CLOSE, 'nemotron_v2', standardCall('nemotron_v2')),
  render: (calls) => `${OPEN}${renderJsonList(calls)}${CLOSE}`,
}
