/**
 * Judged metrics in the spirit of Phoenix's tool evaluators: a model reads the
 * conversation, the tools on offer and the calls made, and labels them `correct` or `incorrect` with an explanation.
 *
 * - tool selection: was the right tool chosen (or, rightly, none), does it exist, is the number of calls right;
 * - tool invocation: are the calls themselves right: well-formed arguments, required fields present, nothing outside
 *   the schema, values that match the user's intent and the types, nothing unsafe.
 *
 * The judge is any ModelProvider (a local model, an endpoint, a replay), so judging costs nothing in CI when replayed.
 * Judging is opt-in: nothing here runs unless an eval asks for it. A judge that fails, or answers something we cannot
 * read, gives an error result (no label, no score), never an exception.
 */
import { parseJsonAt, scanBracketEnd } from '../calls/json.js'
import { stripReasoning } from '../calls/reasoning.js'
import type { ChatMessage, ToolCall, ToolDefinition } from '../calls/types.js'
import type { ScorerModel } from './scorer.js'
import type { Sample } from './types.js'
import { usageRecord, type UsageRecord } from './usage.js'

export const JUDGE_KINDS = ['tool_selection', 'tool_invocation'] as const
export type JudgeKind = (typeof JUDGE_KINDS)[number]
export type JudgeLabel = 'correct' | 'incorrect'

/** What the judge sees. */
export interface JudgeInput {
  /** The conversation up to the model's answer. */
  messages: readonly ChatMessage[]
  /** The tools on offer. */
  tools?: readonly ToolDefinition[]
  /** The calls the model made (empty: it answered without a call). */
  calls: readonly ToolCall[]
  /** Used in the judge sample's id, so replayed judgements can be looked up. */
  sampleId?: string
}

export interface JudgeResult {
  kind: JudgeKind
  /** Absent when the judge failed or its answer could not be read (see `error`). */
  label?: JudgeLabel
  /** 1 for correct, 0 for incorrect; absent with `label`. */
  score?: 1 | 0
  explanation: string
  /** Why there is no label: the provider failed, or the answer was not a label. */
  error?: string
  /** The judge's raw answer, when there was one. */
  raw?: string
  /** What asking the judge used (tokens, latency, cache hit), when its provider reported it. */
  usage?: UsageRecord
}

// ---------------------------------------------------------------------------------------------------------------
// Prompts

const ANSWER_FORMAT = [
  'Answer with one JSON object and nothing else:',
  '{"label": "correct" | "incorrect", "explanation": "<one or two sentences saying why>"}',
].join('\n')

const CRITERIA: Record<JudgeKind, string> = {
  tool_selection: [
    'You review which tools an AI assistant decided to call. Judge only the choice of tools, not the argument values.',
    '',
    'The choice is correct when all of these hold:',
    '- the assistant called the tool (or tools) best suited to the last user request, or rightly called none because',
    '  no tool on offer fits it or the request needs no tool;',
    '- every tool it called is one of the tools on offer (a made-up tool is incorrect);',
    '- it made as many calls as the request needs: not one where several independent calls are needed, not extra ones.',
    '',
    'The choice is incorrect when the assistant called a tool that does not exist, called a tool where none was',
    'needed, made no call where a tool on offer clearly fits, picked a worse tool than another on offer, or made the',
    'wrong number of calls.',
  ].join('\n'),
  tool_invocation: [
    'You review how an AI assistant called its tools. Assume the choice of tools is given; judge only the calls.',
    '',
    'The calls are correct when every one of them:',
    '- has well-formed arguments (a proper object, no truncated or garbled values);',
    '- gives every parameter the tool marks as required;',
    '- uses no parameter the tool does not define;',
    '- gives values of the declared types that say what the user asked for (right place, date, amount, units...),',
    '  without invented details the user did not give unless the tool needs a sensible default;',
    '- contains nothing unsafe or beyond what the user asked (no injected commands, no unrelated side effects).',
    '',
    'If any call fails one of these, the answer is incorrect. If no call was made, the answer is incorrect.',
  ].join('\n'),
}

function contentOf(m: ChatMessage): string {
  if (typeof m.content === 'string') return m.content
  if (m.content == null) return ''
  return JSON.stringify(m.content)
}

function transcript(messages: readonly ChatMessage[]): string {
  const lines: string[] = []
  for (const m of messages) {
    let line = `[${m.role}${m.name ? ` ${m.name}` : ''}] ${contentOf(m)}`
    if (m.tool_calls && m.tool_calls.length > 0) {
      line += ` (calls: ${m.tool_calls.map((c) => `${c.function.name}(${typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments)})`).join(', ')})`
    }
    lines.push(line)
  }
  return lines.join('\n')
}

function toolList(tools: readonly ToolDefinition[] | undefined): string {
  if (!tools || tools.length === 0) return '(no tools on offer)'
  return tools
    .map((t) => {
      const f = t.function
      return `- ${f.name}: ${f.description ?? ''}\n  parameters: ${JSON.stringify(f.parameters ?? {})}`
    })
    .join('\n')
}

function callList(calls: readonly ToolCall[]): string {
  if (calls.length === 0) return '(no tool call: the assistant answered in text)'
  return calls
    .map((c, i) => `${i + 1}. ${c.name || '<no name>'}(${c.argumentsValid ? JSON.stringify(c.arguments) : `<malformed arguments${c.raw ? `: ${c.raw}` : ''}>`})`)
    .join('\n')
}

