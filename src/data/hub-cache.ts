/** The disk cache of Hub dataset files (see hf.ts). */
import { mkdirSync, readFileSync } from 'node:fs'
import { writeFileAtomic } from './write-atomic.js'
import { dirname, join } from 'node:path'
import { repoFileOf, type RepoFile } from './hf-splits.js'
import { HubError } from './hub-http.js'

/**
 * The disk cache of one repository at one revision: `tree.json` (the file list as last fetched), `files/<path>` and
 * `oids/<path>` (the content id the cached file has, so a changed file is fetched again).
 */
export class RepoCache {
  readonly dir: string

  constructor(root: string, repo: string, revision: string) {
    this.dir = join(root, 'datasets', ...repo.split('/'), encodeURIComponent(revision))
  }

  readTree(uri: string): RepoFile[] {
    let text: string
    try {
      text = readFileSync(join(this.dir, 'tree.json'), 'utf8')
    } catch {
      throw new HubError(`HF_HUB_OFFLINE is set and ${uri} at this revision is not in the cache (${this.dir}): run once online first`)
    }
    try {
      return (JSON.parse(text) as unknown[]).map(repoFileOf).filter((f): f is RepoFile => f !== undefined)
    } catch {
      throw new HubError(`the cached file list ${join(this.dir, 'tree.json')} is corrupt: run once online to refresh it`)
    }
  }

  writeTree(files: RepoFile[]): void {
    writeFileAtomic(join(this.dir, 'tree.json'), JSON.stringify(files.map((f) => ({ type: 'file', ...f }))))
  }

  readFile(file: RepoFile, uri: string): Uint8Array {
    try {
      return readFileSync(join(this.dir, 'files', file.path))
    } catch {
      throw new HubError(`HF_HUB_OFFLINE is set and ${file.path} of ${uri} is not in the cache (${this.dir}): run once online first`)
    }
  }

  readFileIfCurrent(file: RepoFile): Uint8Array | undefined {
    try {
      if (!file.oid || readFileSync(join(this.dir, 'oids', file.path), 'utf8') !== file.oid) return undefined
      return readFileSync(join(this.dir, 'files', file.path))
    } catch {
      return undefined
    }
  }

  writeFile(file: RepoFile, bytes: Uint8Array): void {
    // A cache that cannot be written costs a download next time, nothing more.
    try {
      writeFileAtomic(join(this.dir, 'files', file.path), bytes)
      writeFileAtomic(join(this.dir, 'oids', file.path), file.oid)
    } catch {
      /* keep going */
    }
  }
}
