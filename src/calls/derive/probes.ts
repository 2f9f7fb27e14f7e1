/**
 * The probe conversations rendered through a template: known calls whose renderings show where the names and
 * arguments go and which text around them is constant. Names are distinctive (no template or tool list writes
 * them), and no name is part of another, so each one's position in a rendering is unambiguous.
 */
import type { ToolDefinition } from '../types.js'

export interface ProbeCall {
  name: string
  arguments: Record<string, unknown>
}

export interface Probe {
  id: string
  /** Text the assistant writes before its calls ('' for none). */
  content: string
  calls: ProbeCall[]
}

export const USER_TEXT = 'Probe question 7f3a?'
export const PLAIN_ANSWER = 'Plain answer 9c1e.'

/** Two string arguments: the XML shapes are read off these (a string is written as it is). */
const LOOKUP: ProbeCall = { name: 'probe_lookup', arguments: { city: 'Paris', unit: 'celsius' } }
/** Every JSON type, and strings with quotes, a newline, `<` and non-ASCII text. */
const UPDATE: ProbeCall = {
  name: 'probe_update_2',
  arguments: {
    note: 'He said "hi" <b>\nnaïve ☃ 東京',
    count: 42,
    ratio: 2.5,
    flag: true,
    empty: null,
    tags: ['a', 1],
    options: { k: 'v', n: [false] },
  },
}

export const PROBES: Probe[] = [
  { id: 'one call', content: '', calls: [LOOKUP] },
  { id: 'two calls', content: '', calls: [LOOKUP, UPDATE] },
  { id: 'every value type', content: '', calls: [UPDATE] },
  { id: 'text before the call', content: 'Let me check.', calls: [LOOKUP] },
]

/** The probes' tools, offered to the template (some render calls only for known tools) and typing XML values. */
export const PROBE_TOOLS: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: LOOKUP.name,
      description: 'Probe tool.',
      parameters: {
        type: 'object',
        // Each parameter described: templates write `param.description` (Command R+), and raise where it is missing.
        properties: { city: { type: 'string', description: 'A city.' }, unit: { type: 'string', description: 'A unit.' } },
        required: ['city', 'unit'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: UPDATE.name,
      description: 'Probe tool.',
      parameters: {
        type: 'object',
        properties: {
          note: { type: 'string', description: 'A note.' },
          count: { type: 'integer', description: 'A count.' },
          ratio: { type: 'number', description: 'A ratio.' },
          flag: { type: 'boolean', description: 'A flag.' },
          // Not `type: ['string', 'null']`: templates that turn a type list into Python types loop on it (Hermes 2 Pro, 3).
          empty: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Nothing.' },
          tags: { type: 'array', description: 'Tags.' },
          options: { type: 'object', description: 'Options.' },
        },
        required: ['note'],
      },
    },
  },
]

/** Structural equality of plain JSON values (key order ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const bb = b as unknown[]
    return a.length === bb.length && a.every((v, i) => sameValue(v, bb[i]))
  }
  const ka = Object.keys(a)
  const ob = b as Record<string, unknown>
  return ka.length === Object.keys(ob).length && ka.every((k) => Object.hasOwn(ob, k) && sameValue((a as Record<string, unknown>)[k], ob[k]))
}

/** Whether parsed calls are exactly a probe's calls. */
export function sameCalls(got: readonly { name: string; arguments: unknown; argumentsValid: boolean }[], want: readonly ProbeCall[]): boolean {
  return got.length === want.length && got.every((c, i) => c.argumentsValid && c.name === want[i]!.name && sameValue(c.arguments, want[i]!.arguments))
}
