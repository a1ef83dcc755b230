// @ts-check
import { fetch } from 'undici';
import { ALLOW_ENV, checkLiteralHost, guardedDispatcher, parseAllowed } from './address-guard.js';
import { charsetOf, decode, deadline, mediaType, readCapped, requestError, USER_AGENT } from './http.js';
import { htmlTitle, htmlToText, metaCharset } from './html.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/** Characters of content returned when the model gives no `maxChars`. */
export const DEFAULT_MAX_CHARS = 20_000;
/** Most characters one call may return. */
export const MAX_CHARS = 100_000;
/** Raw bytes read at most; HTML shrinks a lot when turned into text, so it gets this much room. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** How long a fetch may take, headers and body together. */
export const FETCH_TIMEOUT_MS = 30_000;

/** Redirects followed at most (what browsers and fetch allow). */
export const MAX_REDIRECTS = 20;

/** Media types that are text even though they are not text/*. */
const TEXTUAL_APPLICATION =
  'json|xml|javascript|ecmascript|x-javascript|x-ndjson|ld\\+json|yaml|x-yaml|toml|x-sh|graphql|sql|csv';
const TEXTUAL = new RegExp(`^(application\\/(${TEXTUAL_APPLICATION})|image\\/svg\\+xml)$|\\+(json|xml)$`);

/** How a body should be shown, judged from its media type; 'sniff' when the type says nothing. */
function kindOfType(/** @type {string} */ type) {
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type.startsWith('text/') || TEXTUAL.test(type)) return 'text';
  if (type === '' || type === 'application/octet-stream') return 'sniff';
  return 'binary';
}

/** How an untyped body should be shown, judged from its first bytes. */
function kindOfBytes(/** @type {Buffer} */ head) {
  if (head.includes(0)) return 'binary';
  return /^\s*(<!doctype html|<html)/i.test(head.subarray(0, 512).toString('latin1')) ? 'html' : 'text';
}

/**
 * GETs `url`, following redirects one by one so that every hop's address is
 * checked (a literal here, a name when it resolves, in the dispatcher).
 * @param {URL} url
 * @param {ReturnType<typeof parseAllowed>} allowed
 * @param {string | undefined} allowEnv
 * @param {AbortSignal} signal
 * @returns {Promise<{ response: import('undici').Response, url: URL }>}
 */
async function fetchFollowing(url, allowed, allowEnv, signal) {
  const dispatcher = guardedDispatcher(allowEnv);
  let current = url;
  for (let hop = 0; ; hop++) {
    const response = await fetch(current, {
      redirect: 'manual',
      signal,
      dispatcher,
      headers: {
        'User-Agent': USER_AGENT,
        Accept: 'text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5',
      },
    });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) return { response, url: current };
    await response.body?.cancel().catch(() => {});
    if (hop >= MAX_REDIRECTS) throw new Error(`${url.href} redirected more than ${MAX_REDIRECTS} times.`);
    const next = new URL(location, current);
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new Error(`${current.href} redirected to a ${next.protocol} URL, which web_fetch refuses.`);
    checkLiteralHost(next, allowed);
    current = next;
  }
}

/**
 * @param {{ url: string, maxChars?: number }} args
 * @param {ToolContext} ctx
 */
