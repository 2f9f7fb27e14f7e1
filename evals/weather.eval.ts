// Weather questions answered by a Qwen-style model: raw outputs with Hermes `<tool_call>` blocks (some with
// reasoning), replayed from a recording. Single calls, parallel calls, and questions that need no tool.
import { describeEval, replay } from 'vitest-tool-evals'

describeEval('weather', {
  data: 'fixtures/weather.jsonl',
  model: replay('fixtures/weather.outputs.jsonl'),
})
