/** BFCL's GorillaFileSystem: an in-memory tree of directories and files with shell-like commands. */
import { PyFloat, type PyDict } from '../../python/operations.js'
import { SimulatedApi, m, opt, type ApiMethod } from './api.js'
import { PyExc, asVal, cmp, contains, dict, eq, num, repr, truthy, type PyObject, type Val } from '../../python/runtime.js'

/**
 * `cp(source='a', destination='a')` makes a directory that contains itself, as in BFCL's Python (its `contents` is a
 * shallow copy that already holds the new directory). Python survives printing such a tree because `dict.__repr__`
 * prints a dict it is already printing as `{...}`; comparing or walking one ends in RecursionError. These mirror both:
 * the dicts being printed, and how deep a walk may go before raising Python's error.
 */
const printing = new Set<Map<string, FsFile | FsDirectory>>()
// CPython's default recursion limit is 1000 frames; a walk spends one or two per level. Only a cycle gets this deep.
const MAX_DEPTH = 480

export const RECURSION_ERROR = 'maximum recursion depth exceeded'

function tooDeep(depth: number, where: string): void {
  if (depth > MAX_DEPTH) throw new PyExc(RECURSION_ERROR + where, 'RecursionError')
}

export class FsFile implements PyObject {
  readonly pyTypeName = 'File'
  constructor(
    public name: string,
    public content: string = '',
  ) {}
  pyRepr(): string {
    return `<<File: ${this.name}, Content: ${this.content}>>`
  }
  pyEquals(other: unknown): boolean {
    return other instanceof FsFile && other.name === this.name && other.content === this.content
  }
}

export class FsDirectory implements PyObject {
  readonly pyTypeName = 'Directory'
  contents = new Map<string, FsFile | FsDirectory>()
  constructor(
    public name: string,
    public parent: FsDirectory | null = null,
  ) {}
  addFile(name: string, content = ''): void {
    if (this.contents.has(name)) throw new PyExc(`File '${name}' already exists in directory '${this.name}'.`)
    this.contents.set(name, new FsFile(name, content))
  }
  addDirectory(name: string): void {
    if (this.contents.has(name)) throw new PyExc(`Directory '${name}' already exists in directory '${this.name}'.`)
    this.contents.set(name, new FsDirectory(name, this))
  }
  getItem(name: string): FsFile | FsDirectory | undefined {
    return name === '.' ? this : this.contents.get(name)
  }
  pyRepr(): string {
    return `<Directory: ${this.name}, Parent: ${this.parent ? this.parent.name : 'None'}, Contents: ${this.contentsRepr()}>`
  }
  private contentsRepr(): string {
    if (printing.has(this.contents)) return '{...}'
    printing.add(this.contents)
    try {
      return `{${[...this.contents].map(([k, v]) => `${repr(k)}: ${v.pyRepr()}`).join(', ')}}`
    } finally {
      printing.delete(this.contents)
    }
  }
  pyEquals(other: unknown, depth = 0): boolean {
    if (!(other instanceof FsDirectory) || other.name !== this.name || other.contents.size !== this.contents.size) return false
    tooDeep(depth, ' in comparison')
    for (const [k, v] of this.contents) {
      const o = other.contents.get(k)
      if (o === undefined) return false
      // dict == dict compares values with `is` first, so a shared directory is equal without a walk.
      if (v === o) continue
      if (!(v instanceof FsDirectory ? v.pyEquals(o, depth + 1) : eq(v, o))) return false
    }
    return true
  }
}

/** Long-context scenario data (`long_context.py`); empty unless a long-context table is installed. */
export interface FsLongContext {
  fileContentExtension: string
  filesTailUsed: readonly string[]
  populateFileExtension: readonly string[]
}

export const NO_FS_LONG_CONTEXT: FsLongContext = { fileContentExtension: '', filesTailUsed: [], populateFileExtension: [] }

const INVALID_NAME_CHARS = '|/\\?%*:"><'

function validName(name: string): boolean {
  for (const c of INVALID_NAME_CHARS) if (name.includes(c)) return false
  return true
}

/** Python's `str.splitlines()`. */
export function splitlines(s: string): string[] {
  const out = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/)
  if (out.length > 0 && out[out.length - 1] === '' && s.length > 0) out.pop()
  return s.length === 0 ? [] : out
}

function rstrip(s: string, ch: string): string {
  let e = s.length
  while (e > 0 && s[e - 1] === ch) e--
  return s.slice(0, e)
}

