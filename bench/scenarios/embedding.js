/**
 * Scenario 8: what embedding costs.
 *
 * - a view: `host.view({ enable })` plus its first `definitions()` on the
 *   40-plugin, 300-tool registry, against creating that host in-process (warm
 *   manifest cache, no checks: the cheapest honest startup). Target ≤ 5%.
 * - hooks: a trivial dispatch through one no-op beforeCall/afterCall pair,
 *   against the same dispatch with no hooks (context: what a hook costs).
 * - traces: the same dispatch while an OpenTelemetry SDK records every span
 *   (in-memory exporter), against no SDK (context: what recording costs).
 */
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import path from 'node:path';
import { createToolHost } from '../../dist/core/index.js';
import { writeRegistry } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { benchHost } from './dispatch.js';
import { cacheDirFor } from '../lib/cache-dir.js';

export default {
  id: '8',
  title: 'Embedding: views, hooks and traces',
  async run({ tmp, quick }) {
    const dirs = writeRegistry(path.join(tmp, 'plugins'), { plugins: 40, tools: 300, checks: 0 });
    const options = {
      cwd: tmp,
      config: {
        builtins: false,
        plugins: dirs.map((dir) => ({ package: dir, trust: 'trusted' })),
        cache: { dir: cacheDirFor(tmp) },
      },
    };
    await (await createToolHost(options)).close(); // fills the manifest cache
    const host = await createToolHost(options);
    let plain;
    let hooked;
    try {
      const all = (await host.definitions()).length;
      const some = (await host.view({ enable: ['group0', 'group1'] }).definitions()).length;
      if (!(some > 0 && some < all)) throw new Error(`the view exposes ${some} of ${all} tools`);
      const views = await interleave(
        [
          { name: 'startup', op: async () => (await createToolHost(options)).close(), batch: quick ? 2 : 5, warmup: 1 },
          {
            name: 'view',
            op: async () => {
              const view = host.view({ enable: ['group0', 'group1'] });
              await view.definitions();
              await view.close();
            },
            batch: quick ? 20 : 50,
            warmup: 10,
          },
        ],
        { rounds: quick ? 3 : 8, batch: 5 },
      );

      plain = await benchHost(tmp, { dir: path.join(tmp, 'bench-plain') });
      hooked = await benchHost(tmp, { dir: path.join(tmp, 'bench-hooked') });
      hooked.use({ beforeCall: () => undefined, afterCall: () => undefined });
      const calls = await interleave(
        [
          { name: 'plain', op: () => plain.dispatch('bench_echo', '{"n":1}') },
          { name: 'hooked', op: () => hooked.dispatch('bench_echo', '{"n":1}') },
        ],
        quick ? { rounds: 6, batch: 100, warmup: 200 } : { rounds: 20, batch: 250, warmup: 500 },
      );
      // Recording spans: a global SDK provider for this part only (nothing else in the run records).
      const exporter = new InMemorySpanExporter();
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      const traced = await interleave(
        [
          { name: 'untraced', op: () => plain.dispatch('bench_echo', '{"n":1}'), before: () => trace.disable() },
          {
            name: 'traced',
            op: () => plain.dispatch('bench_echo', '{"n":1}'),
            before: () => {
              trace.setGlobalTracerProvider(provider);
              exporter.reset();
            },
          },
        ],
        quick ? { rounds: 6, batch: 100, warmup: 200 } : { rounds: 20, batch: 250, warmup: 500 },
      );
      trace.disable();
      await provider.shutdown();
      const s = Object.fromEntries(
        [...Object.entries(views), ...Object.entries(calls), ...Object.entries(traced)].map(([k, v]) => [
          k,
          summarize(v),
        ]),
      );
      return [
        {
          scenario: '8',
          name:
            'view() + its first definitions() (2 of 4 toolset groups) vs host startup in-process (40 plugins, ' +
            '300 tools, warm cache)',
          measured: s.view,
          baseline: { label: 'createToolHost + close', ...s.startup },
          ratio: ratio(s.view, s.startup),
          target: { max: 0.05, text: '≤ 0.05×' },
        },
        {
          scenario: '8',
          name: 'dispatch with one no-op beforeCall/afterCall pair vs no hooks',
          measured: s.hooked,
          baseline: { label: 'dispatch, no hooks', ...s.plain },
          ratio: ratio(s.hooked, s.plain),
          target: { text: 'context' },
        },
        {
          scenario: '8',
          name: 'dispatch while an OpenTelemetry SDK records its spans (in-memory exporter) vs no SDK',
          measured: s.traced,
          baseline: { label: 'dispatch, no SDK', ...s.untraced },
          ratio: ratio(s.traced, s.untraced),
          target: { text: 'context' },
        },
      ];
    } finally {
      await host.close();
      await plain?.close();
      await hooked?.close();
    }
  },
};
