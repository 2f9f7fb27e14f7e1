// Calendar requests, answered with OpenAI-style `tool_calls` (as an OpenAI-compatible endpoint returns them),
// replayed from a recording. Two lines are dialogues: each tool-calling assistant turn is its own sample
// (`d1#1`, `d1#2`, ...), its prompt being the conversation up to that turn.
import { describeEval, replay } from 'vitest-tool-evals'

describeEval('calendar', {
  data: 'fixtures/calendar.jsonl',
  model: replay('fixtures/calendar.outputs.jsonl'),
  // A parallel turn may list its calls in any order.
  match: 'unordered',
})
