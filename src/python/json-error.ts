/**
 * The message Python's `json.loads` raises for text it refuses (`Expecting value: line 1 column 5 (char 4)`), which
 * the leaderboard copies into score files when a function-calling result's arguments do not decode. One pass over the
 * text by code point (Python's string positions), following CPython's scanner: the first error it would meet.
 */

const MAX_NESTING = 900 // Python's scanner hits its recursion limit near here; deeper text gets no message

class JsonStop extends Error {
  constructor(
    readonly msg: string,
    readonly pos: number,
  ) {
    super(msg)
  }
}

const WS = new Set([' ', '\t', '\n', '\r'])
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/
const HEX4 = /^[0-9a-fA-F]{4}$/

/** Python's error message for `json.loads(text)`, or undefined when Python would accept the text. */
export function pythonJsonError(text: string): string | undefined {
  const cs = Array.from(text)
  try {
    new Scanner(cs).document()
    return undefined
  } catch (e) {
    if (!(e instanceof JsonStop)) throw e
    if (e.pos < 0) return undefined
    return `${e.msg}: ${location(cs, e.pos)}`
  }
}

function location(cs: string[], pos: number): string {
  let line = 1
  let lastNewline = -1
  for (let i = 0; i < pos && i < cs.length; i++) {
    if (cs[i] === '\n') {
      line++
      lastNewline = i
    }
  }
  return `line ${line} column ${pos - lastNewline} (char ${pos})`
}

class Scanner {
  constructor(private readonly cs: string[]) {}

  document(): void {
    let i = this.ws(0)
    i = this.value(i, 0)
    i = this.ws(i)
    if (i !== this.cs.length) throw new JsonStop('Extra data', i)
  }

  private ws(i: number): number {
    while (i < this.cs.length && WS.has(this.cs[i]!)) i++
    return i
  }

  private startsWith(i: number, word: string): boolean {
    return this.cs.slice(i, i + word.length).join('') === word
  }

  /** One value from `i`; the index after it. A value that cannot start here is "Expecting value". */
  private value(i: number, depth: number): number {
    if (depth > MAX_NESTING) throw new JsonStop('', -1)
    const c = this.cs[i]
    if (c === '"') return this.string(i + 1)
    if (c === '{') return this.object(i + 1, depth + 1)
    if (c === '[') return this.array(i + 1, depth + 1)
    for (const word of ['null', 'true', 'false', 'NaN', 'Infinity', '-Infinity']) {
      if (this.startsWith(i, word)) return i + word.length
    }
    // A number can only span number characters: match the pattern on that run alone.
    let end = i
    while (end < this.cs.length && /[-+.eE0-9]/.test(this.cs[end]!)) end++
    const m = NUMBER.exec(this.cs.slice(i, end).join(''))
    if (m) return i + m[0].length
    throw new JsonStop('Expecting value', i)
  }

  private string(begin: number): number {
    const cs = this.cs
    let i = begin
    for (;;) {
      if (i >= cs.length) throw new JsonStop('Unterminated string starting at', begin - 1)
      const c = cs[i]!
      if (c === '"') return i + 1
      if (c.codePointAt(0)! <= 0x1f) throw new JsonStop('Invalid control character at', i)
      if (c !== '\\') {
        i++
        continue
      }
      i++
      if (i >= cs.length) throw new JsonStop('Unterminated string starting at', begin - 1)
      const esc = cs[i]!
      if (esc === 'u') {
        if (!HEX4.test(cs.slice(i + 1, i + 5).join(''))) throw new JsonStop('Invalid \\uXXXX escape', i - 1)
        i += 5
      } else if ('"\\/bfnrt'.includes(esc)) i++
      else throw new JsonStop('Invalid \\escape', i - 1)
    }
  }

  private object(i: number, depth: number): number {
    i = this.ws(i)
    if (this.cs[i] === '}') return i + 1
    for (;;) {
      if (this.cs[i] !== '"') throw new JsonStop('Expecting property name enclosed in double quotes', i)
      i = this.ws(this.string(i + 1))
      if (this.cs[i] !== ':') throw new JsonStop("Expecting ':' delimiter", i)
      i = this.ws(this.value(this.ws(i + 1), depth))
      if (this.cs[i] === '}') return i + 1
      if (this.cs[i] !== ',') throw new JsonStop("Expecting ',' delimiter", i)
      i = this.ws(i + 1)
    }
  }

  private array(i: number, depth: number): number {
    i = this.ws(i)
    if (this.cs[i] === ']') return i + 1
    for (;;) {
      i = this.ws(this.value(i, depth))
      if (this.cs[i] === ']') return i + 1
      if (this.cs[i] !== ',') throw new JsonStop("Expecting ',' delimiter", i)
      i = this.ws(i + 1)
    }
  }
}
