/**
 * Python's text functions that chat templates reach through Jinja (`str()`/`repr()`, `%`-formatting, `str.format`,
 * `round`, `str.strip(chars)`, `splitlines`, HTML escaping, URL quoting), written from Python's and Jinja's
 * documented behaviour. The renderer worker runs this function's source text (it is passed to the worker as text, so
 * it is self-contained: no imports, no outer names); `pythonJinja` (python-jinja.ts) uses what it returns. Values are
 * the engine's runtime values, read by their `type` only: nothing here constructs one. Nothing here evaluates text.
 */

/** A runtime value of `@huggingface/jinja`, as read here: its type name and its JavaScript value. */
export interface RuntimeLike {
  type: string
  value: unknown
}

export type PythonText = ReturnType<typeof pythonText>

export function pythonText() {
  // Python's str.isspace() characters (str.strip() and str.split() strip these; JavaScript's trim differs).
  const SPACE = '\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000'
  // str.splitlines() boundaries.
  const LINE_BREAKS = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g

  const fail = (message: string): never => {
    throw new Error(message)
  }

  /** repr() of a float: the shortest digits that read back, in Python's layout (`1e+16`, `1e-05`, `2.0`). */
  function floatRepr(x: number): string {
    if (Number.isNaN(x)) return 'nan'
    if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf'
    if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
    const [mantissa, exp] = x.toExponential().split('e') as [string, string]
    const e = Number(exp)
    const sign = mantissa.startsWith('-') ? '-' : ''
    const digits = mantissa.replace(/[-.]/g, '')
    if (e < -4 || e >= 16) {
      const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
      return `${sign}${m}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`
    }
    if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`
    const int = digits.length > e + 1 ? digits.slice(0, e + 1) : digits.padEnd(e + 1, '0')
    const frac = digits.slice(e + 1)
    return `${sign}${int}.${frac === '' ? '0' : frac}`
  }

  /** repr() of a string: single quotes unless it holds one and no double quote; unprintable characters escaped. */
  function strRepr(s: string): string {
    const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
    let out = quote
    for (const ch of s) {
      const code = ch.codePointAt(0)!
      if (ch === '\\' || ch === quote) out += '\\' + ch
      else if (ch === '\n') out += '\\n'
      else if (ch === '\r') out += '\\r'
      else if (ch === '\t') out += '\\t'
      else if (code < 0x20 || code === 0x7f) out += '\\x' + code.toString(16).padStart(2, '0')
      else if (ch !== ' ' && /[\p{C}\p{Z}]/u.test(ch)) {
        out += code <= 0xff ? '\\x' + code.toString(16).padStart(2, '0') : code <= 0xffff ? '\\u' + code.toString(16).padStart(4, '0') : '\\U' + code.toString(16).padStart(8, '0')
      } else out += ch
    }
    return out + quote
  }

  /** Python's repr() of a runtime value (lists and dicts as Python prints them, not as JSON). */
  function repr(v: RuntimeLike): string {
    switch (v.type) {
      case 'StringValue':
        return strRepr(v.value as string)
      case 'IntegerValue':
        return String(v.value)
      case 'FloatValue':
        return floatRepr(v.value as number)
      case 'BooleanValue':
        return v.value ? 'True' : 'False'
      case 'NullValue':
        return 'None'
      case 'UndefinedValue':
        return 'Undefined'
      case 'ArrayValue':
        return '[' + (v.value as RuntimeLike[]).map(repr).join(', ') + ']'
      case 'TupleValue': {
        const items = (v.value as RuntimeLike[]).map(repr)
        return '(' + items.join(', ') + (items.length === 1 ? ',)' : ')')
      }
      case 'ObjectValue':
      case 'KeywordArgumentsValue':
        // A dict literal's number keys are kept beside their text (python-jinja.ts): written as numbers.
        return '{' + [...(v.value as Map<string, RuntimeLike>)].map(([k, x]) => `${keyRepr(v, k)}: ${repr(x)}`).join(', ') + '}'
      case 'NamespaceValue':
        return '<Namespace {' + [...(v.value as Map<string, RuntimeLike>)].map(([k, x]) => `${strRepr(k)}: ${repr(x)}`).join(', ') + '}>'
      default:
        return `<${v.type}>`
    }
  }

  function keyRepr(dict: RuntimeLike, k: string): string {
    const kv = (dict as RuntimeLike & { keyValues?: Map<string, RuntimeLike> }).keyValues?.get(k)
    return kv === undefined ? strRepr(k) : repr(kv)
  }

  /** Python's str() of a runtime value. */
  function str(v: RuntimeLike): string {
    if (v.type === 'StringValue') return v.value as string
    if (v.type === 'UndefinedValue') return ''
    return repr(v)
  }

  function isNumber(v: RuntimeLike): boolean {
    return v.type === 'IntegerValue' || v.type === 'FloatValue' || v.type === 'BooleanValue'
  }
  function num(v: RuntimeLike): number {
    return v.type === 'BooleanValue' ? (v.value ? 1 : 0) : (v.value as number)
  }

  /** Python's ordering of two values (sorted(), min(), max()): numbers, strings, and lists/tuples element-wise. */
  function compare(a: RuntimeLike, b: RuntimeLike): number {
    if (isNumber(a) && isNumber(b)) return num(a) < num(b) ? -1 : num(a) > num(b) ? 1 : 0
    if (a.type === 'StringValue' && b.type === 'StringValue') {
      const x = a.value as string
      const y = b.value as string
      return x < y ? -1 : x > y ? 1 : 0
    }
    const seq = (t: string) => (t === 'ArrayValue' || t === 'TupleValue' ? t : undefined)
    if (seq(a.type) !== undefined && seq(a.type) === seq(b.type)) {
      const x = a.value as RuntimeLike[]
      const y = b.value as RuntimeLike[]
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compare(x[i]!, y[i]!)
        if (c !== 0) return c
      }
      return x.length - y.length
    }
    return fail(`'<' not supported between instances of ${pyType(a)} and ${pyType(b)}`)
  }

  function pyType(v: RuntimeLike): string {
    const names: Record<string, string> = {
      StringValue: 'str', IntegerValue: 'int', FloatValue: 'float', BooleanValue: 'bool', NullValue: 'NoneType',
      ArrayValue: 'list', TupleValue: 'tuple', ObjectValue: 'dict', KeywordArgumentsValue: 'dict', UndefinedValue: 'Undefined',
    }
    return `'${names[v.type] ?? v.type}'`
  }

  /**
   * Python's round(x, ndigits): the decimal nearest the float's exact value, ties to even, read back as a float.
   * (Jinja's `round` filter with its default method 'common' is exactly this.)
   */
  function round(x: number, ndigits: number): number {
    if (!Number.isFinite(x) || Math.abs(x) >= 2 ** 52 || ndigits > 20) return x
    if (ndigits < 0) {
      const scale = 10 ** -ndigits
      return round(x / scale, 0) * scale
    }
    // The exact decimal expansion of the double (its binary fraction ends within 100 digits for |x| >= 1e-47).
    const exact = Math.abs(x).toFixed(100)
    const point = exact.indexOf('.')
    const kept = exact.slice(0, point + 1 + ndigits)
    const rest = exact.slice(point + 1 + ndigits)
    const half = rest[0] === '5' && /^0*$/.test(rest.slice(1))
    const up = rest[0]! > '5' || (rest[0] === '5' && !half) || (half && Number(kept[kept.length - 1] === '.' ? kept[kept.length - 2] : kept[kept.length - 1]) % 2 === 1)
    let digits = kept.replace('.', '')
    if (up) {
      const arr = digits.split('')
      let i = arr.length - 1
      while (i >= 0 && arr[i] === '9') arr[i--] = '0'
      if (i < 0) arr.unshift('1')
      else arr[i] = String(Number(arr[i]) + 1)
      digits = arr.join('')
    }
    const intLen = digits.length - ndigits
    const value = Number(`${digits.slice(0, intLen)}.${digits.slice(intLen) || '0'}`)
    return x < 0 ? -value : value
  }

  /** str.strip/lstrip/rstrip: `chars` (or Python's whitespace) removed from the chosen ends. */
  function strip(s: string, chars: string | null, left: boolean, right: boolean): string {
    const set = chars ?? SPACE
    let start = 0
    let end = s.length
    if (left) while (start < end && set.includes(s[start]!)) start++
    if (right) while (end > start && set.includes(s[end - 1]!)) end--
    return s.slice(start, end)
  }

  /** str.splitlines(keepends). */
  function splitlines(s: string, keepends: boolean): string[] {
    const out: string[] = []
    let last = 0
    for (const m of s.matchAll(LINE_BREAKS)) {
      out.push(s.slice(last, keepends ? m.index + m[0].length : m.index))
      last = m.index + m[0].length
    }
    if (last < s.length) out.push(s.slice(last))
    return out
  }

  /** markupsafe.escape: `& < > ' "` as HTML entities. */
  function escapeHtml(s: string): string {
    return s.replace(/[&<>'"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', "'": '&#39;', '"': '&#34;' })[c]!)
  }

  /** urllib.parse.quote of the UTF-8 bytes; `forQuery`: nothing is safe beyond the unreserved set, spaces as `+`. */
  function urlQuote(s: string, forQuery: boolean): string {
    let out = ''
    for (const byte of new TextEncoder().encode(s)) {
      const c = String.fromCharCode(byte)
      if (/[A-Za-z0-9_.\-~]/.test(c) || (!forQuery && c === '/')) out += c
      else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0')
    }
    return forQuery ? out.replace(/%20/g, '+') : out
  }

  /** An integer or float as a format spec writes it: `[[fill]align][sign][#][0][width][,|_][.precision][type]`. */
  function formatSpec(v: RuntimeLike, spec: string): string {
    const m = /^(?:(.)?([<>=^]))?([-+ ])?(#)?(0)?(\d+)?([,_])?(?:\.(\d+))?([a-zA-Z%])?$/su.exec(spec)
    if (m === null) return fail(`Invalid format specifier '${spec}'`)
    const [, fillChar, alignChar, sign = '-', , zero, widthText, grouping, precisionText, type] = m
    const precision = precisionText === undefined ? undefined : Number(precisionText)
    let body: string
    let negative = false
    if (v.type === 'StringValue' || (type === undefined && !isNumber(v)) || type === 's') {
      if (type !== undefined && type !== 's') return fail(`Unknown format code '${type}' for object of type ${pyType(v)}`)
      if (v.type !== 'StringValue' && type === 's') return fail(`Unknown format code 's' for object of type ${pyType(v)}`)
      body = str(v)
      if (precision !== undefined) body = [...body].slice(0, precision).join('')
      return pad(body, '', fillChar, alignChar ?? '<', zero, widthText)
    }
    const x = num(v)
    negative = x < 0 || Object.is(x, -0)
    const a = Math.abs(x)
    const isInt = v.type !== 'FloatValue'
    switch (type ?? (isInt ? 'd' : '')) {
      case 'd':
        if (!isInt) return fail("Unknown format code 'd' for object of type 'float'")
        body = String(a)
        break
      case 'f':
      case 'F':
        body = a.toFixed(precision ?? 6)
        break
      case '%':
        body = (a * 100).toFixed(precision ?? 6) + '%'
        break
      case 'e':
      case 'E': {
        const [mant, ex] = a.toExponential(precision ?? 6).split('e') as [string, string]
        body = `${mant}e${Number(ex) < 0 ? '-' : '+'}${String(Math.abs(Number(ex))).padStart(2, '0')}`
        if (type === 'E') body = body.toUpperCase()
        break
      }
      case '':
        body = precision === undefined ? floatRepr(a) : fail(`format spec '${spec}' (precision without a type) is not supplied`)
        break
      default:
        return fail(`format code '${type}' is not supplied`)
    }
    if (grouping !== undefined) {
      const [int, frac] = body.split('.') as [string, string | undefined]
      body = int.replace(/\B(?=(\d{3})+(?!\d))/g, grouping) + (frac === undefined ? '' : '.' + frac)
    }
    const signText = negative ? '-' : sign === '+' ? '+' : sign === ' ' ? ' ' : ''
    return pad(body, signText, fillChar, alignChar ?? '>', zero, widthText)
  }

  function pad(body: string, signText: string, fillChar: string | undefined, align: string, zero: string | undefined, widthText: string | undefined): string {
    const width = widthText === undefined ? 0 : Number(widthText)
    const fill = fillChar ?? (zero !== undefined ? '0' : ' ')
    const alignment = fillChar === undefined && zero !== undefined ? '=' : align
    const room = width - [...body].length - signText.length
    if (room <= 0) return signText + body
    switch (alignment) {
      case '<':
        return signText + body + fill.repeat(room)
      case '^':
        return fill.repeat(room >> 1) + signText + body + fill.repeat(room - (room >> 1))
      case '=':
        return signText + fill.repeat(room) + body
      default:
        return fill.repeat(room) + signText + body
    }
  }

  /**
   * str.format(*args, **kwargs): `{}`, `{0}`, `{name}`, with `.attr`/`[key]` lookups (through `member`: `item` for
   * `[key]`), a
   * conversion (`!r`, `!s`) and a format spec; `{{`/`}}` are braces.
   */
  function strFormat(template: string, args: RuntimeLike[], kwargs: Map<string, RuntimeLike>, member: (v: RuntimeLike, key: string, item: boolean) => RuntimeLike): string {
    let auto = 0
    let numbering: 'automatic' | 'manual' | undefined
    let out = ''
    let i = 0
    while (i < template.length) {
      const c = template[i]!
      if (c === '}') {
        if (template[i + 1] !== '}') fail("Single '}' encountered in format string")
        out += '}'
        i += 2
        continue
      }
      if (c !== '{') {
        out += c
        i++
        continue
      }
      if (template[i + 1] === '{') {
        out += '{'
        i += 2
        continue
      }
      const close = template.indexOf('}', i)
      if (close < 0) fail("Single '{' encountered in format string")
      const field = template.slice(i + 1, close)
      i = close + 1
      const fm = /^([^.[!:]*)((?:\.[^.[!:]+|\[[^\]]+\])*)(?:!([rsa]))?(?::(.*))?$/s.exec(field)
      if (fm === null) return fail(`invalid format field '{${field}}'`)
      const [, head = '', path = '', conversion, spec = ''] = fm
      if (head === '' || /^\d+$/.test(head)) {
        const mode = head === '' ? 'automatic' : 'manual'
        if (numbering !== undefined && numbering !== mode) fail(`cannot switch from ${numbering} field numbering to ${mode} field specification`)
        numbering = mode
      }
      let value: RuntimeLike | undefined
      if (head === '') value = args[auto++]
      else if (/^\d+$/.test(head)) value = args[Number(head)]
      else value = kwargs.get(head) ?? fail(`KeyError: '${head}'`)
      if (value === undefined) return fail(`Replacement index ${head === '' ? auto - 1 : head} out of range for positional args tuple`)
      for (const step of path.matchAll(/\.([^.[]+)|\[([^\]]+)\]/g)) value = member(value, step[1] ?? step[2]!, step[1] === undefined)
      if (conversion === 'r' || conversion === 'a') value = { type: 'StringValue', value: repr(value) }
      else if (conversion === 's') value = { type: 'StringValue', value: str(value) }
      out += spec === '' ? str(value) : formatSpec(value, spec)
    }
    return out
  }

  /**
   * `template % args` (Python's printf-style formatting; Jinja's `format` filter). With a mapping (`%(key)s`), `args`
   * is the mapping itself as the one positional value, and unused arguments are no error, as in Python.
   */
  function printf(template: string, args: RuntimeLike[], mapping?: Map<string, RuntimeLike>): string {
    let next = 0
    const re = /%(?:\(([^)]*)\))?([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])/g
    let out = ''
    let last = 0
    const positional = (): RuntimeLike => args[next++] ?? fail('not enough arguments for format string')
    for (const m of template.matchAll(re)) {
      out += template.slice(last, m.index)
      last = m.index + m[0].length
      const [, key, flags = '', widthText, precisionText, conv] = m
      if (conv === '%') {
        out += '%'
        continue
      }
      if (widthText === '*' || precisionText === '*') fail("'*' width or precision in a format string is not supplied")
      const value = key !== undefined ? (mapping ?? fail('format requires a mapping')).get(key) ?? fail(`KeyError: '${key}'`) : positional()
      const precision = precisionText === undefined ? undefined : Number(precisionText)
      let body: string
      let negative = false
      switch (conv) {
        case 's':
          body = str(value)
          if (precision !== undefined) body = body.slice(0, precision)
          break
        case 'r':
        case 'a':
          body = repr(value)
          if (precision !== undefined) body = body.slice(0, precision)
          break
        case 'd':
        case 'i':
        case 'u': {
          if (!isNumber(value)) fail(`%${conv} format: a real number is required, not ${pyType(value).slice(1, -1)}`)
          const x = Math.trunc(num(value))
          negative = x < 0
          body = String(Math.abs(x))
          break
        }
        case 'f':
        case 'F':
        case 'e':
        case 'E': {
          if (!isNumber(value)) fail(`must be real number, not ${pyType(value).slice(1, -1)}`)
          const x = num(value)
          negative = x < 0
          if (conv === 'f' || conv === 'F') body = Math.abs(x).toFixed(precision ?? 6)
          else {
            const [mant, ex] = Math.abs(x).toExponential(precision ?? 6).split('e') as [string, string]
            body = `${mant}e${Number(ex) < 0 ? '-' : '+'}${String(Math.abs(Number(ex))).padStart(2, '0')}`
            if (conv === 'E') body = body.toUpperCase()
          }
          break
        }
        case 'x':
        case 'X':
        case 'o': {
          if (value.type !== 'IntegerValue' && value.type !== 'BooleanValue') fail(`%${conv} format: an integer is required, not ${pyType(value).slice(1, -1)}`)
          const x = num(value)
          negative = x < 0
          body = Math.abs(x).toString(conv === 'o' ? 8 : 16)
          if (conv === 'X') body = body.toUpperCase()
          if (flags.includes('#')) body = (conv === 'o' ? '0o' : conv === 'x' ? '0x' : '0X') + body
          break
        }
        default:
          return fail(`%${conv} in a format string is not supplied`)
      }
      const numeric = conv !== 's' && conv !== 'r' && conv !== 'a'
      const signText = negative ? '-' : numeric && flags.includes('+') ? '+' : numeric && flags.includes(' ') ? ' ' : ''
      const width = widthText === undefined ? 0 : Number(widthText)
      const room = width - body.length - signText.length
      if (room <= 0) out += signText + body
      else if (flags.includes('-')) out += signText + body + ' '.repeat(room)
      else if (numeric && flags.includes('0')) out += signText + '0'.repeat(room) + body
      else out += ' '.repeat(room) + signText + body
    }
    if (mapping === undefined && next < args.length) fail('not all arguments converted during string formatting')
    return out + template.slice(last)
  }

  /** Jinja's `truncate` filter (leeway 5, Jinja's default policy). */
  function truncate(s: string, length: number, killwords: boolean, end: string, leeway: number): string {
    if (length < end.length) fail(`expected length >= ${end.length}, got ${length}`)
    if (leeway < 0) fail(`expected leeway >= 0, got ${leeway}`)
    if (s.length <= length + leeway) return s
    if (killwords) return s.slice(0, length - end.length) + end
    const head = s.slice(0, length - end.length)
    const space = head.lastIndexOf(' ')
    return (space < 0 ? head : head.slice(0, space)) + end
  }

  /** Jinja's `wordcount`: runs of word characters (letters, digits, underscore). */
  function wordcount(s: string): number {
    return s.match(/[\p{L}\p{N}_]+/gu)?.length ?? 0
  }

  return { repr, str, compare, pyType, round, strip, splitlines, escapeHtml, urlQuote, strFormat, printf, truncate, wordcount, floatRepr }
}
