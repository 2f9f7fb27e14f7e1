/**
 * Parity cases for the schema metrics against DeepFabric's own evaluator (always-further/deepfabric, single-turn
 * `Evaluator.evaluate_sample` / `evaluate` with its `tool_calling` evaluator and Qwen tool-call parser), one or more
 * per class of difference. Each `deepfabric` value was written from DeepFabric's source as the specification, by
 * following the path named in `why`; then checked by running that evaluator unchanged (Debian python3 +
 * python3-pydantic, I/O modules stubbed, in a scratch folder outside the repository) on these exact cases: it
 * printed the same values for every case (and crashed, stopping evaluate(), on those marked 'crashed').
 *
 * Outputs use the `<tool_call>{...}</tool_call>` format, which our parser and DeepFabric's Qwen parser both read.
 */
import type { ExpectedCall } from '../../src/score/types.js'

/** tool_selection, parameter_accuracy, execution_success: 1 or 0. */
export type Triple = readonly [0 | 1, 0 | 1, 0 | 1]

export interface ParityCase {
  id: string
  /** The class of difference from the issue (or `typical`). */
  kind: string
  tools: unknown[]
  expected: ExpectedCall[]
  output: string
  /** DeepFabric's values; 'rejected' is its error score (0, 0, 0, error set); 'crashed': evaluate() stops. */
  deepfabric: Triple | 'rejected' | 'crashed'
  /** What the default semantics score where DeepFabric crashes (documented in the README). */
  scoredOnCrash?: Triple
  /** Our corrected reading (`semantics: 'jsonschema'`). */
  jsonschema: Triple
  /** How the DeepFabric value follows from its source. */
  why: string
}

const fn = (name: string, properties: Record<string, unknown>, required: unknown[] = []) => ({
  type: 'function',
  function: { name, description: '', parameters: { type: 'object', properties, required } },
})

const weather = fn('get_weather', { city: { type: 'string' }, days: { type: 'integer' }, lat: { type: 'number' } }, ['city'])
const now = fn('now', {})
const TOOLS = [weather, now]

const out = (...calls: Array<{ name: string; arguments: unknown }>): string =>
  calls.map((c) => `<tool_call>${JSON.stringify(c)}</tool_call>`).join('\n')
const W = (args: Record<string, unknown>) => out({ name: 'get_weather', arguments: args })
const wantWeather: ExpectedCall[] = [{ name: 'get_weather', arguments: { city: 'Paris' } }]

