/**
 * What a thrown value says, as text, without ever throwing: code that catches anything (a tool's exception, a
 * checker's overflow) must not fail again while describing it. A value's own `message`, `name` or `toString` may be
 * a getter or method that throws, or a Proxy may trap every access; each step falls back to a plainer one.
 */

const UNPRINTABLE = 'a thrown value that cannot be printed'

/** The message of an Error, otherwise `String(value)`. */
export function thrownMessage(value: unknown): string {
  return attempt(value, () => {
    if (value instanceof Error) {
      const message: unknown = value.message
      if (typeof message === 'string') return message
    }
    return String(value)
  })
}

/** `Name: message` for an Error (`RangeError: Maximum call stack size exceeded`), otherwise `String(value)`. */
export function describeThrown(value: unknown): string {
  return attempt(value, () => {
    if (value instanceof Error) {
      const name: unknown = value.name
      const message = thrownMessage(value)
      return typeof name === 'string' && name !== '' ? `${name}: ${message}` : message
    }
    return String(value)
  })
}

function attempt(value: unknown, describe: () => string): string {
  try {
    const text: unknown = describe()
    if (typeof text === 'string') return text
  } catch {
    // fall through to a plainer description
  }
  try {
    // `[object Object]`: reads only Symbol.toStringTag, which a Proxy may still trap.
    return Object.prototype.toString.call(value)
  } catch {
    return UNPRINTABLE
  }
}
