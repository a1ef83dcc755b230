/**
 * Scenario 21: tool search on real MCP servers it was never tuned on.
 *
 * - retrieval: the catalogue of bench/tool-search/real (the tools of real MCP
 *   servers from npm, as toolshed listed them) and the queries written for it
 *   by people who never saw the ranker, split by server into a tuning half and
 *   a held-out half (real-eval.js). The held-out half's recall@1, recall@5 and
 *   MRR@10, over its own servers' tools and over the whole catalogue, against
 *   plain BM25 over name and description (MiniSearch's defaults) on the same
 *   data; the tuning half beside it, for the gap; and what each method adds
 *   (variants.js), on both halves.
 * - latency: `host.dispatch('tool_search', …)` over 5,000 tools (the
 *   catalogue's tools, copied under new names, in real plugin packages) against
 *   one trivial thread-tier dispatch, side by side; the index search alone;
 *   the index built on the first search, and re-indexing one server's tools.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createToolHost } from '../../dist/core/index.js';
import { ToolIndex, RANKING } from '../../dist/core/call/search/search-index.js';
import { evaluateHalf, half, indexedTool, realCatalogue, realQueries } from '../tool-search/real-eval.js';
import { plainBm25 } from '../tool-search/baselines.js';
import { RANKING_VARIANTS } from '../tool-search/variants.js';
import { writePlugin } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { cacheDirFor } from '../lib/cache-dir.js';
import { benchHost, THREADS } from './dispatch.js';

/** Tools in the latency catalogue. */
const LATENCY_TOOLS = 5000;

const score = (value) => ({ median: value, p99: NaN, n: 1 });
const fixed = (v) => v.toFixed(3);

/** A ranker over `tools` with `options` (the index tool_search uses, with each tool's server as its source). */
const indexRanker = (options) => (tools) => {
  const index = new ToolIndex(options);
  index.sync(tools.map(indexedTool));
  return (query) => index.search(query, 10);
};

/** plain BM25 over the catalogue's tools. */
const bm25Ranker = (tools) => plainBm25(tools);

/** Rows for one half: tool_search's recall@1, recall@5, MRR@10 next to plain BM25's. */
function qualityRows(label, part, targets) {
  const ours = evaluateHalf(part, indexRanker(RANKING));
  const plain = evaluateHalf(part, bm25Ranker);
  const row = (name, key, target) => ({
    scenario: '21',
    name: `${label}: ${name}`,
    unit: 'score',
    measured: score(ours[key]),
    baseline: { label: 'plain BM25, name + description', ...score(plain[key]) },
    ratio: target?.gain ? ours[key] - plain[key] : ours[key],
    ratioText: `${ours[key] - plain[key] >= 0 ? '+' : ''}${fixed(ours[key] - plain[key])}`,
    target: target?.gain
      ? { min: target.gain, text: `≥ +${target.gain} over plain BM25` }
      : target?.min
        ? { min: target.min, text: `≥ ${target.min}` }
        : { text: 'report' },
    note:
      `${part.queries.length} queries, ${part.tools.length} tools of ` +
      `${new Set(part.tools.map((t) => t.server)).size} servers`,
  });
  const rows = [
    row('recall@1', 'recallAt1'),
    row('recall@5', 'recallAt5', targets ? { min: 0.9 } : undefined),
    row('MRR@10', 'mrrAt10'),
  ];
  if (targets)
    rows.splice(2, 0, {
      ...row('recall@5', 'recallAt5', { gain: 0.1 }),
      name: `${label}: recall@5 gain over plain BM25`,
    });
  return { rows, ours, plain };
}

