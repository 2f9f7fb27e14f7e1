/**
 * `vitest-tool-evals/plugin`: the package as a Vitest plugin.
 *
 *   import { toolEvals } from 'vitest-tool-evals/plugin'
 *   export default defineConfig({ plugins: [toolEvals({ thresholds: { name_correct: 0.9 }, outputFile: 'tool-evals-report.json' })] })
 *
 * It adds the ToolEvalsReporter through Vitest's `configureVitest` hook, after the command line's `--reporter`
 * options are applied, so `vitest run --reporter=junit` still gates the run; registers the setup entry (the
 * matchers); and in watch mode reruns an eval when a dataset or replay recording it read changes.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vitest/config'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import type { OptionKeys } from './calls/options.js'
import { readInputs } from './eval/inputs.js'
import ToolEvalsReporter, { checkReporterOptions, type ToolEvalsReporterOptions } from './reporter/index.js'

export type ToolEvalsPluginOptions = ToolEvalsReporterOptions & {
  /** Register the setup entry (the tool-call matchers on `expect`); default true. */
  setup?: boolean
  /** In watch mode, rerun an eval when its dataset or recording changes; default true. */
  watchData?: boolean
}

/** The setup entry beside this file: setup.js once built, setup.ts when the sources are run directly. */
function setupFile(): string {
  const built = fileURLToPath(new URL('./setup.js', import.meta.url))
  return existsSync(built) ? built : fileURLToPath(new URL('./setup.ts', import.meta.url))
}

/** The plugin's own option names; the reporter's are checked with them. */
const PLUGIN_OPTION_KEYS: OptionKeys<Omit<ToolEvalsPluginOptions, keyof ToolEvalsReporterOptions>> = { setup: true, watchData: true }

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
    configureVitest({ vitest }) {
      // Called once per project; the reporter and the watcher belong to the run.
      if (configured.has(vitest)) return
      configured.add(vitest)
      const reporters = vitest.config.reporters as unknown[]
      // A ToolEvalsReporter listed by hand as well would gate and write twice: keep the user's.
      if (!reporters.some(isToolEvalsReporter)) reporters.push(reporter)
      if (watchData && vitest.config.watch) watchInputs(vitest, reporters)
    },
  }
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
