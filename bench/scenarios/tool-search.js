/**
 * Scenario 14: tool search over a catalogue of 533 tool definitions written
 * for the benchmark (bench/tool-search/catalogue, loaded as real plugin
 * packages) and 172 hand-written queries (plus 42 held out). The quality that
 * counts is measured on real MCP servers (scenario 21); this one keeps the
 * earlier figures comparable and holds the poisoning measurements.
 *
 * - retrieval: recall@1, recall@5 and MRR@10 of tool_search (through
 *   host.dispatch) against a plain BM25 over name and description
 *   (MiniSearch defaults) and a substring match on names; each ranking
 *   method removed on its own;
 * - definitions size with everything deferred against everything loaded
 *   (JSON characters; tokens estimated as characters / 4);
 * - tool_search latency against one trivial thread-tier dispatch, side by side;
 * - index build time against host startup;
 * - poisoning: a plugin stuffed with common keywords (test/fixtures/search/stuffed,
 *   untrusted) beside the catalogue: how often it takes a top-5 place and what
 *   it costs the honest tools' recall@5, with and without the defences.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createToolHost } from '../../dist/core/index.js';
import { ToolIndex, RANKING, UNDEFENDED } from '../../dist/core/call/search/search-index.js';
import { RANKING_VARIANTS } from '../tool-search/variants.js';
import { catalogueTools, SERVICES } from '../tool-search/catalogue/index.js';
import { QUERIES } from '../tool-search/queries.js';
import { HELD_OUT } from '../tool-search/held-out.js';
import { evaluate } from '../tool-search/metrics.js';
import { plainBm25, substring } from '../tool-search/baselines.js';
import { writeCatalogue, PER_PLUGIN } from '../tool-search/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { benchHost, THREADS } from './dispatch.js';
import { cacheDirFor } from '../lib/cache-dir.js';

const CHARS_PER_TOKEN = 4;

/** The catalogue as the index sees it. */
function indexedTools(tools) {
  const descriptions = Object.fromEntries(SERVICES.map((s) => [s.toolset, s.description]));
  return tools.map((t) => ({
    definition: { name: t.name, description: t.description, parameters: t.parameters },
    toolset: t.toolset,
    toolsetDescription: descriptions[t.toolset],
  }));
}

/** The stuffed fixture plugin's tools as the index sees them (untrusted, one source). */
async function stuffedTools() {
  const { default: plugin } = await import('../../test/fixtures/search/stuffed/index.js');
  return plugin.tools.map((t) => ({
    definition: { name: t.name, description: t.description, parameters: t.parameters },
    toolset: t.toolset,
    toolsetDescription: plugin.toolsets[t.toolset].description,
    source: 'toolshed-fixture-stuffed-search',
    untrusted: true,
  }));
}

/** Poisoning rows: top-5 share of the stuffed plugin and honest recall@5, for one ranking. */
function poisoningRows(label, honest, stuffed, options) {
  const queries = [...QUERIES, ...HELD_OUT];
  const names = new Set(stuffed.map((t) => t.definition.name));
  const clean = new ToolIndex(options);
  clean.sync(honest);
  const poisoned = new ToolIndex(options);
  poisoned.sync([...honest, ...stuffed]);
  const inTop5 = queries.filter(([q]) => poisoned.search(q, 5).some((n) => names.has(n))).length;
  const first = queries.filter(([q]) => names.has(poisoned.search(q, 1)[0])).length;
  const before = evaluate(queries, (q) => clean.search(q, 10)).recallAt5;
  const after = evaluate(queries, (q) => poisoned.search(q, 10)).recallAt5;
  return [
    {
      scenario: '14',
      name: `poisoning, ${label}: stuffed plugin in the top 5`,
      unit: 'share',
      measured: score(inTop5 / queries.length),
      baseline: { label: 'at most', ...score(0.1) },
      ratio: inTop5 / queries.length,
      ratioText: `${inTop5}/${queries.length}`,
      target: label === 'tool_search' ? { max: 0.1, text: '≤ 10% of queries' } : { text: 'report' },
      note: `first for ${first}/${queries.length}`,
    },
    {
      scenario: '14',
      name: `poisoning, ${label}: honest recall@5 with the stuffed plugin`,
      unit: 'score',
      measured: score(after),
      baseline: { label: 'without it', ...score(before) },
      ratio: after - before,
      ratioText: `${after - before >= 0 ? '+' : ''}${fixed(after - before)}`,
      target: { text: 'report' },
      note: `${queries.length} queries (main + held out)`,
    },
  ];
}

/** The catalogue with its sources as writeCatalogue packs them (PER_PLUGIN services per package). */
function sourcedTools(tools) {
  const pkg = Object.fromEntries(
    SERVICES.map((s, i) => [s.toolset, `toolshed-plugin-bench-catalogue-${Math.floor(i / PER_PLUGIN)}`]),
  );
  return indexedTools(tools).map((t) => ({ ...t, source: pkg[t.toolset] }));
}