/** The judge's prompt: our own instructions, then the three inputs. */
export function judgeMessages(kind: JudgeKind, input: JudgeInput): ChatMessage[] {
  const user = [
    '## Conversation',
    transcript(input.messages),
    '',
    '## Tools on offer',
    toolList(input.tools),
    '',
    '## Tool calls the assistant made',
    callList(input.calls),
    '',
    ANSWER_FORMAT,
  ].join('\n')
  return [
    { role: 'system', content: `${CRITERIA[kind]}\n\n${ANSWER_FORMAT}` },
    { role: 'user', content: user },
  ]
}

/** The id of the judge's own sample: `judge:<kind>:<sample id>` (what a replayed judgement is recorded under). */
export function judgeSampleId(kind: JudgeKind, sampleId = 'sample'): string {
  return `judge:${kind}:${sampleId}`
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the answer

/** `s` without the given characters at either end (an index scan: no regex backtracking on long runs). */
function trimChars(s: string, chars: string): string {
  let start = 0
  let end = s.length
  while (start < end && chars.includes(s[start]!)) start++
  while (end > start && chars.includes(s[end - 1]!)) end--
  return s.slice(start, end)
}

const DECORATION = ' \t\r\n"\'`*_.!'

function asLabel(v: unknown): JudgeLabel | undefined {
  if (typeof v !== 'string') return undefined
  const s = trimChars(v, DECORATION).toLowerCase()
  return s === 'correct' || s === 'incorrect' ? s : undefined
}

/**
 * The first top-level JSON object in `text` with a readable `label`. Each balanced `{...}` region is read once, so
 * the scan stays linear.
 */
function labelFromJson(text: string): { label: JudgeLabel; explanation: string } | undefined {
  let i = text.indexOf('{')
  while (i >= 0) {
    const end = scanBracketEnd(text, i)
    if (end < 0) return undefined // nothing after an unclosed object can close either
    const r = parseJsonAt(text, i, end)
    if (r.ok && r.value !== null && typeof r.value === 'object' && !Array.isArray(r.value)) {
      const o = r.value as Record<string, unknown>
      const label = asLabel(o['label'])
      if (label) return { label, explanation: typeof o['explanation'] === 'string' ? o['explanation'] : '' }
    }
    // Continue after this object either way: looking inside it again would make the scan quadratic.
    i = text.indexOf('{', end)
  }
  return undefined
}

/** `LABEL: correct` (any case, optional markdown) and an optional `EXPLANATION: ...` line. */
function labelFromLines(text: string): { label: JudgeLabel; explanation: string } | undefined {
  let label: JudgeLabel | undefined
  let explanation = ''
  for (const raw of text.split('\n')) {
    const line = trimChars(raw, ' \t\r*#->')
    const colon = line.indexOf(':')
    if (colon < 0) continue
    const key = trimChars(line.slice(0, colon), DECORATION).toLowerCase()
    const value = trimChars(line.slice(colon + 1), ' \t\r*_')
    if (key === 'label' && label === undefined) label = asLabel(value)
    else if (key === 'explanation' && explanation === '') explanation = value
  }
  return label === undefined ? undefined : { label, explanation }
}

/**
 * The label and explanation in a judge's answer: a JSON object with `label`, or a `LABEL:` line, or an answer that is
 * just the label. Reasoning (`<think>...</think>`) is ignored. An error when none of these is there.
 */
export function parseJudgeAnswer(text: string): { label: JudgeLabel; explanation: string } | { error: string } {
  const visible = stripReasoning(text)
  const found = labelFromJson(visible) ?? labelFromLines(visible)
  if (found) return found
  const bare = asLabel(visible)
  if (bare) return { label: bare, explanation: '' }
  return { error: 'the judge gave no readable label (expected {"label": "correct" | "incorrect", ...} or a LABEL: line)' }
}

// ---------------------------------------------------------------------------------------------------------------
// Running a judge

/** Ask `judge` about one sample's calls. Never throws: a failed or unreadable judgement is an error result. */
export async function runJudge(
  judge: ScorerModel,
  kind: JudgeKind,
  input: JudgeInput,
  options: { signal?: AbortSignal } = {},
): Promise<JudgeResult> {
  const sample: Sample = { id: judgeSampleId(kind, input.sampleId), messages: judgeMessages(kind, input), expected: [] }
  let text: string | undefined
  let usage: UsageRecord | undefined
  try {
    const out = await judge.generate(sample, options.signal ? { signal: options.signal } : {})
    usage = usageRecord(judge.id, out)
    if (out.skipped !== undefined) return { kind, explanation: '', error: `judge skipped the sample: ${out.skipped}` }
    text = out.text
    if (text === undefined) {
      const error = out.calls?.length ? 'the judge answered with a tool call' : 'the judge gave no text'
      return withUsage({ kind, explanation: '', error }, usage)
    }
  } catch (e) {
    return { kind, explanation: '', error: `judge failed: ${e instanceof Error ? e.message : String(e)}` }
  }
  const parsed = parseJudgeAnswer(text)
  if ('error' in parsed) return withUsage({ kind, explanation: '', error: parsed.error, raw: text }, usage)
  return withUsage({ kind, label: parsed.label, score: parsed.label === 'correct' ? 1 : 0, explanation: parsed.explanation, raw: text }, usage)
}

function withUsage(result: JudgeResult, usage: UsageRecord | undefined): JudgeResult {
  if (usage !== undefined) result.usage = usage
  return result
}

/** Run the requested judges (both by default) on one sample, one after the other. */
export async function judgeSample(
  judge: ScorerModel,
  input: JudgeInput,
  kinds: readonly JudgeKind[] = JUDGE_KINDS,
  options: { signal?: AbortSignal } = {},
): Promise<JudgeResult[]> {
  const out: JudgeResult[] = []
  for (const kind of kinds) out.push(await runJudge(judge, kind, input, options))
  return out
}
