/**
 * XML character references in text a format writes as XML (attribute values, element text): `&amp;`, `&lt;`,
 * `&gt;`, `&quot;`, `&apos;`, `&#NN;`, `&#xHH;`. Anything else after `&` is kept as written (a model's `&` in prose).
 */
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }
const REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6}));/g

/** `text` with its XML character references decoded (linear; the text itself when it holds no `&`). */
export function decodeXmlEntities(text: string): string {
  if (!text.includes('&')) return text
  return text.replace(REFERENCE, (whole, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (name !== undefined) return NAMED[name]!
    const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16)
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole
  })
}
