import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import plugin from '../index.js';
import { BRAVE_ENDPOINT, httpError, parseResults, secondsUntilReset } from '../lib/web-search.js';
import { makeCtx, tempDir, tool } from './helpers.js';
import { startServer } from './server.js';

const searchTool = tool('web_search');
const search = searchTool.handler;
let server;
let tmp;
let ctx;
/** What the fake Brave endpoint answers next: status, headers and body. */
let reply;
/** The requests it received. */
let received;

// Shaped like a real Brave web search response, trimmed to the fields the tool reads plus a few it ignores.
const BRAVE_RESPONSE = {
  type: 'search',
  query: { original: 'toolshed plugins', more_results_available: true },
  mixed: { type: 'mixed', main: [{ type: 'web', index: 0, all: false }] },
  web: {
    type: 'search',
    family_friendly: true,
    results: [
      {
        title: 'Toolshed &amp; <strong>plugins</strong>',
        url: 'https://example.com/toolshed',
        is_source_local: false,
        description: 'Build <strong>toolshed</strong> plugins &mdash; fast, safe and  typed.',
        page_age: '2025-01-02T00:00:00',
        age: 'January 2, 2025',
        profile: { name: 'Example', url: 'https://example.com' },
        language: 'en',
      },
      { title: 'Second result', url: 'https://example.org/2', description: 'Plain snippet.' },
      { title: 'No url, skipped', description: 'x' },
    ],
  },
};

beforeAll(async () => {
  server = await startServer({
    '/res/v1/web/search': (req, res, url) => {
      received.push({ headers: req.headers, q: url.searchParams.get('q'), count: url.searchParams.get('count') });
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
    },
  });
});
afterAll(() => server.close());

beforeEach(async () => {
  tmp = await tempDir();
  received = [];
  reply = { status: 200, headers: {}, body: BRAVE_RESPONSE };
  ctx = makeCtx(tmp.dir, {
    env: { BRAVE_API_KEY: 'test-key', BRAVE_SEARCH_ENDPOINT: `${server.base}/res/v1/web/search` },
  });
  return () => tmp.remove();
});

describe('web_search', () => {
  it('calls the Brave API with the key and query, and returns clean results', async () => {
    const result = await search({ query: 'toolshed plugins', count: 3 }, ctx);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ q: 'toolshed plugins', count: '3' });
    expect(received[0].headers['x-subscription-token']).toBe('test-key');
    expect(received[0].headers.accept).toBe('application/json');
    expect(result).toEqual({
      query: 'toolshed plugins',
      results: [
        {
          title: 'Toolshed & plugins',
          url: 'https://example.com/toolshed',
          snippet: 'Build toolshed plugins — fast, safe and typed.',
          age: 'January 2, 2025',
        },
        { title: 'Second result', url: 'https://example.org/2', snippet: 'Plain snippet.' },
      ],
    });
  });

  it('asks for 5 results by default', async () => {
    await search({ query: 'x' }, ctx);
    expect(received[0].count).toBe('5');
  });

  it('says so when there are no results', async () => {
    reply.body = { type: 'search', query: { original: 'zzzz' } };
    expect(await search({ query: 'zzzz' }, ctx)).toEqual({
      query: 'zzzz',
      results: [],
      note: 'No results. Try fewer or different words.',
    });
  });

  it('maps a rejected key (401) to a message about BRAVE_API_KEY', async () => {
    reply = {
      status: 401,
      headers: {},
      body: {
        type: 'ErrorResponse',
        error: {
          status: 401,
          code: 'SUBSCRIPTION_TOKEN_INVALID',
          detail: 'The provided subscription token is invalid.',
        },
      },
    };
    await expect(search({ query: 'x' }, ctx)).rejects.toThrow(
      'Brave Search rejected the API key (HTTP 401). The operator must check BRAVE_API_KEY. Brave says: The provided subscription token is invalid.',
    );
  });

  it('maps a rate limit (429) and says when to retry', async () => {
    reply = {
      status: 429,
      headers: { 'x-ratelimit-remaining': '0, 1500', 'x-ratelimit-reset': '1, 86400' },
      body: { error: { detail: 'Request rate limit exceeded for plan.' } },
    };
    await expect(search({ query: 'x' }, ctx)).rejects.toThrow(
      /rate limit or quota reached \(HTTP 429\)\. Try again in 1 s\./,
    );
  });

  it('maps server errors (5xx) to a try-again message', async () => {
    reply = { status: 503, headers: {}, body: 'upstream down' };
    await expect(search({ query: 'x' }, ctx)).rejects.toThrow(
      'Brave Search is unavailable right now (HTTP 503). Try again shortly.',
    );
  });

  it('maps a rejected query (422) and passes on Brave’s detail', async () => {
    reply = {
      status: 422,
      headers: {},
      body: { type: 'ErrorResponse', error: { code: 'VALIDATION', detail: 'Unable to validate request parameter(s)' } },
    };
    await expect(search({ query: 'x' }, ctx)).rejects.toThrow(
      /rejected the request \(HTTP 422\).*Brave says: Unable to validate/,
    );
  });

  it('fails clearly on a body that is not JSON', async () => {
    reply = { status: 200, headers: {}, body: '<html>captive portal</html>' };
    await expect(search({ query: 'x' }, ctx)).rejects.toThrow(/not JSON/);
  });

  it('needs BRAVE_API_KEY and a usable endpoint', async () => {
    await expect(search({ query: 'x' }, { ...ctx, env: {} })).rejects.toThrow(/BRAVE_API_KEY is not set/);
    await expect(
      search({ query: 'x' }, { ...ctx, env: { BRAVE_API_KEY: 'k', BRAVE_SEARCH_ENDPOINT: 'ftp://x' } }),
    ).rejects.toThrow(/must be an http/);
    expect(received).toHaveLength(0);
  });

  it('never puts the API key into an error message', async () => {
    reply = { status: 403, headers: {}, body: {} };
    const err = await search({ query: 'x' }, ctx).then(
      () => null,
      (e) => e,
    );
    expect(err.message).toMatch(/HTTP 403/);
    expect(err.message).not.toContain('test-key');
  });

  it('picks the reset time of the exhausted rate-limit window', () => {
    expect(secondsUntilReset(new Headers({ 'x-ratelimit-remaining': '3, 0', 'x-ratelimit-reset': '1, 86400' }))).toBe(
      86400,
    );
    expect(secondsUntilReset(new Headers({ 'retry-after': '7' }))).toBe(7);
    expect(secondsUntilReset(new Headers())).toBeUndefined();
    expect(httpError(418, '', new Headers()).message).toBe('Brave Search answered HTTP 418.');
    expect(parseResults(null)).toEqual([]);
  });

  it('declares the Brave key as a requirement, and the Brave variables and the fetch allow-list as permissions', () => {
    expect(BRAVE_ENDPOINT).toBe('https://api.search.brave.com/res/v1/web/search');
    expect(searchTool.requires).toEqual({ env: ['BRAVE_API_KEY'] });
    expect(plugin.permissions).toEqual({
      network: true,
      env: ['BRAVE_API_KEY', 'BRAVE_SEARCH_ENDPOINT', 'WEB_FETCH_ALLOW_CIDRS'],
      fsRead: [],
      fsWrite: [],
    });
    expect(searchTool.codeCallable).toBe(true);
    for (const t of plugin.tools)
      for (const prop of Object.values(t.parameters.properties)) expect(prop.description).toEqual(expect.any(String));
  });
});
