/**
 * `tool-evals score`: NeMo-compatible per-sample metrics for each line, or (`--summary`) the run-level aggregate,
 * the same numbers `aggregate` gives the reporter.
 */
import { parseToolCalls } from '../calls/index.js'
import type { ToolCall } from '../calls/types.js'
import { addRecord, createAccumulator, finishAggregate } from '../score/aggregate.js'
import { scoreSample } from '../score/nemo.js'
import { NEMO_METRICS, type ExpectedCall, type MatchMode, type SampleRecord, type SampleScore, type ScoreOptions } from '../score/types.js'
import { EXIT_BAD_INPUT, EXIT_OK, UsageError, writeLine, type Command } from './command.js'
import { InputError, callsOfLine, expectedOf, lineError, parseOptionsOf, readJsonLines, requireString } from './input.js'

const MATCH_MODES: readonly MatchMode[] = ['positional', 'unordered']

/** One output line: the six metrics under NeMo's names, `no_call_correct` when nothing is expected, `failures`. */
export function scoreLine(score: SampleScore): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of NEMO_METRICS) out[k] = score.metrics[k]
  if (score.noCallCorrect !== undefined) out['no_call_correct'] = score.noCallCorrect
  out['failures'] = score.failures
  return out
}

/** The predicted calls of a line: parsed from `text`, or given as `calls` (exactly one of the two). */
function predictedOf(obj: Record<string, unknown>): ToolCall[] {
  const hasText = obj['text'] !== undefined
  const hasCalls = obj['calls'] !== undefined
  if (hasText && hasCalls) throw new InputError('give either text or calls, not both', 'calls')
  if (hasCalls) return callsOfLine(obj)
  if (!hasText) throw new InputError('missing (or give calls)', 'text')
  return parseToolCalls(requireString(obj, 'text'), parseOptionsOf(obj))
}

/** No prediction scored against `expected`, or undefined when even that fails (expected calls too deep to compare). */
function scoreOrUndefined(expected: ExpectedCall[], options: ScoreOptions): SampleScore | undefined {
  try {
    return scoreSample([], expected, options)
  } catch {
    return undefined
  }
}

/** A line's output, serialised; one that cannot be serialised becomes the line's error (one answer per line). */
function outputLine(record: SampleRecord, line: number): string {
  try {
    return JSON.stringify(record.error !== undefined ? { error: record.error } : scoreLine(record.score!))
  } catch (err) {
    return JSON.stringify({ error: lineError(line, err) })
  }
}

function idOf(obj: Record<string, unknown>, line: number): string {
  const id = obj['id']
  return typeof id === 'string' || typeof id === 'number' ? String(id) : `line ${line}`
}

export const scoreCommand: Command = {
  name: 'score',
  synopsis: '[--match positional|unordered] [--strict-types] [--summary] < in.jsonl',
  description: [
    'Reads JSONL from stdin, one {"text": string, "expected": [{"name", "arguments"?}], "tools"?, "format"?} a line',
    '(or "calls": [OpenAI-style tool calls, or the calls `tool-evals parse` writes] instead of "text"), and writes',
    'one line per input line, in order: {"has_call", "name_correct", "args_json_valid", "args_field_precision",',
    '"args_field_recall", "args_exact_match", "no_call_correct" (only when nothing is expected), "failures"}.',
    '',
    '  --match positional   prediction i against expected call i (default, NeMo)',
    '  --match unordered    optimal one-to-one matching of predictions to expected calls',
    '  --strict-types       exact match keeps booleans and numbers apart (NeMo, like Python, has true == 1)',
    '  --summary            print one JSON object instead: the run-level means and counts (bad lines are',
    '                       reported on stderr and counted as errored samples)',
    '',
    'A bad line gets {"error": "line N: ..."} instead; the exit code is then 1. Blank lines are skipped.',
  ].join('\n'),
  options: {
    match: { type: 'string' },
    'strict-types': { type: 'boolean' },
    summary: { type: 'boolean' },
  },
  async run(values, _positionals, io) {
    const match = values['match'] ?? 'positional'
    if (typeof match !== 'string' || !(MATCH_MODES as readonly string[]).includes(match)) {
      throw new UsageError(`--match must be one of ${MATCH_MODES.join(', ')}, got '${String(match)}'`)
    }
    const options: ScoreOptions = { match: match as MatchMode }
    if (values['strict-types'] === true) options.strictTypes = true
    const summary = values['summary'] === true
    const acc = summary ? createAccumulator() : undefined
    let failed = false

    for await (const item of readJsonLines(io.stdin)) {
      let record: SampleRecord
      if ('error' in item) {
        record = { id: `line ${item.line}`, error: item.error }
      } else {
        const obj = item.value
        const id = idOf(obj, item.line)
        let expected
        try {
          expected = expectedOf(obj)
          record = { id, score: scoreSample(predictedOf(obj), expected, options) }
        } catch (err) {
          // With the expected calls known, a bad prediction is scored as none (failures never raise a rate).
          record = { id, error: lineError(item.line, err) }
          if (expected) record.score = scoreOrUndefined(expected, options)
        }
      }
      if (record.error !== undefined) failed = true
      if (acc) {
        if (record.error !== undefined) {
          await writeLine(io.stderr, JSON.stringify({ error: record.error }))
          // Group the summary's reasons by what went wrong, not by line.
          record.error = 'invalid input: ' + record.error.replace(/^line \d+: /, '')
        }
        addRecord(acc, record)
      } else {
        await writeLine(io.stdout, outputLine(record, item.line))
      }
    }
    if (acc) await writeLine(io.stdout, JSON.stringify(finishAggregate(acc)))
    return failed ? EXIT_BAD_INPUT : EXIT_OK
  },
}
