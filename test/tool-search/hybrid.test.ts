/**
 * Hybrid tool search: with `search.embedder`, tool_search fuses the lexical
 * ranking with a vector ranking (RRF). Real hosts and `host.dispatch('tool_search')`
 * with a deterministic embedder (test-embedder.ts): a paraphrase the lexical
 * ranker misses is found, each tool text is embedded once, searches never wait
 * for tool vectors, and a failing embedder turns searches lexical with one warning.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createToolHost, type Embedder, type ToolHost, ToolshedError } from 'toolshed';
import { fuse, RRF_K } from '#internal/core/call/search/fusion.js';
import { renderExplain } from '#internal/core/cli/render.js';
import { fixture, fixtureOptions, tempDir, withHost } from '../helpers.js';
import { isToolText, testEmbedder, type TestEmbedder } from './test-embedder.js';

type Hit = { name: string; matched: string };
const search = async (host: ToolHost, query: string, limit?: number) => {
  const text = await host.dispatch('tool_search', { query, ...(limit ? { limit } : {}) });
  return (JSON.parse(text) as { tools: Hit[] }).tools;
};
const TOOLS = 6;
const options = (embedder: Embedder | undefined, cwd?: string) =>
  fixtureOptions(['paraphrase'], {
    ...(cwd ? { cwd } : {}),
    config: { defer: ['*'], checks: { graceMs: 0 } },
    ...(embedder ? { search: { embedder } } : {}),
  });
/** Waits (without asserting any duration) until the background fill has nothing left to do. */
const settled = (host: ToolHost, vectors = TOOLS) =>
  vi.waitFor(() => expect(host.explain().search.embeddings).toMatchObject({ pending: 0, vectors }));
const toolTexts = (embedder: TestEmbedder) => embedder.texts.filter(isToolText);