function strip(s: string, ch: string): string {
  let b = 0
  while (b < s.length && s[b] === ch) b++
  return rstrip(s.slice(b), ch)
}

function s(v: Val, method: string): string {
  if (typeof v !== 'string') throw new PyExc(`'${v === null ? 'NoneType' : typeof v === 'number' ? 'int' : 'object'}' object has no attribute '${method}'`)
  return v
}

export class GorillaFileSystem extends SimulatedApi {
  readonly className = 'GorillaFileSystem'
  longContext = false
  root = new FsDirectory('/', null)
  currentDir = this.root
  longContextData: FsLongContext = NO_FS_LONG_CONTEXT

  loadScenario(config: PyDict, longContext: boolean): void {
    this.longContext = longContext
    if (longContext) this.longContextData = this.session.longContext()
    this.root = new FsDirectory('/', null)
    const root = config.get('root')
    if (root instanceof Map && root.size > 0) {
      const [rootName, rootData] = [...root][0]!
      const rootDir = new FsDirectory(String(rootName), null)
      this.root = this.loadDirectory((rootData as PyDict).get('contents') as PyDict, rootDir)
    }
    this.currentDir = this.root
  }

  private loadDirectory(current: PyDict, parent: FsDirectory): FsDirectory {
    let bottommost = true
    for (const [name, data] of current) {
      const d = data as PyDict
      const n = String(name)
      if (d.get('type') === 'directory') {
        bottommost = false
        parent.contents.set(n, this.loadDirectory(d.get('contents') as PyDict, new FsDirectory(n, parent)))
      } else if (d.get('type') === 'file') {
        let content = String(d.get('content'))
        if (this.longContext && !this.longContextData.filesTailUsed.includes(n)) content += this.longContextData.fileContentExtension
        parent.contents.set(n, new FsFile(n, content))
      }
    }
    if (bottommost && this.longContext) for (const f of this.longContextData.populateFileExtension) parent.addFile(f)
    return parent
  }

  state(): [string, Val][] {
    return [
      ['long_context', this.longContext],
      ['root', asVal(this.root)],
    ]
  }

  private navigate(path: Val): FsDirectory | PyDict {
    if (path === null || path === '.') return this.currentDir
    const p = s(path, 'strip')
    if (p === '/') return this.root
    let dir = p.startsWith('/') ? this.root : this.currentDir
    for (const name of strip(p, '/').split('/')) {
      const next = dir.getItem(name)
      if (next instanceof FsDirectory) dir = next
      else return dict([['error', `cd: '${p}': No such file or directory`]])
    }
    return dir
  }

  private fileIn(name: Val): FsFile | undefined {
    if (!contains(this.currentDir.contents as unknown as PyDict, name)) return undefined
    const item = this.currentDir.getItem(name as string)
    return item instanceof FsFile ? item : undefined
  }

