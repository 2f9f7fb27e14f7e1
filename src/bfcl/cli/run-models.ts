/**
 * `tool-evals bfcl run` over several models: `--model` given more than once, or `--models FILE` (one name a line).
 * Each model runs as `bfcl run` runs one (its results and score files in BFCL's layout under `OUT/result/<model>/` and
 * `OUT/score/<model>/`), one after the other; then the leaderboard's CSVs over every model's score files, one row
 * per model, go to `OUT/score/`, where BFCL's `generate_leaderboard_csv` writes them for the models under it.
 */
import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { EXIT_BAD_INPUT, EXIT_OK, UsageError, writeLine, type Command, type OptionValues } from '../../cli/command.js'
import { leaderboardCsvFilesOf, leaderboardRows } from '../checker/leaderboard.js'
import { bfclRunCommand, modelDirName } from './run.js'
import { scoreFilesIn } from './score.js'

/** The model names asked for, in order: every `--model`, then the lines of `--models` (blank and `#` lines skipped). */
export function requestedModels(values: OptionValues): string[] {
  const given = values['model']
  const names = (Array.isArray(given) ? given : given === undefined ? [] : [given]).map(String)
  const file = values['models']
  if (typeof file === 'string') {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (err) {
      throw new UsageError(`--models ${file}: ${err instanceof Error ? err.message : String(err)}`)
    }
    for (const line of text.split(/\r?\n/)) {
      const name = line.trim()
      if (name !== '' && !name.startsWith('#')) names.push(name)
    }
    if (names.length === 0) throw new UsageError(`--models ${file}: no model named (one name a line)`)
  }
  if (names.length === 0) throw new UsageError('--model is required (or --models FILE)')
  // Two names that share a folder (`a/b`, `a_b`) would write over each other's results.
  const byDir = new Map<string, string>()
  for (const name of names) {
    const dir = modelDirName(name)
    const other = byDir.get(dir)
    if (other !== undefined) throw new UsageError(other === name ? `model ${name} is given twice` : `models ${other} and ${name} share the folder ${dir}`)
    byDir.set(dir, name)
  }
  return names
}

/** `bfcl run` taking several models (the command `tool-evals` lists; a function, so the one-model command stays the listed one). */
export function withSeveralModels(single: Command = bfclRunCommand): Command {
  return {
    ...single,
    description: [
      single.description,
      '',
      '  --model NAME (again)  several models: each runs in turn, in BFCL\'s layout under its own folder, and the',
      '                        leaderboard CSVs with one row per model go to OUT/score/ (as BFCL writes them there)',
      '  --models FILE         the model names, one a line (blank lines and # comments skipped), after any --model',
    ].join('\n'),
    options: { ...single.options, model: { type: 'string', multiple: true }, models: { type: 'string' } },
    async run(values, positionals, io) {
      const models = requestedModels(values)
      const one = (model: string) => single.run({ ...values, model, models: undefined }, positionals, io)
      if (models.length === 1 && values['models'] === undefined) return one(models[0] as string)
      const outDir = values['output-dir']
      if (typeof outDir !== 'string') throw new UsageError('--output-dir is required')
      let failed = false
      for (const model of models) if ((await one(model)) !== EXIT_OK) failed = true
      const rows = []
      for (const model of models) rows.push({ model: modelDirName(model), scores: await scoreFilesIn(join(outDir, 'score', modelDirName(model))) })
      for (const [name, text] of Object.entries(leaderboardCsvFilesOf(rows))) await writeFile(join(outDir, 'score', name), text, 'utf8')
      const overall = Object.fromEntries(rows.map((r) => [r.model, leaderboardRows(r.scores, r.model).overall[1]]))
      await writeLine(io.stdout, JSON.stringify({ models: { overall_accuracy: overall, csv_dir: join(outDir, 'score') } }))
      return failed ? EXIT_BAD_INPUT : EXIT_OK
    },
  }
}