describe('hybrid tool search (search.embedder)', () => {
  it('finds a paraphrase that shares no word with the tool, which the lexical ranker misses', async () => {
    await withHost(options(undefined), async (host) => {
      expect(await search(host, 'grab website')).toEqual([]);
      expect(host.explain().search.embeddings).toBeUndefined();
    });
    const embedder = testEmbedder();
    await withHost(options(embedder), async (host) => {
      // The first search syncs the index and starts embedding the tools; it answers at once, lexically.
      expect(await search(host, 'grab website')).toEqual([]);
      await settled(host);
      const hits = await search(host, 'grab website');
      expect(hits[0]).toMatchObject({ name: 'http_fetch', matched: expect.stringMatching(/close in meaning$/) });
      expect(host.explain().search.embeddings).toEqual({ model: 'test-concepts-64', vectors: TOOLS, pending: 0 });
      expect(renderExplain(host.explain())).toContain(
        'search embeddings (test-concepts-64): 6 tool vectors, 0 pending',
      );
      // Both sides agree: first, and the lexical side still finds what only it matches.
      expect((await search(host, 'download website'))[0]).toMatchObject({
        name: 'http_fetch',
        matched: expect.stringMatching(/close in meaning$/),
      });
      expect((await search(host, 'disk')).map((h) => h.name)).toContain('file_read');
    });
  });

  it("fuses by reciprocal rank (k = 60): a tool both lists rank well beats one list's first", () => {
    expect(RRF_K).toBe(60);
    const lexical = ['a', 'b', 'c'].map((name) => ({ name, score: 1, matched: {} }));
    const vector = ['c', 'b', 'd'].map((name, i) => ({ name, similarity: 0.9 - i / 10 }));
    const fused = fuse(lexical, vector, 10);
    // c: 1/63 + 1/61, b: 2/62, a: 1/61, d: 1/63
    expect(fused.map((hit) => hit.name)).toEqual(['c', 'b', 'a', 'd']);
    expect(fused.map((hit) => hit.vector)).toEqual([0.9, 0.8, undefined, 0.7]);
    expect(fused[0]!.score).toBeCloseTo(1 / 63 + 1 / 61, 4);
    // Only the vector side's best `limit` say so; ties keep the lexical order.
    expect(fuse(lexical, vector, 1)).toEqual([{ name: 'c', score: expect.any(Number), matched: {}, vector: 0.9 }]);
    expect(fuse(lexical, [], 2).map((hit) => hit.name)).toEqual(['a', 'b']);
  });

  it('embeds each tool text once: an unchanged recompute embeds nothing, a changed description only that tool', async () => {
    const work = tempDir();
    const embedder = testEmbedder();
    try {
      await withHost(options(embedder, work.dir), async (host) => {
        await search(host, 'note');
        await settled(host);
        expect(toolTexts(embedder)).toHaveLength(TOOLS);
        expect(new Set(toolTexts(embedder)).size).toBe(TOOLS);
        expect(toolTexts(embedder).find((t) => t.startsWith('notes write:'))).toContain('synced to the cloud');

        host.invalidateChecks();
        await host.refresh();
        await search(host, 'note');
        await settled(host);
        expect(toolTexts(embedder)).toHaveLength(TOOLS);

        // notes_sync becomes unavailable: notes_write's description loses its conditional part.
        writeFileSync(path.join(work.dir, 'sync.off'), '');
        host.invalidateChecks();
        await host.refresh();
        await search(host, 'note');
        // notes_sync's vector is dropped with it.
        await settled(host, TOOLS - 1);
        const added = toolTexts(embedder).slice(TOOLS);
        expect(added).toEqual(['notes write: Write a note.\nParameters: text']);
        // A repeated query is not embedded again either.
        const queries = embedder.texts.filter((t) => !isToolText(t)).length;
        await search(host, 'note');
        expect(embedder.texts.filter((t) => !isToolText(t))).toHaveLength(queries);
      });
    } finally {
      work.cleanup();
    }
  });

  it('a search never waits for tool vectors: with the embedder still busy it answers lexically; close() aborts the call', async () => {
    const hanging = testEmbedder(
      (_texts, _right, signal) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    );
    const host = await createToolHost(options(hanging));
    const warnings: string[] = [];
    host.on('warning', (message) => warnings.push(message));
    try {
      expect((await search(host, 'download page'))[0]).toEqual(expect.objectContaining({ name: 'http_fetch' }));
      await vi.waitFor(() => expect(hanging.calls).toBe(1));
      expect((await search(host, 'download page'))[0]!.matched).not.toContain('close in meaning');
      expect(host.explain().search.embeddings).toEqual({ model: 'test-concepts-64', vectors: 0, pending: TOOLS });
      // With no tool vector yet, the query is not embedded either.
      expect(hanging.calls).toBe(1);
    } finally {
      await host.close();
    }
    expect(hanging.signals[0]!.aborted).toBe(true);
    expect(warnings).toEqual([]);
    // Nothing starts after close.
    await new Promise((resolve) => setImmediate(resolve));
    expect(hanging.calls).toBe(1);
  });

  it('an embedder that fails: searches rank lexically, the host warns once, explain says why', async () => {
    const failing = testEmbedder(() => {
      throw new Error('embeddings API: 503');
    });
    await withHost(options(failing), async (host) => {
      const warnings: string[] = [];
      host.on('warning', (message) => warnings.push(message));
      const lexical = await search(host, 'download page');
      await vi.waitFor(() => expect(host.explain().search.embeddings?.failed).toContain('503'));
      expect(await search(host, 'download page')).toEqual(lexical);
      expect(await search(host, 'send mail')).not.toEqual([]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('the embedder (test-concepts-64) failed: embeddings API: 503');
      expect(host.explain().search.embeddings).toMatchObject({ vectors: 0, pending: TOOLS });
      expect(renderExplain(host.explain())).toContain(
        'search embeddings (test-concepts-64): 0 tool vectors, 6 pending; failing, searches rank lexically: the embedder',
      );
    });
  });

  it('after a failure the embedder is left alone for a minute, then tried again; it recovers without a second warning', async () => {
    let down = true;
    const flaky = testEmbedder((_texts, right) => {
      if (down) throw new Error('connection refused');
      return right;
    });
    await withHost(options(flaky), async (host) => {
      const warnings: string[] = [];
      host.on('warning', (message) => warnings.push(message));
      await search(host, 'page');
      await vi.waitFor(() => expect(host.explain().search.embeddings?.failed).toContain('connection refused'));
      down = false;
      await search(host, 'page');
      await new Promise((resolve) => setImmediate(resolve));
      expect(flaky.calls).toBe(1);
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.now() + 61_000);
        await search(host, 'page');
        await settled(host);
      } finally {
        vi.useRealTimers();
      }
      expect(host.explain().search.embeddings?.failed).toBeUndefined();
      expect((await search(host, 'grab website'))[0]).toMatchObject({
        name: 'http_fetch',
        matched: expect.stringMatching(/close in meaning$/),
      });
      expect(warnings).toHaveLength(1);
    });
  });

  it('a query the embedder fails on is ranked lexically, with one warning for many searches', async () => {
    const queryFails = testEmbedder((texts, right) => {
      if (!isToolText(texts[0]!)) throw new Error('quota exceeded');
      return right;
    });
    await withHost(options(queryFails), async (host) => {
      const warnings: string[] = [];
      host.on('warning', (message) => warnings.push(message));
      await search(host, 'page');
      await settled(host);
      const hits = await search(host, 'grab website');
      expect(hits).toEqual([]);
      expect(await search(host, 'download page')).toEqual([expect.objectContaining({ name: 'http_fetch' })]);
      expect(warnings).toEqual([expect.stringContaining('quota exceeded')]);
      expect(host.explain().search.embeddings?.failed).toContain('quota exceeded');
    });
  });

  it.each([
    ['a vector short', (right: number[][]) => right.slice(1), /returned 5 vectors for 6 texts/],
    [
      'a dimension off',
      (right: number[][]) => right.map((v, i) => (i === 2 ? v.slice(1) : v)),
      /vector 2 has 63 dimensions, not 64/,
    ],
    [
      'a NaN',
      (right: number[][]) => right.map((v, i) => (i === 1 ? [Number.NaN, ...v.slice(1)] : v)),
      /vector 1 holds a non-finite number/,
    ],
    ['no array', () => ({ data: [] }) as unknown as number[][], /returned object, not an array of vectors/],
  ])('refuses an answer with %s', async (_, wrong, message) => {
    const embedder = testEmbedder((_texts, right) => wrong(right));
    await withHost(options(embedder), async (host) => {
      await search(host, 'page');
      await vi.waitFor(() => expect(host.explain().search.embeddings?.failed).toMatch(message));
      expect(host.explain().search.embeddings?.vectors).toBe(0);
      expect((await search(host, 'grab website')).length).toBe(0);
    });
  });

  it("a view searches with the host's vectors; closing it keeps the host's", async () => {
    const embedder = testEmbedder();
    await withHost(options(embedder), async (host) => {
      await search(host, 'page');
      await settled(host);
      const view = host.view({ disable: ['mail_send'] });
      expect((await search(view, 'grab website'))[0]).toMatchObject({
        name: 'http_fetch',
        matched: expect.stringMatching(/close in meaning$/),
      });
      expect(toolTexts(embedder)).toHaveLength(TOOLS);
      await view.close();
      expect(host.explain().search.embeddings?.vectors).toBe(TOOLS);
    });
  });
});