  methods(): Record<string, ApiMethod> {
    const cur = () => this.currentDir
    const has = (name: Val) => contains(cur().contents as unknown as PyDict, name)
    return {
      cat: m(['file_name'], ([f]) => {
        const name = s(f!, 'x')
        if (!validName(name)) return dict([['error', `cat: '${name}': Invalid character`]])
        if (!has(name)) return dict([['error', `cat: '${name}': No such file or directory`]])
        const item = cur().getItem(name)
        return item instanceof FsFile ? dict([['file_content', item.content]]) : dict([['error', `cat: '${name}': Is a directory`]])
      }),
      cd: m(['folder'], ([f]) => {
        let folder = rstrip(s(f!, 'rstrip'), '/')
        if (folder === '') folder = '/'
        if (!['.', '..', '/'].includes(folder) && folder.includes('/')) {
          return dict([['error', `cd: ${folder}: Unsupported path. Only one folder level at a time is supported.`]])
        }
        if (folder === '..') {
          if (cur().parent) this.currentDir = cur().parent!
          else if (this.root.pyEquals(cur())) return dict([['error', 'Current directory is already the root. Cannot go back.']])
          else return dict([['error', 'cd: ..: No such directory']])
          return dict([])
        }
        const target = this.navigate(folder)
        if (target instanceof Map) return target
        this.currentDir = target
        return dict([['current_working_directory', target.name]])
      }),
      cp: m(['source', 'destination'], ([src, dst]) => this.copyOrMove('cp', src!, dst!)),
      diff: m(['file_name1', 'file_name2'], ([a, b]) => {
        if (has(a!) && has(b!)) {
          const f1 = cur().getItem(a as string)
          const f2 = cur().getItem(b as string)
          if (f1 instanceof FsFile && f2 instanceof FsFile) {
            const l1 = splitlines(f1.content)
            const l2 = splitlines(f2.content)
            const lines: string[] = []
            for (let i = 0; i < Math.min(l1.length, l2.length); i++) if (l1[i] !== l2[i]) lines.push(`- ${l1[i]}\n+ ${l2[i]}`)
            return dict([['diff_lines', lines.join('\n')]])
          }
        }
        return dict([['error', `diff: ${String(a)} or ${String(b)}: No such file or directory`]])
      }),
      du: m([opt('human_readable', false)], ([h]) => {
        const size = (item: FsFile | FsDirectory, depth: number): number => {
          if (item instanceof FsFile) return Buffer.byteLength(item.content, 'utf8')
          tooDeep(depth, '')
          return [...item.contents.values()].reduce((a, c) => a + size(c, depth + 1), 0)
        }
        let total = size(cur(), 0)
        let out: string
        if (truthy(h)) {
          const units = ['B', 'KB', 'MB', 'GB', 'TB']
          let i = 0
          let t = total
          for (; i < units.length; i++) {
            if (t < 1024) break
            t /= 1024
          }
          out = i < units.length ? `${t.toFixed(2)} ${units[i]}` : `${t.toFixed(2)} PB`
          total = t
        } else out = `${total} bytes`
        return dict([['disk_usage', out]])
      }),
      echo: m(['content', opt('file_name', null)], ([content, fileName]) => {
        if (fileName === null) return dict([['terminal_output', content!]])
        const name = s(fileName!, 'x')
        if (!validName(name)) return dict([['error', `echo: cannot write to '${name}': Invalid character`]])
        if (name === '') return dict([['terminal_output', content!]])
        if (!has(name)) return dict([['error', `echo: cannot write to '${name}': No such file`]])
        const item = cur().getItem(name)
        if (!(item instanceof FsFile)) throw new PyExc("'Directory' object has no attribute '_write'")
        item.content = content as string
        return undefined
      }),
      find: m([opt('path', '.'), opt('name', null)], ([path, name]) => {
        const target = this.navigate(path!)
        if (target instanceof Map) {
          const msg = String(target.get('error') ?? '')
          return msg.startsWith('cd:') ? dict([['error', msg.replace('cd:', 'find:')]]) : target
        }
        const matches: string[] = []
        const walk = (dir: FsDirectory, base: string, depth: number): void => {
          tooDeep(depth, ' while calling a Python object')
          for (const [itemName, item] of dir.contents) {
            const p = `${base}/${itemName}`
            if (name === null || contains(itemName, name)) matches.push(p)
            if (item instanceof FsDirectory) walk(item, p, depth + 1)
          }
        }
        walk(target, rstrip(s(path!, 'rstrip'), '/'), 0)
        return dict([['matches', matches]])
      }),
      grep: m(['file_name', 'pattern'], ([f, pattern]) => {
        const file = this.fileIn(f!)
        if (file) return dict([['matching_lines', splitlines(file.content).filter((l) => contains(l, pattern))]])
        return dict([['error', `grep: ${String(f)}: No such file or directory`]])
      }),
      ls: m([opt('a', false)], ([a]) => {
        let names = [...cur().contents.keys()]
        if (!truthy(a)) names = names.filter((n) => !n.startsWith('.'))
        return dict([['current_directory_content', names]])
      }),
      mkdir: m(['dir_name'], ([d]) => {
        const name = s(d!, 'x')
        if (!validName(name)) return dict([['error', `mkdir: cannot create directory '${name}': Invalid character`]])
        if (has(name)) return dict([['error', `mkdir: cannot create directory '${name}': File exists`]])
        cur().addDirectory(name)
        return undefined
      }),
      mv: m(['source', 'destination'], ([src, dst]) => this.copyOrMove('mv', src!, dst!)),
      pwd: m([], () => {
        const path: string[] = []
        for (let d: FsDirectory | null = cur(); d !== null; d = d.parent) path.push(d.name)
        return dict([['current_working_directory', '/' + path.reverse().join('/')]])
      }),
      rm: m(['file_name'], ([f]) => {
        if (!has(f!)) return dict([['error', `rm: cannot remove '${String(f)}': No such file or directory`]])
        cur().contents.delete(f as string)
        return dict([['result', `'${String(f)}' removed`]])
      }),
      rmdir: m(['dir_name'], ([d]) => {
        if (!has(d!)) return dict([['error', `rmdir: cannot remove '${String(d)}': No such file or directory`]])
        const item = cur().getItem(d as string)
        if (!(item instanceof FsDirectory)) return dict([['error', `rmdir: cannot remove '${String(d)}': Not a directory`]])
        if (item.contents.size > 0) return dict([['error', `rmdir: cannot remove '${String(d)}': Directory not empty`]])
        cur().contents.delete(d as string)
        return dict([['result', `'${String(d)}' removed`]])
      }),
      sort: m(['file_name'], ([f]) => {
        const file = this.fileIn(f!)
        if (file) return dict([['sorted_content', splitlines(file.content).sort(codePointOrder).join('\n')]])
        return dict([['error', `sort: ${String(f)}: No such file or directory`]])
      }),
      tail: m(['file_name', opt('lines', 10)], ([f, l]) => {
        const file = this.fileIn(f!)
        if (file) {
          const content = splitlines(file.content)
          let lines = l!
          if (cmp(lines, content.length, '>')) lines = content.length
          const n = num(lines)
          if (!Number.isInteger(n) || lines instanceof PyFloat) throw new PyExc('slice indices must be integers or None or have an __index__ method')
          const start = -n
          const last = start === 0 ? content : content.slice(start < 0 ? Math.max(0, content.length + start) : Math.min(start, content.length))
          return dict([['last_lines', last.join('\n')]])
        }
        return dict([['error', `tail: ${String(f)}: No such file or directory`]])
      }),
      touch: m(['file_name'], ([f]) => {
        const name = s(f!, 'x')
        if (!validName(name)) return dict([['error', `touch: cannot touch '${name}': Invalid character`]])
        if (has(name)) return dict([['error', `touch: cannot touch '${name}': File exists`]])
        cur().addFile(name)
        return undefined
      }),
      wc: m(['file_name', opt('mode', 'l')], ([f, mode]) => {
        if (!['l', 'w', 'c'].some((x) => x === mode)) return dict([['error', `wc: invalid mode '${String(mode)}'`]])
        const file = this.fileIn(f!)
        if (file) {
          const c = file.content
          if (mode === 'l') return dict([['count', splitlines(c).length], ['type', 'lines']])
          if (mode === 'w') return dict([['count', c.split(/[\s\x1c-\x1f\x85]+/u).filter((w) => w !== '').length], ['type', 'words']])
          return dict([['count', Array.from(c).length], ['type', 'characters']])
        }
        return dict([['error', `wc: ${String(f)}: No such file or directory`]])
      }),
    }
  }

