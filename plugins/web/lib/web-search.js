// @ts-check
import { deadline, readCapped, requestError, USER_AGENT } from './http.js';
import { inlineText } from './html.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/** Brave's web search endpoint; BRAVE_SEARCH_ENDPOINT replaces it (proxies, tests). */
export const BRAVE_ENDPOINT = 'https://api.search.brave.com/res/v1/web/search';
/** Results returned when the model gives no `count`. */
export const DEFAULT_COUNT = 5;
/** Brave's own ceiling for `count` on the web endpoint. */
export const MAX_COUNT = 20;
/** How long a search may take. */
export const SEARCH_TIMEOUT_MS = 15_000;
/** A search response larger than this is not a real one. */
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

/**
 * One search hit as returned to the model.
 * @typedef {{ title: string, url: string, snippet: string, age?: string }} SearchResult
 */

/** The endpoint URL to call: BRAVE_SEARCH_ENDPOINT when set, else Brave's. */
function endpoint(/** @type {ToolContext} */ ctx) {
  const configured = ctx.env?.BRAVE_SEARCH_ENDPOINT || BRAVE_ENDPOINT;
  let url;
  try {
    url = new URL(configured);
  } catch {
    throw new Error(`BRAVE_SEARCH_ENDPOINT (${configured}) is not a valid URL; the operator must fix or unset it.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error('BRAVE_SEARCH_ENDPOINT must be an http:// or https:// URL; the operator must fix or unset it.');
  }
  return url;
}

/** Brave's own explanation from an error body (`{ error: { detail } }`), if it sent one. */
function errorDetail(/** @type {string} */ body) {
  try {
    const parsed = JSON.parse(body);
    const detail = parsed?.error?.detail ?? parsed?.message;
    return typeof detail === 'string' ? detail : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Seconds until the exhausted rate-limit window resets. Brave sends one value per
 * window (per second, per month…) in X-RateLimit-Remaining and X-RateLimit-Reset;
 * the window with nothing remaining is the one that matters.
 */
export function secondsUntilReset(/** @type {Headers} */ headers) {
  const list = (/** @type {string} */ name) =>
    (headers.get(name) ?? '').split(',').map((v) => Number.parseInt(v.trim(), 10));
  const resets = list('x-ratelimit-reset');
  const remaining = list('x-ratelimit-remaining');
  const exhausted = remaining.indexOf(0);
  const reset = resets[exhausted === -1 ? 0 : exhausted];
  if (reset !== undefined && Number.isFinite(reset)) return reset;
  const retryAfter = Number.parseInt(headers.get('retry-after') ?? '', 10);
  return Number.isFinite(retryAfter) ? retryAfter : undefined;
}

/** Turns a non-2xx Brave response into a message that says what to do next. */
export function httpError(/** @type {number} */ status, /** @type {string} */ body, /** @type {Headers} */ headers) {
  const detail = errorDetail(body);
  const suffix = detail ? ` Brave says: ${detail}` : '';
  if (status === 401 || status === 403) {
    return new Error(
      `Brave Search rejected the API key (HTTP ${status}). The operator must check BRAVE_API_KEY.${suffix}`,
    );
  }
  if (status === 429) {
    const reset = secondsUntilReset(headers);
    const when = reset !== undefined ? `Try again in ${reset} s.` : 'Wait a moment before searching again.';
    return new Error(`Brave Search rate limit or quota reached (HTTP 429). ${when}${suffix}`);
  }
  if (status >= 500) {
    return new Error(`Brave Search is unavailable right now (HTTP ${status}). Try again shortly.${suffix}`);
  }
  if (status === 400 || status === 422) {
    return new Error(`Brave Search rejected the request (HTTP ${status}); try a shorter or simpler query.${suffix}`);
  }
  return new Error(`Brave Search answered HTTP ${status}.${suffix}`);
}

/** Picks the useful fields out of Brave's `web.results`, with HTML markup removed from the text. */
export function parseResults(/** @type {any} */ data) {
  const results = Array.isArray(data?.web?.results) ? data.web.results : [];
  /** @type {SearchResult[]} */
  const out = [];
  for (const r of results) {
    if (typeof r?.url !== 'string') continue;
    /** @type {SearchResult} */
    const item = {
      title: inlineText(String(r.title ?? '')),
      url: r.url,
      snippet: inlineText(String(r.description ?? '')),
    };
    if (typeof r.age === 'string' && r.age !== '') item.age = r.age;
    out.push(item);
  }
  return out;
}

/**
 * @param {{ query: string, count?: number }} args
 * @param {ToolContext} ctx
 */
async function webSearch(args, ctx) {
  const key = ctx.env?.BRAVE_API_KEY;
  if (!key) throw new Error('BRAVE_API_KEY is not set, so web_search cannot run; the operator must grant it.');
  const url = endpoint(ctx);
  const count = Math.min(args.count ?? DEFAULT_COUNT, MAX_COUNT);
  url.searchParams.set('q', args.query);
  url.searchParams.set('count', String(count));

  const limit = deadline(ctx.signal, SEARCH_TIMEOUT_MS);
  let response;
  let text;
  try {
    response = await fetch(url, {
      signal: limit.signal,
      headers: { Accept: 'application/json', 'X-Subscription-Token': key, 'User-Agent': USER_AGENT },
    });
    text = (await readCapped(response, MAX_RESPONSE_BYTES)).bytes.toString('utf8');
  } catch (err) {
    throw requestError(err, 'Brave Search', limit, SEARCH_TIMEOUT_MS);
  }
  if (!response.ok) throw httpError(response.status, text, response.headers);

  let data;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(`Brave Search sent a response that is not JSON (HTTP ${response.status}); try again shortly.`);
  }
  const results = parseResults(data);
  return {
    query: args.query,
    results,
    ...(results.length === 0 ? { note: 'No results. Try fewer or different words.' } : {}),
  };
}

/** The `web_search` tool: web search through the Brave Search API. */
export const webSearchTool = {
  name: 'web_search',
  toolset: 'web',
  description: [
    'Search the web (Brave Search) and return {query, results: [{title, url, snippet, age?}]}, best match first. ' +
      'Use it to find pages, current facts and documentation.',
    { ifAvailable: ['web_fetch'], text: 'To read a result in full, pass its url to web_fetch.' },
  ],
  parameters: {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        minLength: 1,
        maxLength: 400,
        description: 'What to search for, as you would type it into a search engine.',
      },
      count: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_COUNT,
        description: `How many results to return (default ${DEFAULT_COUNT}, at most ${MAX_COUNT}).`,
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  // What webSearch returns: execute_code types `tools.web_search()` by it, and MCP clients get it as structuredContent.
  outputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      results: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            title: { type: 'string' },
            url: { type: 'string' },
            snippet: { type: 'string' },
            age: { type: 'string' },
          },
          required: ['title', 'url', 'snippet'],
        },
      },
      note: { type: 'string', description: 'Present when there are no results.' },
    },
    required: ['query', 'results'],
  },
  title: 'Web search',
  examples: [{ query: 'node.js worker_threads resourceLimits' }, { query: 'MCP structuredContent', count: 3 }],
  requires: { env: ['BRAVE_API_KEY'] },
  limits: { timeoutMs: SEARCH_TIMEOUT_MS + 5_000 },
  codeCallable: true,
  annotations: { readOnlyHint: true, openWorldHint: true },
  handler: webSearch,
};