describe('search.embedder in the config', () => {
  it('a JS config may set it; a JSON config cannot carry a function and is refused naming the key', async () => {
    const work = tempDir();
    try {
      const plugin = fixture('plugins', 'paraphrase');
      writeFileSync(
        path.join(work.dir, 'toolshed.config.mjs'),
        `export default { builtins: false, plugins: [{ package: ${JSON.stringify(plugin)}, trust: 'trusted' }], defer: ['*'],
  search: { embedder: { model: 'js-config', batchSize: 2, embed: async (texts) => texts.map((t) => [t.length, 1]) } } };\n`,
      );
      await withHost({ cwd: work.dir, env: { PATH: process.env.PATH }, trustConfig: true }, async (host) => {
        expect(host.config.search.embedder).toMatchObject({ model: 'js-config', batchSize: 2, timeoutMs: 5000 });
        await search(host, 'page');
        await settled(host);
      });
      const json = path.join(work.dir, 'embed.json');
      writeFileSync(
        json,
        JSON.stringify({ search: { embedder: { model: 'm', embed: 'https://api.example/embeddings' } } }),
      );
      const error = await createToolHost({ cwd: work.dir, env: {}, config: json, trustConfig: true }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ToolshedError);
      expect((error as ToolshedError).code).toBe('CONFIG_INVALID');
      expect((error as ToolshedError).message).toContain('/search/embedder/embed must be a function');
      expect((error as ToolshedError).message).toContain('a JSON or YAML config cannot hold one');
    } finally {
      work.cleanup();
    }
  });

  it("createToolHost checks the embedder it is given as the config's", async () => {
    const bad = { model: '', embed: async () => [] } as Embedder;
    const error = await createToolHost({ ...options(undefined), search: { embedder: bad } }).catch((e: unknown) => e);
    expect((error as ToolshedError).code).toBe('CONFIG_INVALID');
    expect((error as ToolshedError).message).toContain('/search/embedder/model');
  });
});