/** One row per variant: its held-out recall@5 and MRR against tool_search's, with the tuning half's in the note. */
function variantRows(heldOut, tuning) {
  const base = { held: evaluateHalf(heldOut, indexRanker(RANKING)), tune: evaluateHalf(tuning, indexRanker(RANKING)) };
  return RANKING_VARIANTS.map(([name, options]) => {
    const held = evaluateHalf(heldOut, indexRanker(options));
    const tune = evaluateHalf(tuning, indexRanker(options));
    return {
      scenario: '21',
      name: `held-out, ${name}`,
      unit: 'score',
      measured: score(held.recallAt5),
      baseline: { label: 'tool_search recall@5', ...score(base.held.recallAt5) },
      ratio: held.recallAt5 - base.held.recallAt5,
      ratioText: `${held.recallAt5 >= base.held.recallAt5 ? '+' : ''}${fixed(held.recallAt5 - base.held.recallAt5)}`,
      target: { text: 'report' },
      note:
        `held-out recall@1 ${fixed(held.recallAt1)} (${fixed(base.held.recallAt1)}), MRR@10 ` +
        `${fixed(held.mrrAt10)} (${fixed(base.held.mrrAt10)}); tuning recall@5 ${fixed(tune.recallAt5)} (` +
        `${fixed(base.tune.recallAt5)}), MRR@10 ${fixed(tune.mrrAt10)} (${fixed(base.tune.mrrAt10)})`,
    };
  });
}

/** The catalogue's tools copied under new names until there are `n`, in plugin packages of one server copy each. */
function latencyPackages(root, n) {
  const { tools } = realCatalogue();
  const byServer = new Map();
  for (const tool of tools) byServer.set(tool.server, [...(byServer.get(tool.server) ?? []), tool]);
  const dirs = [];
  let count = 0;
  for (let copy = 0; count < n; copy++) {
    for (const [server, own] of byServer) {
      if (count >= n) break;
      const taken = own.slice(0, n - count).map((tool) => ({
        name: `${tool.name}_${copy}`.slice(0, 64),
        toolset: `${server}-${copy}`,
        description: tool.description,
        parameters: tool.parameters,
      }));
      count += taken.length;
      const source =
        `const TOOLS = ${JSON.stringify(taken)};\nexport default { apiVersion: 1, tools: TOOLS.map((tool) => ({ ` +
        `...tool, handler: () => tool.name })) };\n`;
      dirs.push(
        writePlugin(path.join(root, `real-${server}-${copy}`), `toolshed-plugin-real-${server}-${copy}`, source),
      );
    }
  }
  return dirs;
}

