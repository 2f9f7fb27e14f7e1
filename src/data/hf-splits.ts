/**
 * Which files of a Hub dataset repository make up a config's split, by the Hub's data-file naming conventions (those
 * the `datasets` library applies when a repository has no loading script):
 *
 * - sharded files `<split>-00000-of-00003.parquet` (what `push_to_hub` writes under `data/` or `<config>/`): the split
 *   is the name before the shard numbers, whatever it is;
 * - `<config>/<split>/0000.parquet` (the Hub's Parquet conversion, branch `refs/convert/parquet`): the folder's name;
 * - otherwise a split keyword as a word in a folder or file name (`train/`, `test.jsonl`, `my_dev-1.jsonl`), with its
 *   synonyms (`dev`, `val`, `valid` are `validation`; `eval`, `evaluation`, `testing` are `test`; `training` is
 *   `train`);
 * - a repository where no file names a split has one split, `train`, of all its files.
 *
 * A config is the first folder of a file's path; a repository whose data all lies in two or more such folders (none of
 * them `data/` or a split name) needs `config`. Only JSONL and Parquet files count.
 */

/** A data file of the repository, as the tree API lists it. */
export interface RepoFile {
  path: string
  size: number
  /** The content's id: the LFS sha256 when the file is in LFS, else the git blob id. Changes when the file does. */
  oid: string
}

export type DataFormat = 'jsonl' | 'parquet'

export interface SplitFiles {
  files: RepoFile[]
  /** The config the files belong to (`default` when the repository has one). */
  config: string
}

/** The files of `split` (in path order), or why there are none, listing what there is. */
export type SplitChoice = { ok: true; value: SplitFiles } | { ok: false; field: 'config' | 'split'; message: string }

const SPLIT_SYNONYMS: readonly (readonly [string, readonly string[]])[] = [
  ['train', ['train', 'training']],
  ['validation', ['validation', 'valid', 'dev', 'val']],
  ['test', ['test', 'testing', 'eval', 'evaluation']],
]
const SEP = '[-._ 0-9]'
const SHARDED = /^(.+?)-\d{5}-of-\d{5}(?:[-._][^/]*)?$/
const NUMBERED = /^\d+\.[^/]+$/

/** The format of a data file by its name, or undefined for files that are not data. */
export function dataFormatOf(path: string): DataFormat | undefined {
  const lower = path.toLowerCase()
  if (lower.endsWith('.jsonl')) return 'jsonl'
  if (lower.endsWith('.parquet')) return 'parquet'
  return undefined
}

/** The canonical split name for a requested one (`dev` asks for `validation`), or the name itself. */
export function canonicalSplit(name: string): string {
  const lower = name.toLowerCase()
  for (const [canonical, words] of SPLIT_SYNONYMS) if (words.includes(lower)) return canonical
  return name
}

/** The split a keyword names as a word in `segment` (a folder or file name), if any. */
function keywordSplit(segment: string, isDir: boolean): string | undefined {
  for (const [canonical, words] of SPLIT_SYNONYMS) {
    for (const word of words) {
      // A file name always has a separator after the word (its extension at least); a folder may end with it.
      const re = new RegExp(`(^|${SEP})${word}${isDir ? `($|${SEP})` : SEP}`, 'i')
      if (re.test(segment)) return canonical
    }
  }
  return undefined
}

/** The split a file's path (relative to its config folder) names, or undefined when it names none. */
export function splitOfPath(path: string): string | undefined {
  const parts = path.split('/')
  const file = parts[parts.length - 1] as string
  const sharded = SHARDED.exec(file)
  if (sharded) return sharded[1]
  const dirs = parts.slice(0, -1)
  if (NUMBERED.test(file) && dirs.length > 0) return dirs[dirs.length - 1]
  for (const dir of dirs) {
    const split = keywordSplit(dir, true)
    if (split) return split
  }
  return keywordSplit(file, false)
}

/** Top-level folders that hold data and look like configs rather than layout (`data/`) or splits (`test/`). */
function configFolders(files: readonly RepoFile[]): string[] {
  const folders = new Set<string>()
  for (const f of files) {
    const slash = f.path.indexOf('/')
    if (slash < 0) continue
    const top = f.path.slice(0, slash)
    if (top === 'data' || keywordSplit(top, true) || splitOfPath(f.path) === top) continue
    folders.add(top)
  }
  return [...folders].sort()
}

