/**
 * Run metadata in the report: when the run was, the package version, the git commit (read from .git directly, else
 * `git rev-parse`, never failing the run), and per suite the provider and hashes of its settings, input files and
 * tool schemas (collected in the workers: eval/run-info.ts). A comparison warns when base and head differ here.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { SuiteRunInfo } from '../../eval/run-info.js'

export interface RunMeta {
  /** ISO time the report was written. */
  time: string
  /** vitest-tool-evals' version. */
  version: string
  git?: { commit: string; branch?: string }
  suites: Record<string, SuiteRunInfo>
}

let packageVersion: string | undefined

export function toolEvalsVersion(): string {
  if (packageVersion !== undefined) return packageVersion
  packageVersion = 'unknown'
  // src/reporter/compare or dist/src/reporter/compare: walk up to the package's package.json.
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json')
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'vitest-tool-evals' && typeof pkg.version === 'string') {
        packageVersion = pkg.version
        break
      }
    } catch {
      // not here
    }
    dir = dirname(dir)
  }
  return packageVersion
}

/** The git directory for a work tree at or above `root` (`.git` may be a file pointing elsewhere: worktrees). */
function gitDir(root: string): string | undefined {
  let dir = resolve(root)
  for (;;) {
    const dotGit = join(dir, '.git')
    if (existsSync(dotGit)) {
      if (statSync(dotGit).isDirectory()) return dotGit
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))
      return m ? resolve(dir, (m[1] as string).trim()) : undefined
    }
    const up = dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
}

/** The commit checked out at `root`: HEAD and refs read directly, `git rev-parse HEAD` as a fallback. */
export function gitCommit(root: string): { commit: string; branch?: string } | undefined {
  try {
    const dir = gitDir(root)
    if (dir) {
      const head = readFileSync(join(dir, 'HEAD'), 'utf8').trim()
      if (/^[0-9a-f]{40}$/.test(head)) return { commit: head }
      const ref = /^ref:\s*(\S+)$/.exec(head)?.[1]
      if (ref) {
        const branch = ref.replace(/^refs\/heads\//, '')
        // Worktrees keep refs in the common dir.
        const common = existsSync(join(dir, 'commondir')) ? resolve(dir, readFileSync(join(dir, 'commondir'), 'utf8').trim()) : dir
        for (const d of [dir, common]) {
          const loose = join(d, ref)
          if (existsSync(loose)) return { commit: readFileSync(loose, 'utf8').trim(), branch }
        }
        for (const d of [dir, common]) {
          const packed = join(d, 'packed-refs')
          if (!existsSync(packed)) continue
          for (const line of readFileSync(packed, 'utf8').split('\n')) {
            const [sha, name] = line.split(' ')
            if (name === ref && sha && /^[0-9a-f]{40}$/.test(sha)) return { commit: sha, branch }
          }
        }
      }
    }
  } catch {
    // fall through to git itself
  }
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).toString().trim()
    return /^[0-9a-f]{40}$/.test(commit) ? { commit } : undefined
  } catch {
    return undefined
  }
}

export function runMeta(root: string, suites: Record<string, SuiteRunInfo>, now = new Date()): RunMeta {
  const meta: RunMeta = { time: now.toISOString(), version: toolEvalsVersion(), suites }
  const git = gitCommit(root)
  if (git) meta.git = git
  return meta
}

/** What differs between two runs' metadata, one line each (a different dataset or model is not a regression). */
export function metaDifferences(base: RunMeta | undefined, head: RunMeta | undefined): string[] {
  if (!base || !head) return base === head ? [] : ['run metadata missing from one of the reports']
  const out: string[] = []
  if (base.version !== head.version) out.push(`vitest-tool-evals version ${base.version} → ${head.version}`)
  for (const suite of Object.keys(head.suites).sort()) {
    const b = base.suites[suite]
    const h = head.suites[suite] as SuiteRunInfo
    if (!b) continue
    if (b.provider !== h.provider) out.push(`${suite}: provider ${b.provider} → ${h.provider}`)
    else if (b.settings !== h.settings) out.push(`${suite}: provider settings differ`)
    if (b.tools !== h.tools) out.push(`${suite}: tool schemas differ`)
    for (const file of Object.keys(h.files)) {
      if (file in b.files && b.files[file] !== h.files[file]) out.push(`${suite}: ${file} differs (dataset or recording changed)`)
    }
    const bFiles = Object.keys(b.files).sort().join(',')
    const hFiles = Object.keys(h.files).sort().join(',')
    if (bFiles !== hFiles) out.push(`${suite}: input files differ (${bFiles || 'none'} → ${hFiles || 'none'})`)
  }
  return out
}
