/**
 * Issue 40, route 9, through real hosts: a hostile MCP server on loopback (another toolshed,
 * `serveHttp`, untrusted by default as a URL entry) beside an honest trusted plugin that supplies
 * most of the tools a query finds, searched with the model's `tool_search` calls.
 * (c) The per-source limit used to hand places 4–5 to the hostile server's weak matches; it
 * only demotes now. (b) With `search.embedder`, five look-alikes of the honest tool used to take
 * 3–4 of the first five places (the limit held the lexical list only); after fusion they get the
 * two places an untrusted source may take.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createToolHost, type Embedder, type ToolHost } from 'toolshed';
import { serveHttp, type HttpEndpoint } from 'toolshed/mcp';
import { fixture, scratchDir } from '../helpers.js';
import { testEmbedder } from './test-embedder.js';

const TRACKER = fixture('search', 'tracker');
const hostile: Record<'weak' | 'lookalike', { host?: ToolHost; endpoint?: HttpEndpoint }> = { weak: {}, lookalike: {} };
const opened: ToolHost[] = [];

/** A toolshed serving one fixture plugin over HTTP: the hostile MCP server. */
async function hostileServer(which: 'weak' | 'lookalike'): Promise<string> {
  const host = await createToolHost({
    cwd: scratchDir(),
    env: { PATH: process.env.PATH },
    config: {
      builtins: false,
      plugins: [{ package: fixture('search', which === 'weak' ? 'helper-weak' : 'lookalike'), trust: 'trusted' }],
    },
  });
  hostile[which] = { host, endpoint: await serveHttp(host, { host: '127.0.0.1', port: 0 }) };
  return hostile[which].endpoint!.url;
}

/**
 * The model's host: the honest tracker (trusted) and the hostile server, everything deferred.
 * Each hostile server has its own name: the hosts share one folder and state folder, so under
 * one name the second test's tools would be new since the first test's accepted listing, and held.
 */
async function modelHost(server: 'weak' | 'lookalike', url: string, embedder?: Embedder): Promise<ToolHost> {
  const host = await createToolHost({
    cwd: scratchDir(),
    env: { PATH: process.env.PATH },
    config: {
      builtins: false,
      defer: ['*'],
      plugins: [{ package: TRACKER, trust: 'trusted' }],
      mcpServers: { [server]: { url } },
    },
    ...(embedder ? { search: { embedder } } : {}),
  });
  opened.push(host);
  return host;
}

const search = async (host: ToolHost, query: string, limit = 10): Promise<string[]> =>
  (
    JSON.parse(await host.dispatch('tool_search', { query, limit }, { sessionId: 'route-9' })) as {
      tools: Array<{ name: string }>;
    }
  ).tools.map((t) => t.name);

let weakUrl: string;
let lookalikeUrl: string;

beforeAll(async () => {
  weakUrl = await hostileServer('weak');
  lookalikeUrl = await hostileServer('lookalike');
}, 60_000);

afterAll(async () => {
  for (const host of opened) await host.close();
  for (const { host, endpoint } of Object.values(hostile)) {
    await endpoint?.close();
    await host?.close();
  }
});

describe('tool_search against a hostile MCP server beside an honest plugin', () => {
  it('(c) the per-source limit never hands a place to a weaker untrusted match: the honest tracker keeps places 4 and 5', async () => {
    const host = await modelHost('weak', weakUrl);
    const report = host.explain();
    expect(report.plugins.find((p) => p.name === 'mcp:weak')).toMatchObject({ trust: 'untrusted' });
    expect(
      report.tools
        .filter((t) => t.name.startsWith('helper_'))
        .map((t) => t.name)
        .sort(),
    ).toEqual(['helper_digest', 'helper_notes']);
    for (const query of ['create an issue', 'close the issue', 'label an issue', 'issue']) {
      const ranked = await search(host, query);
      expect(
        ranked.slice(0, 5).every((name) => name.startsWith('tracker_')),
        `${query}: ${ranked.join(', ')}`,
      ).toBe(true);
      // The weak matches are still found, after the honest ones.
      expect(ranked, query).toEqual(expect.arrayContaining(['helper_notes', 'helper_digest']));
    }
  }, 60_000);

  it('(b) with an embedder, five look-alikes of the honest tool take at most two of the first five places', async () => {
    const embedder = testEmbedder();
    const host = await modelHost('lookalike', lookalikeUrl, embedder);
    const copies = new Set(['create_issue', 'new_issue', 'issue_create', 'open_issue', 'make_issue']);
    // The first search starts embedding the tools; wait until every vector is there.
    await search(host, 'create an issue');
    await vi.waitFor(() => expect(host.explain().search.embeddings).toMatchObject({ pending: 0, vectors: 13 }), {
      timeout: 20_000,
    });
    for (const query of ['create an issue', 'create a new issue in the tracker', 'new issue']) {
      const ranked = await search(host, query);
      expect(
        ranked.slice(0, 5).filter((name) => copies.has(name)).length,
        `${query}: ${ranked.join(', ')}`,
      ).toBeLessThanOrEqual(2);
      expect(ranked.slice(0, 5), query).toContain('tracker_create_issue');
    }
  }, 60_000);
});
