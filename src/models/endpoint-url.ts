/** The URL a request goes to under an OpenAI-compatible base URL, and what a 404 from it tells the user. */

/** `path` appended to the base URL's path; its query (`?api-version=...`, as Azure-style gateways need) is kept after it. */
export function endpointUrl(base: string, path: string): URL {
  const url = new URL(base)
  let end = url.pathname.length
  while (end > 0 && url.pathname[end - 1] === '/') end--
  url.pathname = `${url.pathname.slice(0, end)}/${path}`
  url.hash = ''
  return url
}

/**
 * What a 404 of `endpoint` (`endpointUrl(base, path)`) asked for, without credentials or query, and, when the base URL has no version segment, that
 * OpenAI-compatible servers (vLLM, SGLang, llama.cpp, Ollama) serve the API under `/v1`.
 */
export function notFoundHint(endpoint: URL, path: string): string {
  const asked = new URL(endpoint.href)
  asked.username = ''
  asked.password = ''
  asked.search = ''
  const base = asked.href.slice(0, asked.href.length - `/${path}`.length)
  const versioned = /\/v\d+(\/|$)/.test(new URL(base).pathname)
  const v1 = versioned ? '' : `; OpenAI-compatible servers serve it under /v1: did you mean baseURL '${base}/v1'?`
  return ` (POST ${asked.href}${v1})`
}
