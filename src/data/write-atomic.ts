/**
 * Writing a whole file so that no reader, and no kill mid-write, ever sees half of it: the text goes to a temporary
 * file beside it (named so that parallel writers never share one), which is then renamed over the file.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/** The temporary files of `path`'s writes end so: what a writer killed mid-write may leave behind. */
export const ATOMIC_TEMP_SUFFIX = '.tmp'

export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}${ATOMIC_TEMP_SUFFIX}`
  writeFileSync(tmp, data)
  renameSync(tmp, path)
}

/** Whether `name` (a file name in `path`'s folder) is a temporary file of a write of `path` that did not finish. */
export function isAtomicTempOf(name: string, fileName: string): boolean {
  return name.startsWith(`${fileName}.`) && name.endsWith(ATOMIC_TEMP_SUFFIX)
}
