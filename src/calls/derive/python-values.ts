/**
 * Python's writing of values that chat templates print: `json.dumps` as transformers' `tojson` filter calls it
 * (`ensure_ascii=False` by default, `indent`, `separators`, `sort_keys`; floats as Python writes them, `1.0` not `1`),
 * and `datetime.strftime` for the `strftime_now` global (every directive Python's C library has, where the engine
 * knows a few).
 *
 * Like python-text.ts, this function runs in the renderer worker from its source text: self-contained, no imports at
 * run time. `py` is `pythonText()`.
 */
import type { PythonText, RuntimeLike } from './python-text.js'

export interface DumpOptions {
  ensureAscii: boolean
  /** Spaces (a number) or the text itself; null for one line. */
  indent: number | string | null
  /** [item separator, key separator]; null for Python's defaults (', ' and ': ', or ',' and ': ' when indenting). */
  separators: [string, string] | null
  sortKeys: boolean
}

export type PythonValues = ReturnType<typeof pythonValues>

export function pythonValues(py: PythonText) {
  const fail = (message: string): never => {
    throw new Error(message)
  }

  function jsonString(s: string, ensureAscii: boolean): string {
    const json = JSON.stringify(s)
    if (!ensureAscii) return json
    let out = ''
    for (let i = 0; i < json.length; i++) {
      const c = json.charCodeAt(i)
      out += c < 0x80 ? json[i] : '\\u' + c.toString(16).padStart(4, '0')
    }
    return out
  }

  function jsonKey(k: RuntimeLike, o: DumpOptions): string {
    switch (k.type) {
      case 'StringValue':
        return jsonString(k.value as string, o.ensureAscii)
      case 'IntegerValue':
      case 'FloatValue':
      case 'BooleanValue':
      case 'NullValue':
        return JSON.stringify(dumps(k, o))
      default:
        return fail(`keys must be str, int, float, bool or None, not ${py.pyType(k)}`)
    }
  }

  /** Python's `json.dumps(v, ...)` of a runtime value. */
  function dumps(v: RuntimeLike, o: DumpOptions, depth = 0): string {
    switch (v.type) {
      case 'StringValue':
        return jsonString(v.value as string, o.ensureAscii)
      case 'IntegerValue':
        return String(v.value)
      case 'FloatValue': {
        const x = v.value as number
        return Number.isNaN(x) ? 'NaN' : x === Infinity ? 'Infinity' : x === -Infinity ? '-Infinity' : py.floatRepr(x)
      }
      case 'BooleanValue':
        return v.value ? 'true' : 'false'
      case 'NullValue':
        return 'null'
    }
    if (depth > 1000) fail('maximum recursion depth exceeded while encoding a JSON object')
    const indent = o.indent === null ? null : typeof o.indent === 'number' ? ' '.repeat(Math.max(0, o.indent)) : o.indent
    const [itemSep, keySep] = o.separators ?? (indent === null ? [', ', ': '] : [',', ': '])
    const open = indent === null ? '' : '\n' + indent.repeat(depth + 1)
    const close = indent === null ? '' : '\n' + indent.repeat(depth)
    const between = indent === null ? itemSep : itemSep + open
    if (v.type === 'ArrayValue' || v.type === 'TupleValue') {
      const list = v.value as RuntimeLike[]
      return list.length === 0 ? '[]' : '[' + open + list.map((x) => dumps(x, o, depth + 1)).join(between) + close + ']'
    }
    if (v.type === 'ObjectValue' || v.type === 'KeywordArgumentsValue') {
      let entries = [...(v.value as Map<string, RuntimeLike>)]
      if (o.sortKeys) entries = entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      if (entries.length === 0) return '{}'
      return '{' + open + entries.map(([k, x]) => jsonString(k, o.ensureAscii) + keySep + dumps(x, o, depth + 1)).join(between) + close + '}'
    }
    return fail(`Object of type ${v.type === 'UndefinedValue' ? 'Undefined' : py.pyType(v).slice(1, -1)} is not JSON serializable`)
  }

  const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
  const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
  const pad = (n: number, width = 2, fill = '0') => String(n).padStart(width, fill)

  /** Python's `date.strftime(format)` (glibc's directives, `%-d` included), in local time as `datetime.now()`. */
  function strftime(format: string, d: Date): string {
    const dayOfYear = Math.round((Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) - Date.UTC(d.getFullYear(), 0, 1)) / 86_400_000) + 1
    const hour12 = d.getHours() % 12 === 0 ? 12 : d.getHours() % 12
    const offset = -d.getTimezoneOffset()
    const field = (c: string): string | undefined => {
      switch (c) {
        case 'a': return DAYS[d.getDay()]!.slice(0, 3)
        case 'A': return DAYS[d.getDay()]!
        case 'b': case 'h': return MONTHS[d.getMonth()]!.slice(0, 3)
        case 'B': return MONTHS[d.getMonth()]!
        case 'd': return pad(d.getDate())
        case 'e': return pad(d.getDate(), 2, ' ')
        case 'm': return pad(d.getMonth() + 1)
        case 'y': return pad(d.getFullYear() % 100)
        case 'Y': return String(d.getFullYear())
        case 'H': return pad(d.getHours())
        case 'I': return pad(hour12)
        case 'M': return pad(d.getMinutes())
        case 'S': return pad(d.getSeconds())
        case 'f': return pad(d.getMilliseconds() * 1000, 6)
        case 'p': return d.getHours() < 12 ? 'AM' : 'PM'
        case 'j': return pad(dayOfYear, 3)
        case 'w': return String(d.getDay())
        case 'u': return String(d.getDay() === 0 ? 7 : d.getDay())
        case 'z': return (offset < 0 ? '-' : '+') + pad(Math.floor(Math.abs(offset) / 60)) + pad(Math.abs(offset) % 60)
        case 'D': return `${field('m')}/${field('d')}/${field('y')}`
        case 'F': return `${field('Y')}-${field('m')}-${field('d')}`
        case 'T': return `${field('H')}:${field('M')}:${field('S')}`
        case 'R': return `${field('H')}:${field('M')}`
        case 'c': return `${field('a')} ${field('b')} ${field('e')} ${field('T')} ${field('Y')}`
        case 'x': return `${field('m')}/${field('d')}/${field('y')}`
        case 'X': return field('T')
        case '%': return '%'
        default: return undefined
      }
    }
    return format.replace(/%(-?)(.)/g, (whole, noPad: string, c: string) => {
      const v = field(c)
      if (v === undefined) return whole
      return noPad === '-' && /^[0 ]\d/.test(v) ? v.replace(/^[0 ]+(?=\d)/, '') : v
    })
  }

  return { dumps, strftime }
}

