// The embedded default: a model run in this process with transformers.js on onnxruntime-node, no server. Here it is
// the project's scripted fixture model (`npm run fixtures` builds it: a tiny ONNX decoder with Qwen3's real tokenizer
// and chat template, whose replies are scripted by the city in the question), so the real template, tokenizer,
// generate loop and parser all run offline. Point `local(...)` at a real model id or folder to evaluate a real model.
import { describeEval, local } from 'vitest-tool-evals'

describeEval('travel', {
  data: 'fixtures/travel.jsonl',
  model: local('./fixtures/models/scripted'),
  // Schema metrics with our corrections: a right abstention (t09, t10) scores 1. `schema: true` gives DeepFabric's
  // own numbers, which score every sample that expects no call 0.
  schema: { semantics: 'jsonschema' },
  // The first sample waits for the model to load (onnxruntime session, tokenizer): on a busy 2-core CI machine that
  // can pass Vitest's 5 s default, and a timed-out sample counts as errored.
  timeout: 60_000,
})