async function webFetch(args, ctx) {
  /** @type {URL} */
  let url;
  try {
    url = new URL(args.url);
  } catch {
    throw new Error(`${JSON.stringify(args.url)} is not a valid URL. Give an absolute http:// or https:// URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`Only http:// and https:// URLs can be fetched; ${url.protocol} URLs are refused.`);
  }
  const maxChars = Math.min(args.maxChars ?? DEFAULT_MAX_CHARS, MAX_CHARS);
  const allowed = parseAllowed(ctx.env[ALLOW_ENV]);
  checkLiteralHost(url, allowed);
  const limit = deadline(ctx.signal, FETCH_TIMEOUT_MS);

  /** @type {import('undici').Response} */
  let response;
  /** @type {URL} */
  let finalUrl = url;
  /** @type {{ bytes: Buffer, truncated: boolean }} */
  let body;
  /** @type {'html' | 'text' | 'sniff' | 'binary'} */
  let kind;
  try {
    ({ response, url: finalUrl } = await fetchFollowing(url, allowed, ctx.env[ALLOW_ENV], limit.signal));
    const type = mediaType(response.headers.get('content-type') ?? '');
    kind = kindOfType(type);
    if (kind === 'binary') {
      await response.body?.cancel().catch(() => {});
      body = { bytes: Buffer.alloc(0), truncated: false };
    } else {
      // Text is at most 4 UTF-8 bytes a character, so reading more than that is wasted;
      // HTML (and what may turn out to be HTML) keeps the larger budget because markup is dropped.
      const byteBudget = kind === 'text' ? Math.min(MAX_BODY_BYTES, maxChars * 4 + 4) : MAX_BODY_BYTES;
      body = await readCapped(response, byteBudget);
      if (kind === 'sniff') kind = kindOfBytes(body.bytes.subarray(0, 8192));
    }
  } catch (err) {
    throw requestError(err, url.href, limit, FETCH_TIMEOUT_MS);
  }

  const contentType = response.headers.get('content-type') ?? '';
  if (kind === 'binary') {
    throw new Error(
      `${url.href} returned ${mediaType(contentType) || 'binary data'} (HTTP ${response.status}), which is not ` +
        `text; web_fetch only returns text content.`,
    );
  }
  const raw = decode(body.bytes, charsetOf(contentType) ?? (kind === 'html' ? metaCharset(body.bytes) : undefined));
  const title = kind === 'html' ? htmlTitle(raw) : undefined;
  const text = kind === 'html' ? htmlToText(raw, finalUrl.href) : raw;
  const truncated = body.truncated || text.length > maxChars;
  const content = text.length > maxChars ? text.slice(0, maxChars) : text;

  return {
    url: url.href,
    ...(finalUrl.href !== url.href ? { finalUrl: finalUrl.href } : {}),
    status: response.status,
    ...(response.statusText ? { statusText: response.statusText } : {}),
    contentType,
    ...(title !== undefined ? { title } : {}),
    truncated,
    ...(truncated
      ? {
          note:
            `Content cut at ${content.length} characters` +
            (maxChars < MAX_CHARS ? `; call again with a larger maxChars (up to ${MAX_CHARS}) for more.` : '.'),
        }
      : {}),
    content,
  };
}

/** The `web_fetch` tool: GETs one http(s) URL and returns its content as readable text. */
export const webFetchTool = {
  name: 'web_fetch',
  toolset: 'web',
  description: [
    'Fetch a web page or file over http(s) with a GET request and return {url, finalUrl?, status, contentType, ' +
      'title?, ' +
      ('truncated, note?, content}. HTML is converted to readable plain text (links kept as "text [url]"); JSON ' +
        'and other ') +
      'text are returned as is; binary content (images, PDFs, archives) is refused. Redirects are followed. ' +
      'A non-2xx status is reported in status, with the body as content.',
    {
      ifAvailable: ['web_search'],
      text: 'To find pages, prefer web_search; use web_fetch for a URL you already know.',
    },
  ],
  parameters: {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, description: 'Absolute http:// or https:// URL to fetch.' },
      maxChars: {
        type: 'integer',
        minimum: 100,
        maximum: MAX_CHARS,
        description: `Most characters of content to return (default ${DEFAULT_MAX_CHARS}, at most ${MAX_CHARS}).`,
      },
    },
    required: ['url'],
    additionalProperties: false,
  },
  limits: { timeoutMs: FETCH_TIMEOUT_MS + 10_000, maxResultChars: MAX_CHARS + 2_000 },
  codeCallable: true,
  annotations: { readOnlyHint: true, openWorldHint: true },
  handler: webFetch,
};
