/**
 * The one scrubber for secrets (API keys, `HF_TOKEN`) in text that came from a server or an error: every place that
 * builds a message from a response scrubs with it, whole, before anything is cut, logged or stored, and a successful
 * reply is scrubbed whole (`scrubDeep`) where it is decoded, by the one code that holds the secret, so nothing
 * downstream (parsing, scoring, caches, recordings, task meta, reports, BFCL files) ever sees it. It lives in
 * `data/`, the lowest layer that holds a secret; `models/` uses it too.
 */

/** What replaces a secret. */
export const REDACTED = '***'

/** A tail this long that begins a spelling of the secret is scrubbed at a cut (shorter ones reveal too little). */
const MIN_SECRET_PREFIX = 6
/** Derived spellings shorter than this are not searched for: they would match ordinary text and hide little. */
const MIN_DERIVED_FORM = 6

/**
 * The characters of `bytes` inside a base64 stream that start `offset` bytes (0, 1 or 2) into a 3-byte group: those
 * that depend on `bytes` alone, without the neighbours' bits at either edge or the padding.
 */
function base64Core(bytes: Buffer, offset: number, alphabet: 'base64' | 'base64url'): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(alphabet)
  const first = Math.ceil((8 * offset) / 6)
  const end = Math.floor((8 * (offset + bytes.length)) / 6)
  return encoded.slice(first, end)
}

/**
 * Every spelling of `secret` a server might echo: raw, JSON-escaped, URL-encoded (`%20` and `+` for spaces), hex
 * (lower and upper case), and base64 (standard and URL-safe) at each of the three alignments it can have inside a
 * longer base64 stream; each for the secret alone and for the whole `Bearer <secret>` header. Longest first.
 */
export function secretForms(secret: string): string[] {
  if (secret === '') return []
  const forms = new Set<string>([secret])
  for (const value of [`Bearer ${secret}`, secret]) {
    const bytes = Buffer.from(value, 'utf8')
    const derived = [
      value,
      JSON.stringify(value).slice(1, -1),
      encodeURIComponent(value),
      encodeURIComponent(value).replace(/%20/g, '+'),
      bytes.toString('hex'),
      bytes.toString('hex').toUpperCase(),
    ]
    for (const offset of [0, 1, 2]) derived.push(base64Core(bytes, offset, 'base64'), base64Core(bytes, offset, 'base64url'))
    for (const form of derived) if (form.length >= MIN_DERIVED_FORM) forms.add(form)
  }
  // Longest first, so `Bearer <secret>` goes before the secret inside it.
  return [...forms].sort((a, b) => b.length - a.length)
}

/** The secrets to scrub, as given: one, several, or none. */
export type Secrets = string | readonly (string | undefined)[] | undefined

function secretList(secrets: Secrets): string[] {
  const list = typeof secrets === 'string' ? [secrets] : (secrets ?? [])
  return list.filter((s): s is string => typeof s === 'string' && s !== '')
}

/** `text` with every spelling of each secret (see secretForms) replaced by `***`. */
export function scrub(text: string, secrets: Secrets): string {
  return scrubberFor(secrets)(text)
}

/** `scrub` for fixed secrets, their spellings computed once (for scrubbing many strings, as `scrubDeep` does). */
export function scrubberFor(secrets: Secrets): (text: string) => string {
  const forms = secretList(secrets).flatMap(secretForms)
  if (forms.length === 0) return (text) => text
  return (text) => {
    let out = text
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED)
    return out
  }
}

/**
 * Secrets shorter than this are not looked for in a successful reply: they are placeholders (vLLM's `EMPTY`, `x`),
 * and scrubbing them would change ordinary words of the model's output. Real keys and tokens are far longer.
 */
export const MIN_REPLY_SECRET = 8

/**
 * A decoded JSON value (a server's successful reply, a data row) with every string in it scrubbed, object keys
 * included, in place; returns it. Strings that hold JSON (call arguments) are covered by the JSON-escaped spelling.
 * Secrets under MIN_REPLY_SECRET characters are left alone. Iterative: a reply nested 100,000 levels deep is walked
 * without recursion.
 */
export function scrubDeep<T>(value: T, secrets: Secrets): T {
  const long = secretList(secrets).filter((s) => s.length >= MIN_REPLY_SECRET)
  if (long.length === 0) return value
  const clean = scrubberFor(long)
  if (typeof value === 'string') return clean(value) as T
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const node = stack.pop()
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i]
        if (typeof v === 'string') node[i] = clean(v)
        else if (typeof v === 'object' && v !== null) stack.push(v)
      }
    } else if (typeof node === 'object' && node !== null) {
      const record = node as Record<string, unknown>
      const keys = Object.keys(record)
      const renamed = keys.some((k) => clean(k) !== k)
      const entries = keys.map((k) => [renamed ? clean(k) : k, record[k]] as const)
      // A key that held a secret is renamed: the object is rebuilt in order, every key an own data property
      // (`__proto__` included, as the JSON decoder made it).
      if (renamed) for (const k of keys) delete record[k]
      for (const [k, v] of entries) {
        const next = typeof v === 'string' ? clean(v) : v
        if (renamed || next !== v) Object.defineProperty(record, k, { value: next, enumerable: true, writable: true, configurable: true })
        if (typeof next === 'object' && next !== null) stack.push(next)
      }
    }
  }
  return value
}

/** `text` with a tail that is a prefix (6+ characters) of any spelling of a secret replaced by `***`. */
export function scrubCutTail(text: string, secrets: Secrets): string {
  let end = text.length
  for (const secret of secretList(secrets)) {
    for (const form of secretForms(secret)) {
      for (let n = Math.min(form.length - 1, text.length); n >= MIN_SECRET_PREFIX; n--) {
        if (text.endsWith(form.slice(0, n))) {
          end = Math.min(end, text.length - n)
          break
        }
      }
    }
  }
  return end === text.length ? text : `${text.slice(0, end)}${REDACTED}`
}

/**
 * A server's text made safe to show: scrubbed whole, trimmed, cut to `max` characters (`…` marks a cut), and a tail
 * that begins a spelling of a secret scrubbed too, since the server may have cut the secret itself.
 */
export function clip(text: string, max: number, secrets: Secrets): string {
  const t = scrub(text, secrets).trim()
  if (t.length <= max) return scrubCutTail(t, secrets)
  return `${scrubCutTail(t.slice(0, max), secrets)}…`
}

/** An Error whose message (and stack) no longer holds a secret; an abort stays recognisable as one. */
export function scrubbedError(err: unknown, secrets: Secrets): Error {
  const message = err instanceof Error ? err.message : String(err)
  if (secretList(secrets).length === 0) return err instanceof Error ? err : new Error(message)
  const clean = new Error(scrub(message, secrets))
  if (err instanceof Error && err.name === 'AbortError') clean.name = 'AbortError'
  // A provider's error may say how many requests it retried (the report counts them): keep that, it is no secret.
  const retries = (err as { retries?: unknown } | null)?.retries
  return typeof retries === 'number' ? Object.assign(clean, { retries }) : clean
}
