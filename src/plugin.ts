/**
 * `vitest-tool-evals/plugin`: the package as a Vitest plugin.
 *
 *   import { toolEvals } from 'vitest-tool-evals/plugin'
 *   export default defineConfig({ plugins: [toolEvals({ thresholds: { name_correct: 0.9 }, outputFile: 'tool-evals-report.json' })] })
 *
 * It adds the ToolEvalsReporter through Vitest's `configureVitest` hook, after the command line's `--reporter`
 * options are applied, so `vitest run --reporter=junit` still gates the run; runs the gate's verdict as a real test
 * case after every eval file, so Vitest's own reporters count a failed gate; registers the setup entry (the
 * matchers); and in watch mode reruns an eval when a dataset or replay recording it read changes.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Plugin, TestProjectConfiguration } from 'vitest/config'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
// The reporter it adds sums BFCL's scorer: registered here (src/bfcl/register.ts).
import './bfcl/register.js'
import type { OptionKeys } from './calls/options.js'
import { readInputs } from './eval/inputs.js'
import ToolEvalsReporter, { checkReporterOptions, type ToolEvalsReporterOptions } from './reporter/index.js'

export type ToolEvalsPluginOptions = ToolEvalsReporterOptions & {
  /** Register the setup entry (the tool-call matchers on `expect`); default true. */
  setup?: boolean
  /** In watch mode, rerun an eval when its dataset or recording changes; default true. */
  watchData?: boolean
}

/** A module beside this file: `x.js` once built, `x.ts` when the sources are run directly. */
function ownModule(name: string): string {
  const built = fileURLToPath(new URL(`./${name}.js`, import.meta.url))
  return existsSync(built) ? built : fileURLToPath(new URL(`./${name}.ts`, import.meta.url))
}

/** The plugin's own option names; the reporter's are checked with them. */
const PLUGIN_OPTION_KEYS: OptionKeys<Omit<ToolEvalsPluginOptions, keyof ToolEvalsReporterOptions>> = { setup: true, watchData: true }

function setupFile(): string {
  return ownModule('setup')
}

/** The name of the project that holds the gate's test case. */
export const GATE_PROJECT = 'tool-evals gate'

export function toolEvals(options: ToolEvalsPluginOptions = {}): Plugin {
  // Vitest does not type-check its config: a misspelt key (`tresholds`) would silently turn the gate off.
  checkReporterOptions(options, 'toolEvals()', Object.keys(PLUGIN_OPTION_KEYS))
  const { setup = true, watchData = true, ...reporterOptions } = options
  // Built here so a bad `thresholds` fails at config load, naming the field.
  const reporter = new ToolEvalsReporter(reporterOptions)
  const configured = new WeakSet<Vitest>()
  return {
    name: 'vitest-tool-evals',
    config(user) {
      if (!setup) return undefined
      const listed = [user.test?.setupFiles ?? []].flat()
      if (listed.some((f) => typeof f === 'string' && /vitest-tool-evals[\\/]setup(\.[jt]s)?$/.test(f))) return undefined
      return { test: { setupFiles: [setupFile()] } }
    },
    async configureVitest({ vitest, injectTestProjects }) {
      // Called once per project; the reporter, the watcher and the gate's test case belong to the run.
      if (configured.has(vitest)) return
      configured.add(vitest)
      const reporters = vitest.config.reporters as unknown[]
      // A ToolEvalsReporter listed by hand as well would gate and write twice: keep the user's.
      const listed = reporters.find(isToolEvalsReporter)
      if (!listed) reporters.push(reporter)
      if (watchData && vitest.config.watch) watchInputs(vitest, reporters)
      const gating = listed instanceof ToolEvalsReporter ? listed : listed ? undefined : reporter
      if (gating) await addGateProject(vitest, injectTestProjects, gating)
    },
  }
}

/**
 * The gate's verdict as a real test case that Vitest's reporters count (see reporter/gate-test.ts): a project of its
 * own holding that one file, run after every other project (`sequence.groupOrder`). Not in watch mode (a rerun is a
 * partial run, whose thresholds are not gated) nor in a `--shard` (decided when the blobs are merged).
 */
async function addGateProject(vitest: Vitest, inject: (config: TestProjectConfiguration) => Promise<unknown>, reporter: ToolEvalsReporter): Promise<void> {
  if (vitest.config.watch || vitest.config.shard || vitest.mode !== 'test') return
  const file = ownModule('reporter/gate-test')
  const dir = mkdtempSync(join(tmpdir(), 'tool-evals-gate-'))
  vitest.onClose(() => rmSync(dir, { recursive: true, force: true }))
  const verdict = join(dir, 'verdict.json')
  const after = Math.max(0, ...vitest.projects.map((p) => p.config.sequence.groupOrder ?? 0)) + 1
  reporter.useGateTest(verdict, GATE_PROJECT)
  await inject({
    test: {
      name: GATE_PROJECT,
      root: dirname(file),
      include: [basename(file)],
      exclude: [],
      sequence: { groupOrder: after },
      provide: { toolEvalsGate: verdict },
      pool: 'threads',
    },
  })
}

function isToolEvalsReporter(r: unknown): boolean {
  return r instanceof ToolEvalsReporter || (typeof r === 'object' && r !== null && r.constructor?.name === 'ToolEvalsReporter')
}

/**
 * Watch mode: the files each test module's evals read (from their samples' task meta) rerun that module when they
 * change, through Vitest's `watchTriggerPatterns`; files outside the watched root are added to the watcher.
 */
function watchInputs(vitest: Vitest, reporters: unknown[]): void {
  const readers = new Map<string, Set<string>>()
  const watched = new Set<string>()
  const recorder: Reporter = {
    onTestModuleEnd(module: TestModule) {
      for (const test of module.children.allTests()) {
        for (const file of readInputs(test.meta())) {
          let modules = readers.get(file)
          if (!modules) readers.set(file, (modules = new Set()))
          modules.add(module.moduleId)
          if (!watched.has(file)) {
            watched.add(file)
            vitest.vite.watcher.add(file)
          }
        }
      }
    },
  }
  reporters.push(recorder)
  const triggers = (vitest.config.watchTriggerPatterns ??= [])
  triggers.push({
    pattern: /[^]/,
    testsToRun: (file) => {
      const modules = readers.get(resolve(file))
      return modules && modules.size > 0 ? [...modules] : undefined
    },
  })
}

export { ToolEvalsReporter }
export type { ToolEvalsReporterOptions }