export default {
  id: '21',
  title: 'tool search on real MCP servers: held-out quality, and latency at 5,000 tools',
  async run({ tmp, quick }) {
    const heldOut = half('heldOut');
    const tuning = half('tuning');
    const heldOutAll = half('heldOut', { own: false });
    const catalogue = realCatalogue();
    const rows = [
      {
        scenario: '21',
        name: 'the evaluation',
        unit: 'score',
        measured: score(catalogue.tools.length),
        baseline: { label: 'servers', ...score(catalogue.servers.length) },
        ratio: 0,
        ratioText: '—',
        target: { text: 'report' },
        note:
          `${catalogue.tools.length} tools of ${catalogue.servers.length} MCP servers, ${realQueries().length} ` +
          `queries; held-out: ${heldOut.servers.length} servers, ${heldOut.queries.length} queries; tuning: ` +
          `${tuning.servers.length} servers, ${tuning.queries.length} queries`,
      },
      ...qualityRows('held-out (its own servers)', heldOut, true).rows,
      ...qualityRows('held-out (whole catalogue)', heldOutAll, false).rows,
      ...qualityRows('tuning half (its own servers)', tuning, false).rows,
      ...variantRows(heldOut, tuning),
    ];

    // Latency at 5,000 tools: tool_search through dispatch vs a trivial dispatch, side by side.
    const dirs = latencyPackages(path.join(tmp, 'real-latency'), LATENCY_TOOLS);
    const host = await createToolHost({
      cwd: tmp,
      config: {
        builtins: false,
        plugins: dirs.map((dir) => ({ package: dir, trust: 'trusted' })),
        cache: { dir: cacheDirFor(tmp) },
        limits: { threads: 1 },
        defer: ['*'],
      },
    });
    const small = await benchHost(tmp);
    try {
      const queries = realQueries().map((q) => q.query);
      const t0 = performance.now();
      await host.dispatch('tool_search', { query: queries[0] }, { sessionId: 'build' });
      const firstSearch = performance.now() - t0;
      let q = 0;
      const samples = await interleave(
        [
          {
            name: 'search',
            op: () => host.dispatch('tool_search', { query: queries[q++ % queries.length] }, { sessionId: 'latency' }),
          },
          { name: 'dispatch', op: () => small.dispatch('bench_echo', '{"n":1}') },
        ],
        quick ? { rounds: 4, batch: 100, warmup: 100 } : { rounds: 10, batch: 250, warmup: 300 },
      );
      const search = summarize(samples.search);
      const dispatch = summarize(samples.dispatch);
      rows.push({
        scenario: '21',
        name: `tool_search over ${LATENCY_TOOLS} tools (host.dispatch, default limit)`,
        measured: search,
        baseline: { label: `trivial dispatch (thread tier, ${THREADS} threads)`, ...dispatch },
        ratio: ratio(search, dispatch),
        target: { max: 2, text: 'p50 ≤ 2× a dispatch' },
        note:
          `p99 ratio ${(search.p99 / dispatch.p99).toFixed(2)}×; the first search, which built the index, took ` +
          `${firstSearch.toFixed(0)} ms`,
      });

      // The index alone: search, build, and re-indexing one server's tools after a change.
      const tools = [];
      for (let copy = 0; tools.length < LATENCY_TOOLS; copy++)
        for (const tool of catalogue.tools)
          if (tools.length < LATENCY_TOOLS)
            tools.push(indexedTool({ ...tool, name: `${tool.name}_${copy}`, server: `${tool.server}-${copy}` }));
      const index = new ToolIndex();
      const b0 = performance.now();
      index.sync(tools);
      const build = performance.now() - b0;
      let i = 0;
      const alone = await interleave(
        [
          { name: 'index', op: () => index.search(queries[i++ % queries.length], 5) },
          { name: 'dispatch', op: () => small.dispatch('bench_echo', '{"n":1}') },
        ],
        quick ? { rounds: 4, batch: 100, warmup: 100 } : { rounds: 10, batch: 250, warmup: 300 },
      );
      const indexSearch = summarize(alone.index);
      rows.push({
        scenario: '21',
        name: `the index search alone, ${LATENCY_TOOLS} tools`,
        measured: indexSearch,
        baseline: { label: 'trivial dispatch', ...summarize(alone.dispatch) },
        ratio: ratio(indexSearch, summarize(alone.dispatch)),
        target: { text: 'report' },
        note: `building that index took ${build.toFixed(0)} ms (one sample)`,
      });
      const server = tools[0].source;
      const changed = tools.map((tool) =>
        tool.source === server
          ? { ...tool, definition: { ...tool.definition, description: `${tool.definition.description} (v2)` } }
          : tool,
      );
      const resyncs = [];
      for (let k = 0; k < (quick ? 4 : 10); k++) {
        const s0 = performance.now();
        const n = index.sync(k % 2 ? tools : changed);
        resyncs.push(performance.now() - s0);
        if (!n) throw new Error('the resync changed nothing');
      }
      const resync = summarize(resyncs);
      rows.push({
        scenario: '21',
        name:
          `re-indexing one server's ${changed.filter((tool) => tool.source === server).length} changed tools ` +
          `among ${LATENCY_TOOLS}`,
        measured: resync,
        baseline: { label: 'building the whole index', ...score(build) },
        ratio: resync.median / build,
        target: { text: 'report' },
        note: 'sync compares each tool with what it indexed and re-indexes only the changed ones',
      });
    } finally {
      await host.close();
      await small.close();
    }
    return rows;
  },
};