function indexRanker(tools, options = RANKING) {
  const index = new ToolIndex(options);
  index.sync(indexedTools(tools));
  return (query) => index.search(query, 10);
}

const score = (value) => ({ median: value, p99: NaN, n: 1 });
const fixed = (v) => v.toFixed(3);

function retrievalRows(label, ours, plain, sub, n, targets = true) {
  const row = (name, key, target) => ({
    scenario: '14',
    name: `${label}: ${name}`,
    unit: 'score',
    measured: score(ours[key]),
    baseline: { label: 'plain BM25 (name + description, MiniSearch defaults)', ...score(plain[key]) },
    ratio: target?.gain ? ours[key] - plain[key] : ours[key],
    ratioText: `${ours[key] - plain[key] >= 0 ? '+' : ''}${fixed(ours[key] - plain[key])}`,
    target: target?.gain
      ? { min: target.gain, text: `≥ +${target.gain} over plain BM25` }
      : target
        ? { min: target.min, text: `≥ ${target.min}` }
        : { text: 'report' },
    note: `${n} queries; substring match on names: ${fixed(sub[key])}`,
  });
  if (!targets) return [row('recall@1', 'recallAt1'), row('recall@5', 'recallAt5'), row('MRR@10', 'mrrAt10')];
  return [
    row('recall@1', 'recallAt1'),
    row('recall@5', 'recallAt5', { min: 0.9 }),
    { ...row('recall@5', 'recallAt5', { gain: 0.05 }), name: `${label}: recall@5 gain over plain BM25` },
    row('MRR@10', 'mrrAt10'),
  ];
}

async function hostRanker(host) {
  let session = 0;
  const answers = new Map();
  for (const [query] of [...QUERIES, ...HELD_OUT]) {
    const text = await host.dispatch('tool_search', { query, limit: 10 }, { sessionId: `q${session++}` });
    answers.set(
      query,
      JSON.parse(text).tools.map((t) => t.name),
    );
  }
  return (query) => answers.get(query);
}

