/**
 * Vitest's root, handed from the reporter (main process) to the test workers with Vitest's `provide` / `inject`, so
 * that relative input paths resolve from it (data/input-root.ts) as the reporter's output paths do.
 */
import { inject } from 'vitest'
import { INPUT_ROOT_KEY, setInputRoot } from '../data/input-root.js'

/** Adopt the root the reporter provided; nothing provided (no reporter, or not in a worker): the current directory. */
export function adoptInputRoot(): void {
  let provided: unknown
  try {
    provided = inject(INPUT_ROOT_KEY)
  } catch {
    // Not inside a Vitest worker.
  }
  setInputRoot(typeof provided === 'string' ? provided : undefined)
}
