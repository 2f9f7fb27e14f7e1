// Judged metrics: prompts, robust reading of the judge's answer, and runs through a real provider (replay).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { parseToolCalls } from '../../../src/calls/index.js'
import type { ToolDefinition } from '../../../src/calls/types.js'
import type { ModelProvider } from '../../../src/models/types.js'
import { replay } from '../../../src/models/replay.js'
import {
  judgeMessages,
  judgeSample,
  judgeSampleId,
  parseJudgeAnswer,
  runJudge,
  type JudgeInput,
} from '../../../src/score/judge.js'
import { judgeScorer } from '../../../src/score/scorers/judge.js'

const tools: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
]

const input: JudgeInput = {
  sampleId: 'w1',
  messages: [{ role: 'user', content: 'Weather in Paris?' }],
  tools,
  calls: parseToolCalls('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'),
}

const dir = mkdtempSync(join(tmpdir(), 'judge-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A recording of judge answers, replayed by the project's replay provider. */
function judgeRecording(answers: Record<string, string>): ModelProvider {
  const file = join(dir, `judge-${Object.keys(answers).length}-${Math.random().toString(36).slice(2)}.jsonl`)
  writeFileSync(file, Object.entries(answers).map(([id, output]) => JSON.stringify({ id, output })).join('\n') + '\n')
  return replay(file)
}

describe('prompts', () => {
  test('the judge sees the conversation, the tools and the calls, and how to answer', () => {
    const [system, user] = judgeMessages('tool_selection', input)
    expect(system!.role).toBe('system')
    expect(system!.content).toContain('"label": "correct" | "incorrect"')
    expect(user!.content).toContain('[user] Weather in Paris?')
    expect(user!.content).toContain('- get_weather: Current weather in a city')
    expect(user!.content).toContain('1. get_weather({"city":"Paris"})')
    expect(judgeMessages('tool_invocation', { ...input, calls: [] })[1]!.content).toContain('(no tool call')
    expect(judgeMessages('tool_invocation', input)[0]!.content).not.toBe(system!.content)
  })
})

describe('reading the answer', () => {
  test.each([
    ['{"label": "correct", "explanation": "Right tool."}', 'correct', 'Right tool.'],
    ['Sure.\n```json\n{"label": "INCORRECT", "explanation": "No call was needed."}\n```', 'incorrect', 'No call was needed.'],
    ['<think>{"label": "correct"}</think>{"label": "incorrect", "explanation": "x"}', 'incorrect', 'x'],
    ['{"note": 1} then {"label": "correct"}', 'correct', ''],
    ['LABEL: incorrect\nEXPLANATION: made-up tool', 'incorrect', 'made-up tool'],
    ['**Label:** Correct\n**Explanation:** fine', 'correct', 'fine'],
    ['correct', 'correct', ''],
  ])('%j', (text, label, explanation) => {
    expect(parseJudgeAnswer(text)).toEqual({ label, explanation })
  })

  test('"incorrect" is never read as "correct", and unreadable answers are errors', () => {
    expect(parseJudgeAnswer('The calls are not correct.')).toHaveProperty('error')
    expect(parseJudgeAnswer('{"label": "maybe"}')).toHaveProperty('error')
    expect(parseJudgeAnswer('{"label": ')).toHaveProperty('error')
    expect(parseJudgeAnswer('{'.repeat(100_000))).toHaveProperty('error')
  })
})

describe('running judges through a provider', () => {
  test('labels, scores and explanations, per kind', async () => {
    const judge = judgeRecording({
      [judgeSampleId('tool_selection', 'w1')]: '{"label": "correct", "explanation": "get_weather fits."}',
      [judgeSampleId('tool_invocation', 'w1')]: 'LABEL: incorrect\nEXPLANATION: city should be Paris, France',
    })
    const results = await judgeSample(judge, input)
    expect(results).toEqual([
      { kind: 'tool_selection', label: 'correct', score: 1, explanation: 'get_weather fits.', raw: '{"label": "correct", "explanation": "get_weather fits."}' },
      {
        kind: 'tool_invocation',
        label: 'incorrect',
        score: 0,
        explanation: 'city should be Paris, France',
        raw: 'LABEL: incorrect\nEXPLANATION: city should be Paris, France',
      },
    ])
  })

  test('a judge that fails or rambles gives an error result, not an exception', async () => {
    const judge = judgeRecording({ [judgeSampleId('tool_selection', 'w1')]: 'I think it is probably fine?' })
    const unreadable = await runJudge(judge, 'tool_selection', input)
    expect(unreadable).toMatchObject({ kind: 'tool_selection', explanation: '', raw: 'I think it is probably fine?' })
    expect(unreadable.label).toBeUndefined()
    expect(unreadable.error).toContain('no readable label')
    const missing = await runJudge(judge, 'tool_invocation', input) // nothing recorded for this id
    expect(missing.error).toMatch(/^judge failed: no recorded output/)
  })

  test('counts add up; errors are left out of the rates', async () => {
    const { accumulator } = judgeScorer
    const acc = accumulator.create()
    accumulator.add(acc, { tool_selection: { label: 'correct', score: 1 } }, false)
    accumulator.add(acc, { tool_selection: { label: 'incorrect', score: 0 } }, false)
    accumulator.add(acc, { tool_selection: { error: 'x' } }, false)
    const summary = accumulator.finish(acc)
    expect(summary.details?.tool_selection).toEqual({ judged: 3, correct: 1, errors: 1 })
    expect(summary.metrics).toEqual({ judge_tool_selection: 0.5 })
  })
})
