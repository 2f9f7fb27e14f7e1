/**
 * BFCL v4's web-search tools (gorilla 8db0b7ca, `func_source_code/web_search.py`, `WebSearchAPI`) over a pluggable
 * backend, so that no test searches the live web:
 *
 * - `search_engine_query(keywords, max_results=10, region="wt-wt")`: BFCL asks SerpAPI's DuckDuckGo engine; here the
 *   backend answers with what SerpAPI answered (its response object: `organic_results` with `title`, `link`,
 *   `snippet`), and BFCL's own shaping follows: at most `max_results` hits as `{title, href, body}` (no `body` in
 *   `web_search_no_snippet`), written back as Python's `str()` of the list; a response without `organic_results`
 *   gives BFCL's "Failed to retrieve..." error; a backend that throws gives `{"error": <its message>}`.
 * - `fetch_url_content(url, mode="raw")`: BFCL downloads the page and converts it (`raw`; `markdown` by html2text;
 *   `truncate` by BeautifulSoup's text). Those converters are Python libraries: the backend gives the page's text in
 *   the mode asked for. A URL that is not http(s) raises as BFCL's does; a backend that throws gives BFCL's
 *   `{"error": "An error occurred while fetching <url>: <message>"}`; another mode gives BFCL's "Unsupported mode".
 *
 * A recorded backend (`recordedWebSearch`) answers from a file the user recorded once; a query or page it lacks is
 * no answer at all: it stops the entry (an inference error), never a silently different tool result.
 */
import { readFileSync } from 'node:fs'
import { opt } from '../multi-turn/api.js'
import { PyExc, str, typeName, type Val } from '../../python/runtime.js'
import { sliceTo, type AgenticApi, type AgenticMethod } from './executor.js'

/** SerpAPI's response to one query, as its `get_dict()` gives it. */
export type SerpResponse = Record<string, unknown>

export interface WebSearchBackend {
  /** SerpAPI's response for `keywords` in `region` (throw to report SerpAPI's error). */
  search(keywords: string, region: string): SerpResponse | Promise<SerpResponse>
  /** The page's content in `mode` (`raw`, `markdown` or `truncate`); throw to report the fetch's error. */
  fetch(url: string, mode: 'raw' | 'markdown' | 'truncate'): string | Promise<string>
}

/** The error a recorded backend throws for what it lacks: it ends the entry instead of reaching the model. */
export class NotRecordedError extends Error {}

/**
 * The recorded-results file: `{"search": {"<region>": {"<keywords>": <SerpAPI response>}}, "fetch": {"<url>":
 * {"raw": "...", "markdown": "...", "truncate": "..."} or {"error": "<message>"}}}`. A search recorded as
 * `{"error": "<message>"}` is SerpAPI's exception.
 */
export interface RecordedWebSearch {
  search?: Record<string, Record<string, SerpResponse>>
  fetch?: Record<string, Record<string, string>>
}

export function recordedWebSearch(recorded: RecordedWebSearch, where = 'the recorded web-search results'): WebSearchBackend {
  return {
    search(keywords, region) {
      const r = recorded.search?.[region]
      if (r === undefined || !Object.hasOwn(r, keywords)) throw new NotRecordedError(`${where}: no search for ${JSON.stringify(keywords)} in region ${JSON.stringify(region)}`)
      const response = r[keywords]!
      // SerpAPI's exception, recorded: BFCL returns its message as the tool's error.
      if (Object.keys(response).length === 1 && typeof response['error'] === 'string') throw new Error(response['error'])
      return response
    },
    fetch(url, mode) {
      const page = recorded.fetch?.[url]
      if (page === undefined) throw new NotRecordedError(`${where}: no page for ${JSON.stringify(url)}`)
      if (typeof page['error'] === 'string') throw new Error(page['error'])
      const text = page[mode]
      if (typeof text !== 'string') throw new NotRecordedError(`${where}: no ${mode} content for ${JSON.stringify(url)}`)
      return text
    },
  }
}

export function loadRecordedWebSearch(file: string): WebSearchBackend {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${file}: the recorded web-search results must be a JSON object with "search" and "fetch"`)
  return recordedWebSearch(parsed as RecordedWebSearch, file)
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e))
const FAILED = 'Failed to retrieve the search results from server. Please try again later.'

/** `WebSearchAPI` with `show_snippet` as BFCL's loader sets it (`False` in `web_search_no_snippet`). */
export class WebSearchApi implements AgenticApi {
  readonly className = 'WebSearchAPI'
  constructor(
    private readonly backend: WebSearchBackend,
    private readonly showSnippet: boolean,
  ) {}

  methods(): Record<string, AgenticMethod> {
    return {
      fetch_url_content: { params: ['url', opt('mode', 'raw')], call: ([url, mode]) => this.fetchUrl(url!, mode!) },
      search_engine_query: { params: ['keywords', opt('max_results', 10), opt('region', 'wt-wt')], call: ([k, n, r]) => this.search(k!, n!, r!) },
    }
  }

  private async search(keywords: Val, maxResults: Val, region: Val): Promise<Val> {
    let response: SerpResponse
    try {
      response = await this.backend.search(str(keywords), str(region))
    } catch (e) {
      if (e instanceof NotRecordedError) throw e
      return new Map([['error', message(e)]])
    }
    const hits = response['organic_results']
    if (!Object.hasOwn(response, 'organic_results')) return new Map([['error', FAILED]])
    if (!Array.isArray(hits)) throw new PyExc(`'${typeof hits === 'string' ? 'str' : 'object'}' object is not subscriptable`)
    return sliceTo(hits, maxResults).map((h) => {
      const hit = (h ?? {}) as Record<string, unknown>
      const field = (k: string): string => {
        if (!Object.hasOwn(hit, k)) throw new PyExc(`'${k}'`)
        return String(hit[k])
      }
      const out = new Map<string, Val>([['title', field('title')], ['href', field('link')]])
      if (this.showSnippet) out.set('body', field('snippet'))
      return out
    })
  }

  private async fetchUrl(url: Val, mode: Val): Promise<Val> {
    if (typeof url !== 'string') throw new PyExc(`'${typeName(url)}' object has no attribute 'startswith'`)
    if (!url.startsWith('http://') && !url.startsWith('https://')) throw new PyExc(`Invalid URL: ${url}`)
    const known = mode === 'raw' || mode === 'markdown' || mode === 'truncate'
    try {
      // BFCL downloads first and looks at the mode after: an unknown mode still needs the page.
      const content = await this.backend.fetch(url, known ? mode : 'raw')
      if (!known) return new Map([['error', `An error occurred while fetching ${url}: Unsupported mode: ${str(mode)}`]])
      return new Map([['content', content]])
    } catch (e) {
      if (e instanceof NotRecordedError) throw e
      return new Map([['error', `An error occurred while fetching ${url}: ${message(e)}`]])
    }
  }
}
