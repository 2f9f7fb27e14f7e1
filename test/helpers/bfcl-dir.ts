// Where BFCL's data lives: $BFCL_DIR, or `shared/bfcl` beside the checkout (or beside a worktree's parent folder).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export function bfclDir(): string | undefined {
  const near = ['../../../shared/bfcl', '../../../../shared/bfcl'].map((p) => fileURLToPath(new URL(p, import.meta.url)))
  return [process.env['BFCL_DIR'], ...near].find((d): d is string => d !== undefined && existsSync(`${d}/BFCL_v4_simple_python.json`))
}