export default {
  id: '14',
  title: 'tool search over 533 tools, 172 + 42 queries',
  async run({ tmp, quick }) {
    const tools = catalogueTools();
    const dirs = writeCatalogue(path.join(tmp, 'catalogue'));
    const config = (extra) => ({
      builtins: false,
      plugins: dirs.map((dir) => ({ package: dir, trust: 'trusted' })),
      cache: { dir: cacheDirFor(tmp) },
      limits: { threads: 1 },
      ...extra,
    });
    // The first host fills the manifest cache, so the startups compared below are alike.
    const loaded = await createToolHost({ cwd: tmp, config: config({}) });
    let deferred;
    let small;
    try {
      const startups = [];
      for (let i = 0; i < (quick ? 2 : 5); i++) {
        const t0 = performance.now();
        const h = await createToolHost({ cwd: tmp, config: config({ defer: ['*'] }) });
        startups.push(performance.now() - t0);
        if (deferred) await h.close();
        else deferred = h;
      }

      // Retrieval.
      const ours = await hostRanker(deferred);
      const plain = plainBm25(tools);
      const sub = substring(tools);
      const rows = [
        ...retrievalRows(
          'tool_search',
          evaluate(QUERIES, ours),
          evaluate(QUERIES, plain),
          evaluate(QUERIES, sub),
          QUERIES.length,
        ),
        ...retrievalRows(
          'held-out queries',
          evaluate(HELD_OUT, ours),
          evaluate(HELD_OUT, plain),
          evaluate(HELD_OUT, sub),
          HELD_OUT.length,
          false,
        ),
      ];
      const plainAt5 = evaluate(QUERIES, plain).recallAt5;
      const variant = (name, ranker, note) => {
        const r = evaluate(QUERIES, ranker);
        return {
          scenario: '14',
          name: `ranking: ${name}`,
          unit: 'score',
          measured: score(r.recallAt5),
          baseline: { label: 'plain BM25 recall@5', ...score(plainAt5) },
          ratio: r.recallAt5 - plainAt5,
          ratioText: `${r.recallAt5 >= plainAt5 ? '+' : ''}${fixed(r.recallAt5 - plainAt5)}`,
          target: { text: 'report' },
          note: `recall@1 ${fixed(r.recallAt1)}, MRR@10 ${fixed(r.mrrAt10)}${note ? `; ${note}` : ''}`,
        };
      };
      const sourced = new ToolIndex();
      sourced.sync(sourcedTools(tools));
      rows.push(
        variant('tool_search, sources not given', indexRanker(tools)),
        variant(
          'tool_search, sources as packaged (14 services per plugin)',
          (q) => sourced.search(q, 10),
          'the per-source limit applies',
        ),
        variant('tool_search without the poisoning defences', indexRanker(tools, UNDEFENDED)),
        ...RANKING_VARIANTS.map(([name, options]) => variant(name, indexRanker(tools, options))),
      );

      const stuffed = await stuffedTools();
      rows.push(
        ...poisoningRows('tool_search', sourcedTools(tools), stuffed, RANKING),
        ...poisoningRows('without the defences', sourcedTools(tools), stuffed, UNDEFENDED),
      );

      // Definitions size.
      const all = JSON.stringify(await loaded.definitions({ format: 'openai' })).length;
      const few = JSON.stringify(await deferred.definitions({ format: 'openai' })).length;
      rows.push({
        scenario: '14',
        name: `definitions(), everything deferred vs all ${tools.length} loaded (openai format)`,
        unit: 'chars',
        measured: score(few),
        baseline: { label: 'all loaded', ...score(all) },
        ratio: few / all,
        ratioText: `${((1 - few / all) * 100).toFixed(1)}% smaller`,
        target: { max: 0.15, text: '≥ 85% smaller' },
        note:
          `≈ ${Math.round(few / CHARS_PER_TOKEN)} vs ${Math.round(all / CHARS_PER_TOKEN)} tokens (estimated as ` +
          `JSON characters / ${CHARS_PER_TOKEN})`,
      });

      // Latency: tool_search through dispatch vs a trivial dispatch, side by side.
      small = await benchHost(tmp);
      let q = 0;
      const queries = QUERIES.map(([query]) => query);
      const samples = await interleave(
        [
          {
            name: 'search',
            op: () =>
              deferred.dispatch('tool_search', { query: queries[q++ % queries.length] }, { sessionId: 'latency' }),
          },
          { name: 'dispatch', op: () => small.dispatch('bench_echo', '{"n":1}') },
        ],
        quick ? { rounds: 4, batch: 100, warmup: 100 } : { rounds: 10, batch: 250, warmup: 300 },
      );
      const search = summarize(samples.search);
      const dispatch = summarize(samples.dispatch);
      rows.push({
        scenario: '14',
        name: `tool_search over ${tools.length} tools (host.dispatch, default limit)`,
        measured: search,
        baseline: { label: `trivial dispatch (thread tier, ${THREADS} threads)`, ...dispatch },
        ratio: ratio(search, dispatch),
        target: { max: 2, text: 'p50 ≤ 2× a dispatch' },
        note:
          `p99 ratio ${(search.p99 / dispatch.p99).toFixed(2)}×; the search runs on the host thread, the ` +
          `dispatch in a worker`,
      });

      // What deferral adds to a full recompute: the catalogue has no checks, so invalidateChecks() drops only the memo.
      const recompute = await interleave(
        [
          { name: 'deferred', op: () => deferred.definitions(), prepare: () => deferred.invalidateChecks() },
          { name: 'loaded', op: () => loaded.definitions(), prepare: () => loaded.invalidateChecks() },
        ],
        quick ? { rounds: 3, batch: 10, warmup: 5 } : { rounds: 10, batch: 20, warmup: 10 },
      );
      const withDefer = summarize(recompute.deferred);
      const without = summarize(recompute.loaded);
      rows.push({
        scenario: '14',
        name: `definitions() recompute, ${tools.length} tools, defer ['*']`,
        measured: withDefer,
        baseline: { label: 'the same with nothing deferred', ...without },
        ratio: ratio(withDefer, without),
        target: { text: 'report' },
        note:
          'the deferral step is linear in the exposed tools; the index is not rebuilt here (only on the next ' +
          'search, for the tools that changed)',
      });

      // Index build vs startup, and the search alone at ten times the catalogue.
      const builds = [];
      for (let i = 0; i < (quick ? 5 : 20); i++) {
        const t0 = performance.now();
        new ToolIndex().sync(indexedTools(tools));
        builds.push(performance.now() - t0);
      }
      const build = summarize(builds);
      const startup = summarize(startups);
      rows.push({
        scenario: '14',
        name: `index build, ${tools.length} tools (once per exposure, on the first search)`,
        measured: build,
        baseline: { label: 'createToolHost, defer [*], manifest cache warm', ...startup },
        ratio: ratio(build, startup),
        target: { text: 'report' },
        note:
          'the index is not built at startup: the first tool_search builds it, later exposures re-index only ' +
          'changed tools',
      });
      const big = [];
      for (let copy = 0; copy < 10; copy++) for (const t of tools) big.push({ ...t, name: `${t.name}_${copy}` });
      const bigIndex = new ToolIndex();
      const t0 = performance.now();
      bigIndex.sync(indexedTools(big));
      const bigBuild = performance.now() - t0;
      const bigSamples = [];
      for (let i = 0; i < (quick ? 200 : 1000); i++) {
        const s = performance.now();
        bigIndex.search(queries[i % queries.length], 5);
        bigSamples.push(performance.now() - s);
      }
      const bigSearch = summarize(bigSamples);
      rows.push({
        scenario: '14',
        name: `index search alone, ${big.length} tools (the catalogue ×10)`,
        measured: bigSearch,
        baseline: { label: `trivial dispatch`, ...dispatch },
        ratio: ratio(bigSearch, dispatch),
        target: { text: 'report' },
        note: `building that index took ${bigBuild.toFixed(0)} ms (one sample)`,
      });
      return rows;
    } finally {
      await loaded.close();
      await deferred?.close();
      await small?.close();
    }
  },
};
