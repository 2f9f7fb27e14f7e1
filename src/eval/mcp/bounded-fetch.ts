/**
 * A `fetch` for the SDK's streamable HTTP transport that bounds what a server can make the client hold: a JSON
 * response body, or one server-sent event of an SSE stream, larger than `maxBytes` errors the body as it is read
 * (before it is buffered whole), and `onOversize` says how much was read. Without it a 300 MB result is read into
 * memory and returned as a success, and an event that never ends is read until the string limit of V8.
 */

/** Why a response was cut: its declared length, or the bytes read before the limit was passed. */
export interface Oversize {
  limit: number
  /** Bytes read (or declared by Content-Length) when the body was stopped. */
  bytes: number
  what: 'response' | 'event'
}

export class OversizeError extends Error {
  constructor(readonly oversize: Oversize) {
    const what = oversize.what === 'event' ? 'one server-sent event' : 'the response body'
    super(`${what} is larger than maxResultBytes (${oversize.bytes} bytes read, the limit is ${oversize.limit})`)
    this.name = 'OversizeError'
  }
}

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>

export function boundedFetch(maxBytes: number, onOversize: (o: Oversize) => void, base: Fetch = fetch): Fetch {
  return async (url, init) => {
    const response = await base(url, init)
    // Redirects are the SDK's to follow (or not): their bodies are not read.
    if (response.body === null || (response.status >= 300 && response.status < 400)) return response
    const declared = Number(response.headers.get('content-length'))
    const sse = (response.headers.get('content-type') ?? '').includes('text/event-stream')
    if (!sse && Number.isFinite(declared) && declared > maxBytes) {
      const oversize: Oversize = { limit: maxBytes, bytes: declared, what: 'response' }
      onOversize(oversize)
      await response.body.cancel().catch(() => {})
      throw new OversizeError(oversize)
    }
    const body = response.body.pipeThrough(sse ? eventCounter(maxBytes, onOversize) : byteCounter(maxBytes, onOversize))
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}

function byteCounter(maxBytes: number, onOversize: (o: Oversize) => void): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0
  return new TransformStream({
    transform(chunk, controller) {
      bytes += chunk.byteLength
      if (bytes > maxBytes) return fail(controller, { limit: maxBytes, bytes, what: 'response' }, onOversize)
      controller.enqueue(chunk)
    },
  })
}

/** Counts the bytes of the current event: an event ends at a blank line (LF LF, CRLF CRLF or CR CR). */
function eventCounter(maxBytes: number, onOversize: (o: Oversize) => void): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0
  let lineStart = false
  let lastCR = false
  return new TransformStream({
    transform(chunk, controller) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i]!
        bytes++
        if (b === 10 || b === 13) {
          if (b === 10 && lastCR) {
            lastCR = false
            continue // the LF of a CRLF
          }
          if (lineStart) bytes = 0 // a blank line: the event ended
          lineStart = true
          lastCR = b === 13
        } else {
          lineStart = false
          lastCR = false
        }
        if (bytes > maxBytes) return fail(controller, { limit: maxBytes, bytes, what: 'event' }, onOversize)
      }
      controller.enqueue(chunk)
    },
  })
}

function fail(controller: TransformStreamDefaultController<Uint8Array>, oversize: Oversize, onOversize: (o: Oversize) => void): void {
  onOversize(oversize)
  controller.error(new OversizeError(oversize))
}