  private copyOrMove(op: 'cp' | 'mv', source: Val, destination: Val): Val {
    const verb = op === 'cp' ? 'copy' : 'move'
    const done = op === 'cp' ? 'copied' : 'moved'
    const dir = this.currentDir
    if (!contains(dir.contents as unknown as PyDict, source)) return dict([['error', `${op}: cannot ${verb} '${String(source)}': No such file or directory`]])
    const src = source as string
    const item = dir.getItem(src)!
    if (contains(s(destination, 'x'), '/')) return dict([['error', `${op}: path not allowed in destination. Provide only a file or directory name.`]])
    const dst = destination as string
    if (dir.contents.has(dst)) {
      const target = dir.getItem(dst)
      if (!(target instanceof FsDirectory)) return dict([['error', `${op}: cannot ${verb} '${src}' to '${dst}': Not a directory`]])
      // cp checks for 'dst/src' among the target's names (never there); mv checks for 'src'.
      const clash = op === 'cp' ? `${dst}/${src}` : src
      if (target.contents.has(clash)) return dict([['error', `${op}: cannot ${verb} '${src}' to '${dst}/${src}': File exists`]])
      if (op === 'mv') dir.contents.delete(src)
      this.place(target, src, item, op)
      return dict([['result', `'${src}' ${done} to '${dst}/${src}'`]])
    }
    if (op === 'mv') dir.contents.delete(src)
    this.place(dir, dst, item, op)
    return dict([['result', `'${src}' ${done} to '${dst}'`]])
  }

  private place(target: FsDirectory, name: string, item: FsFile | FsDirectory, op: 'cp' | 'mv'): void {
    if (item instanceof FsFile) target.addFile(name, item.content)
    else {
      target.addDirectory(name)
      const made = target.contents.get(name) as FsDirectory
      made.contents = op === 'cp' ? new Map(item.contents) : item.contents
    }
  }
}

function codePointOrder(a: string, b: string): number {
  const x = Array.from(a)
  const y = Array.from(b)
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!
    if (d !== 0) return d
  }
  return x.length - y.length
}
