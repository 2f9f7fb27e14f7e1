// Decoding replies under BFCL's return formats: values as Python's ElementTree, int(), float() and literal_eval give
// them (expected values checked with gorilla's parser/xml_parser.py under Python 3.11), failures as failures, and
// XML the project's reader does not read marked unsupported rather than decoded.
import { describe, expect, test } from 'vitest'
import { decodeFormatted } from '../../../src/bfcl/checker/format-decode.js'
import { PyFloat, toPlain } from '../../../src/python/operations.js'

const plain = (r: ReturnType<typeof decodeFormatted>) => (r.ok ? r.decoded.map(toPlain) : r)

describe('format decoders', () => {
  test('concise XML: int() with underscores and spaces, float(), booleans, literal_eval, entities', () => {
    const r = decodeFormatted('<functions><function name="f"><param name="a" type="integer"> 4_0 </param><param name="b" type="float">1e3</param><param name="c" type="boolean">True</param><param name="d" type="array">[1, \'a\']</param><param name="e" type="string">x &amp; &lt;y&gt; &#233;</param></function></functions>', 'concise_xml', false)
    expect(plain(r)).toEqual([{ f: { a: 40, b: 1000, c: true, d: [1, 'a'], e: 'x & <y> é' } }])
    expect(r.ok && (r.decoded[0] as Map<string, Map<string, unknown>>).get('f')!.get('b')).toBeInstanceOf(PyFloat)
  })
  test('verbose XML: attribute values normalised (a tab is a space, &#10; a newline), params container or not', () => {
    const r = decodeFormatted('<functions><function name="f"><params><param name="a" value="a&#10;b\tc" type="string"/><param name="n" value=" -7 " type="integer"/></params></function><function name="g"><param name="z" value="inf" type="float"/></function></functions>', 'verbose_xml', false)
    expect(plain(r)).toEqual([{ f: { a: 'a\nb c', n: -7 } }, { g: { z: Infinity } }])
  })
  test('failures: a mismatched tag, int() of hex, an undefined entity, a missing tag', () => {
    expect(decodeFormatted('<functions><function name="f"></functions>', 'concise_xml', false).ok).toBe(false)
    expect(decodeFormatted('<functions><function name="f"><param name="a" type="integer">0x10</param></function></functions>', 'concise_xml', false)).toMatchObject({ ok: false, error: "invalid literal for int() with base 10: '0x10'" })
    expect(decodeFormatted('<functions><function name="f"><param name="a" type="string">&nbsp;</param></function></functions>', 'concise_xml', false)).toMatchObject({ ok: false })
    expect(decodeFormatted('[f(a=1)]', 'python', true)).toMatchObject({ ok: false, error: expect.stringContaining('No tool call tag found') })
  })
  test('XML with a comment is unsupported, not decoded', () => {
    expect(decodeFormatted('<functions><!-- x --><function name="f"/></functions>', 'verbose_xml', false)).toMatchObject({ ok: false, unsupported: true })
  })
  test('JSON: the bracketed run in a fenced block; text that is not JSON is no call; the <TOOLCALL> section', () => {
    expect(plain(decodeFormatted('```json\n[{"function": "f", "parameters": {"a": 1.0}}]\n```', 'json', false))).toEqual([{ f: { a: 1 } }])
    expect(plain(decodeFormatted('I cannot.', 'json', false))).toEqual([])
    expect(plain(decodeFormatted('<TOOLCALL>[g(x=\'y\')]</TOOLCALL>', 'python', true))).toEqual([{ g: { x: 'y' } }])
  })
})