export const PARITY_CASES: ParityCase[] = [
  // --- typical data: identical in both semantics
  { id: 'right-call', kind: 'typical', tools: TOOLS, expected: wantWeather, output: W({ city: 'Lyon', days: 3 }), deepfabric: [1, 1, 1], jsonschema: [1, 1, 1],
    why: 'tool on offer: _validate_parameter_types checks presence and types only, not values' },
  { id: 'wrong-type', kind: 'typical', tools: TOOLS, expected: wantWeather, output: W({ city: 'Paris', days: '3' }), deepfabric: [1, 0, 0], jsonschema: [1, 0, 0],
    why: "integer -> 'int'; isinstance('3', int) is false" },
  { id: 'int-for-number', kind: 'typical', tools: TOOLS, expected: wantWeather, output: W({ city: 'Paris', lat: 3 }), deepfabric: [1, 1, 1], jsonschema: [1, 1, 1],
    why: "number -> 'float', which accepts int and float but not bool" },
  { id: 'missing-required', kind: 'typical', tools: TOOLS, expected: wantWeather, output: W({ days: 3 }), deepfabric: [1, 0, 0], jsonschema: [1, 0, 0],
    why: 'a required parameter absent from the predicted arguments fails' },
  { id: 'wrong-tool', kind: 'typical', tools: TOOLS, expected: wantWeather, output: out({ name: 'now', arguments: {} }), deepfabric: [0, 1, 0], jsonschema: [0, 1, 0],
    why: "parameters are validated against the predicted tool ('now', no parameters)" },
  { id: 'no-call', kind: 'typical', tools: TOOLS, expected: wantWeather, output: 'It is sunny.', deepfabric: [0, 0, 0], jsonschema: [0, 0, 0],
    why: 'no predicted tool while one is expected: params_correct is False' },
  { id: 'both-empty', kind: 'typical', tools: TOOLS, expected: [{ name: 'get_weather', arguments: {} }], output: W({}), deepfabric: [1, 1, 1], jsonschema: [1, 1, 1],
    why: 'compare_parameters returns True when both argument sets are empty, before any schema check' },

  // --- no call expected
  { id: 'abstain-right', kind: 'no call expected', tools: TOOLS, expected: [], output: 'Hello!', deepfabric: [0, 0, 0], jsonschema: [1, 1, 1],
    why: 'expected_tool is None: the tool_calling evaluator is not applicable, so _aggregate_results keeps all False' },
  { id: 'abstain-wrong', kind: 'no call expected', tools: TOOLS, expected: [], output: W({ city: 'Paris' }), deepfabric: [0, 0, 0], jsonschema: [0, 1, 0],
    why: 'as above, whatever the model did' },

  // --- type names through DeepFabric's table (from_openai: unknown names and no type at all read as str)
  { id: 'no-type', kind: 'type names', tools: [fn('note', { text: {} })], expected: [{ name: 'note', arguments: { text: 5 } }], output: out({ name: 'note', arguments: { text: 5 } }),
    deepfabric: [1, 0, 0], jsonschema: [1, 1, 1], why: "no type -> default 'string' -> 'str'; 5 is not a str" },
  { id: 'float-name', kind: 'type names', tools: [fn('scale', { ratio: { type: 'float' } })], expected: [{ name: 'scale', arguments: { ratio: 0.5 } }], output: out({ name: 'scale', arguments: { ratio: 0.5 } }),
    deepfabric: [1, 0, 0], jsonschema: [1, 1, 1], why: "'float' is not in the table -> 'str'" },
  { id: 'dict-name', kind: 'type names', tools: [fn('conf', { opts: { type: 'dict' } })], expected: [{ name: 'conf', arguments: { opts: { a: 1 } } }], output: out({ name: 'conf', arguments: { opts: { a: 1 } } }),
    deepfabric: [1, 0, 0], jsonschema: [1, 1, 1], why: "'dict' is not in the table -> 'str'" },
  { id: 'str-name', kind: 'type names', tools: [fn('greet', { who: { type: 'str' } })], expected: [{ name: 'greet', arguments: { who: 'Ann' } }], output: out({ name: 'greet', arguments: { who: 'Ann' } }),
    deepfabric: [1, 1, 1], jsonschema: [1, 0, 0], why: "'str' -> 'str' (fallback); JSON Schema has no type 'str'" },
  { id: 'required-ghost', kind: 'required not in properties', tools: [fn('get_weather', { city: { type: 'string' } }, ['city', 'ghost'])], expected: wantWeather, output: W({ city: 'Paris' }),
    deepfabric: [1, 1, 1], jsonschema: [1, 0, 0], why: "parameters come from properties only: 'ghost' is never checked" },

  // --- a tool not on offer: values compared (compare_parameters' legacy branch), Python's True == 1
  { id: 'unknown-tool-values', kind: 'tool not on offer', tools: TOOLS, expected: [{ name: 'lookup', arguments: { q: 'Paris', n: 1 } }], output: out({ name: 'lookup', arguments: { q: ' paris', n: 1.0000001 } }),
    deepfabric: [1, 1, 1], jsonschema: [1, 1, 1], why: 'strings: lower().strip(); numbers: within 1e-6' },
  { id: 'unknown-tool-keys', kind: 'tool not on offer', tools: TOOLS, expected: [{ name: 'lookup', arguments: { q: 'Paris', n: 1 } }], output: out({ name: 'lookup', arguments: { q: 'Paris' } }),
    deepfabric: [1, 0, 0], jsonschema: [1, 0, 0], why: 'key sets differ' },
  { id: 'true-is-1', kind: 'tool not on offer', tools: TOOLS, expected: [{ name: 'lookup', arguments: { n: 1 } }], output: out({ name: 'lookup', arguments: { n: true } }),
    deepfabric: [1, 1, 1], jsonschema: [1, 0, 0], why: 'isinstance(True, int | float): the numeric branch, |1.0 - 1.0| <= 1e-6' },
  { id: 'nested-true-is-1', kind: 'tool not on offer', tools: TOOLS, expected: [{ name: 'lookup', arguments: { xs: [1, 2], o: { k: 1.0 } } }], output: out({ name: 'lookup', arguments: { xs: [true, 2], o: { k: 1 } } }),
    deepfabric: [1, 1, 1], jsonschema: [1, 0, 0], why: "other types: Python's ==, where [1, 2] == [True, 2]" },
  { id: 'no-tools-at-all', kind: 'tool not on offer', tools: [], expected: wantWeather, output: W({ city: 'PARIS' }),
    deepfabric: [1, 1, 1], jsonschema: [1, 1, 1], why: 'no tool definitions: values compared, case-insensitively' },

  // --- arguments that are not a JSON object: DeepFabric's parser drops the call
  { id: 'args-not-json', kind: 'non-object arguments', tools: TOOLS, expected: wantWeather, output: out({ name: 'get_weather', arguments: 'city=Paris' }),
    deepfabric: [0, 0, 0], jsonschema: [1, 0, 0], why: 'ToolCall.arguments: json.loads fails -> ValidationError -> the call is dropped: no call' },
  { id: 'args-list', kind: 'non-object arguments', tools: TOOLS, expected: wantWeather, output: out({ name: 'get_weather', arguments: ['Paris'] }),
    deepfabric: [0, 0, 0], jsonschema: [1, 0, 0], why: 'arguments: dict[str, Any] rejects a list -> dropped' },
  { id: 'args-dropped-next-kept', kind: 'non-object arguments', tools: TOOLS, expected: wantWeather,
    output: out({ name: 'now', arguments: 'x' }, { name: 'get_weather', arguments: { city: 'Paris' } }),
    deepfabric: [1, 1, 1], jsonschema: [0, 0, 0], why: 'the first call is dropped, so tool_call is the second one' },

  // --- string normalisation: Python's strip() keeps a BOM and strips U+001F
  { id: 'bom', kind: 'strip vs trim', tools: [], expected: wantWeather, output: W({ city: '\uFEFFParis' }),
    deepfabric: [1, 0, 0], jsonschema: [1, 1, 1], why: "'\\ufeff'.isspace() is False: '\\ufeffparis' != 'paris'" },
  { id: 'unit-separator', kind: 'strip vs trim', tools: [], expected: wantWeather, output: W({ city: 'Paris\u001f' }),
    deepfabric: [1, 1, 1], jsonschema: [1, 0, 0], why: "'\\x1f'.isspace() is True: strip() removes it, trim() does not" },

  // --- samples DeepFabric rejects (its error score: all False, error set; counted in the means)
  { id: 'expected-null', kind: 'null in expected arguments', tools: TOOLS, expected: [{ name: 'get_weather', arguments: { city: 'Paris', days: null } }], output: W({ city: 'Paris' }),
    deepfabric: 'rejected', jsonschema: [1, 1, 1], why: "ToolExecution's validator: a null argument raises -> ValidationError -> error score" },
  { id: 'expected-empty-string', kind: 'null in expected arguments', tools: TOOLS, expected: [{ name: 'get_weather', arguments: '{"city": ""}' }], output: W({ city: 'Paris' }),
    deepfabric: 'rejected', jsonschema: [1, 1, 1], why: 'the same validator refuses an empty-string argument' },
  { id: 'expected-null-second', kind: 'null in expected arguments', tools: TOOLS, expected: [...wantWeather, { name: 'now', arguments: { tz: null } }], output: W({ city: 'Paris' }),
    deepfabric: 'rejected', jsonschema: [1, 1, 1], why: 'every execution is validated, not only the first' },
  { id: 'tool-property-not-object', kind: 'tool definition', tools: [fn('get_weather', { city: 'string' })], expected: wantWeather, output: W({ city: 'Paris' }),
    deepfabric: 'rejected', jsonschema: [1, 1, 1], why: "from_openai: 'string'.get(...) raises AttributeError, caught -> error score" },

  // --- union types: DeepFabric's type-table lookup raises TypeError (unhashable list) inside its error handler
  { id: 'union', kind: 'union types', tools: [fn('get_weather', { city: { type: 'string' }, days: { type: ['integer', 'string'] } }, ['city'])], expected: wantWeather, output: W({ city: 'Paris', days: '3' }),
    deepfabric: 'crashed', scoredOnCrash: [1, 1, 1], jsonschema: [1, 1, 1], why: 'TypeError escapes evaluate_sample: evaluate() stops' },
  { id: 'union-wrong', kind: 'union types', tools: [fn('get_weather', { city: { type: 'string' }, days: { type: ['integer', 'string'] } }, ['city'])], expected: wantWeather, output: W({ city: 'Paris', days: true }),
    deepfabric: 'crashed', scoredOnCrash: [1, 0, 0], jsonschema: [1, 0, 0], why: 'as above' },
  { id: 'nullable', kind: 'union types', tools: [fn('get_weather', { city: { type: 'string' }, units: { type: ['string', 'null'] } }, ['city'])], expected: wantWeather, output: W({ city: 'Paris', units: null }),
    deepfabric: 'crashed', scoredOnCrash: [1, 1, 1], jsonschema: [1, 1, 1], why: 'as above, nullable or not' },
]