/** The data files of the chosen config, with paths relative to the config's folder (for split naming). */
function configFiles(
  files: readonly RepoFile[],
  config: string | undefined,
): { ok: true; config: string; files: { file: RepoFile; rel: string }[] } | { ok: false; message: string } {
  const folders = configFolders(files)
  if (config !== undefined) {
    const prefix = `${config}/`
    const chosen = files.filter((f) => f.path.startsWith(prefix)).map((file) => ({ file, rel: file.path.slice(prefix.length) }))
    if (chosen.length > 0) return { ok: true, config, files: chosen }
    if (config === 'default' && folders.length <= 1) return { ok: true, config, files: files.map((file) => ({ file, rel: file.path })) }
    return { ok: false, message: `config "${config}" not found; configs: ${folders.length > 0 ? folders.join(', ') : 'default (give no config)'}` }
  }
  if (folders.length < 2) return { ok: true, config: folders[0] ?? 'default', files: files.map((file) => ({ file, rel: relToConfig(file.path, folders) })) }
  const rest = files.filter((f) => !folders.some((c) => f.path.startsWith(`${c}/`)))
  if (rest.length > 0) return { ok: true, config: 'default', files: rest.map((file) => ({ file, rel: file.path })) }
  return { ok: false, message: `the dataset has several configs: give \`config\`, one of ${folders.join(', ')}` }
}

function relToConfig(path: string, folders: readonly string[]): string {
  const folder = folders[0]
  return folder !== undefined && path.startsWith(`${folder}/`) ? path.slice(folder.length + 1) : path
}

/** The splits of a repository's files (for the chosen config), each with its files in path order. */
export function splitsOf(files: readonly { file: RepoFile; rel: string }[]): Map<string, RepoFile[]> {
  const splits = new Map<string, RepoFile[]>()
  for (const { file, rel } of files) {
    const split = splitOfPath(rel)
    if (split === undefined) continue
    const list = splits.get(split) ?? []
    list.push(file)
    splits.set(split, list)
  }
  // No file names a split: all of them are `train`, as the `datasets` library reads such a repository.
  if (splits.size === 0 && files.length > 0) splits.set('train', files.map((f) => f.file))
  for (const list of splits.values()) list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return splits
}

/** The files of `split` in `config` among a repository's files (any files: non-data ones are ignored). */
export function chooseSplitFiles(all: readonly RepoFile[], split: string | undefined, config?: string): SplitChoice {
  const data = all.filter((f) => dataFormatOf(f.path) !== undefined)
  if (data.length === 0) return { ok: false, field: 'split', message: 'the dataset has no JSONL or Parquet files' }
  const chosen = configFiles(data, config)
  if (!chosen.ok) return { ok: false, field: 'config', message: chosen.message }
  const splits = splitsOf(chosen.files)
  const files = split === undefined ? undefined : (splits.get(split) ?? splits.get(canonicalSplit(split)))
  if (files) return { ok: true, value: { files, config: chosen.config } }
  const names = [...splits.keys()].sort()
  const where = chosen.config === 'default' ? '' : ` of config "${chosen.config}"`
  const what = split === undefined ? 'missing: give the split to read' : `split "${split}" not found${where}`
  return { ok: false, field: 'split', message: `${what}; splits available: ${names.join(', ')}` }
}

/** A file entry of the tree API (or of the cached list), or undefined for folders and unsafe paths. */
export function repoFileOf(item: unknown): RepoFile | undefined {
  if (item === null || typeof item !== 'object') return undefined
  const o = item as Record<string, unknown>
  if (o['type'] !== 'file' || typeof o['path'] !== 'string' || !isSafeRepoPath(o['path'])) return undefined
  const lfs = o['lfs'] as Record<string, unknown> | undefined
  const oid = typeof lfs?.['oid'] === 'string' ? lfs['oid'] : typeof o['oid'] === 'string' ? o['oid'] : ''
  return { path: o['path'], size: typeof o['size'] === 'number' ? o['size'] : 0, oid }
}

/** A path that stays inside the cache folder when joined to it. */
function isSafeRepoPath(path: string): boolean {
  if (path.length === 0 || path.length > 1000 || path.includes('\\') || path.includes('\0')) return false
  return path.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..')
}
