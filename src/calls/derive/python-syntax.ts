/**
 * Python's Jinja syntax that `@huggingface/jinja`'s lexer or parser refuses, rewritten into what it reads, for
 * python-jinja.ts: `{% raw %}` (before the lexer), `{% do X %}` and tests with arguments (in its tokens). Each
 * rewrite targets a name python-jinja.ts supplies (`names`).
 *
 * Like python-jinja.ts, this function runs in the renderer worker from its source text: self-contained.
 */
type Token = { type: string; value: string }

export type PythonSyntax = ReturnType<typeof pythonSyntax>

export function pythonSyntax(names: { DO: string; TEST: string; TEST_NOT: string }) {
  const { DO, TEST, TEST_NOT } = names

  /**
   * `X is NAME(args)` (a test with arguments, which the engine's parser refuses) as `X | TEST('NAME', args)`: a
   * filter on the same operand, since the engine's tests apply to what its filters give.
   */
  function rewriteTests(tokens: Token[]): Token[] {
    const out: Token[] = []
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!
      const negate = tokens[i + 1]?.type === 'Identifier' && tokens[i + 1]!.value === 'not'
      const name = tokens[i + (negate ? 2 : 1)]
      const open = tokens[i + (negate ? 3 : 2)]
      if (t.type === 'Identifier' && t.value === 'is' && name?.type === 'Identifier' && open?.type === 'OpenParen') {
        out.push({ type: 'Pipe', value: '|' }, { type: 'Identifier', value: negate ? TEST_NOT : TEST }, open, { type: 'StringLiteral', value: name.value })
        if (tokens[i + (negate ? 4 : 3)]?.type !== 'CloseParen') out.push({ type: 'Comma', value: ',' })
        i += negate ? 3 : 2
        continue
      }
      out.push(t)
    }
    return out
  }

  /**
   * `{% raw %}...{% endraw %}` as an `{% if true %}` block around the text as a string literal: the block tags keep
   * their whitespace control (`-`, lstrip_blocks, trim_blocks), and the text is written as it is, as in Python,
   * with lstrip_blocks applied before `{% endraw %}`.
   */
  function rewriteRaw(source: string): string {
    return source.replace(/\{%(-?)\s*raw\s*(-?)%\}([\s\S]*?)\{%(-?)\s*endraw\s*(-?)%\}/g, (_m, a: string, b: string, text: string, c: string, d: string) => {
      let body = c === '-' ? text.trimEnd() : text.replace(/\n[ \t]+$/, '\n')
      if (b === '-') body = body.trimStart()
      const literal = body.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')
      return `{%${a} if true %}{{ '${literal}' }}{% endif ${d}%}`
    })
  }

  /** `{% do X %}` as `{{ DO(X) }}`, in the engine's tokens. */
  function rewriteDo(tokens: Token[]): Token[] {
    const out: Token[] = []
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!
      if (t.type === 'OpenStatement' && tokens[i + 1]?.type === 'Identifier' && tokens[i + 1]!.value === 'do') {
        let end = i + 2
        while (end < tokens.length && tokens[end]!.type !== 'CloseStatement') end++
        if (end > i + 2 && end < tokens.length) {
          out.push({ type: 'OpenExpression', value: '{{' }, { type: 'Identifier', value: DO }, { type: 'OpenParen', value: '(' }, ...tokens.slice(i + 2, end), { type: 'CloseParen', value: ')' }, { type: 'CloseExpression', value: '}}' })
          i = end
          continue
        }
      }
      out.push(t)
    }
    return out
  }

  return { rewriteRaw, rewriteDo, rewriteTests }
}
