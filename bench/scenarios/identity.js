/**
 * Scenario 19: what identity costs a call. The same thread-tier dispatch of a trivial tool,
 * interleaved in one run, through: the host as it is (the baseline); `host.as(alice)` under an
 * access rule with a calls-per-minute and an in-flight quota (the rule's view, the identity on
 * the call, the quota counted in the memory store); and a host writing an audit line per call to
 * a file (digests of the arguments and the result, one JSON line, written without waiting).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createToolHost } from '../../dist/core/index.js';
import { writeBenchPlugin } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { cacheDirFor } from '../lib/cache-dir.js';
import { THREADS } from './dispatch.js';

export default {
  id: '19',
  title: 'Dispatch as an identity (access rule, quotas) and with the audit log',
  async run({ tmp, quick }) {
    const dir = path.join(tmp, 'bench-identity');
    writeBenchPlugin(dir);
    // The audit file lies outside the workspace (tmp), as the host insists.
    const logs = mkdtempSync(path.join(os.tmpdir(), 'toolshed-bench-audit-'));
    const config = (extra) => ({
      builtins: false,
      plugins: [{ package: dir, trust: 'trusted' }],
      cache: { dir: cacheDirFor(tmp) },
      limits: { threads: THREADS },
      ...extra,
    });
    const hosts = [];
    try {
      const plain = await createToolHost({ cwd: tmp, config: config({}) });
      hosts.push(plain);
      const ruled = await createToolHost({
        cwd: tmp,
        config: config({
          access: [
            { name: 'bench', when: { scopes: ['tools'] }, quota: { callsPerMinute: 1_000_000_000, inFlight: 1_000 } },
          ],
        }),
      });
      hosts.push(ruled);
      const alice = ruled.as({ subject: 'alice', scopes: ['tools'], claims: {} });
      const audited = await createToolHost({
        cwd: tmp,
        config: config({ audit: { to: path.join(logs, 'audit.jsonl') } }),
      });
      hosts.push(audited);
      for (const host of [plain, alice, audited]) {
        const out = await host.dispatch('bench_echo', '{"n":1}');
        if (out !== '{"echo":1}') throw new Error(`bench_echo returned ${out}`);
      }
      const samples = await interleave(
        [
          { name: 'plain', op: () => plain.dispatch('bench_echo', '{"n":1}') },
          { name: 'as', op: () => alice.dispatch('bench_echo', '{"n":1}') },
          { name: 'audited', op: () => audited.dispatch('bench_echo', '{"n":1}') },
        ],
        quick ? { rounds: 6, batch: 100, warmup: 200 } : { rounds: 20, batch: 250, warmup: 500 },
      );
      const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
      const baseline = { label: 'the same dispatch on the host as it is', ...s.plain };
      return [
        {
          scenario: '19',
          name: 'dispatch as an identity: its access rule, calls-per-minute and in-flight quotas',
          measured: s.as,
          baseline,
          ratio: ratio(s.as, s.plain),
          target: { max: 1.2, text: 'p50 ≤ 1.2×' },
        },
        {
          scenario: '19',
          name: 'dispatch with an audit line per call, to a file',
          measured: s.audited,
          baseline,
          ratio: ratio(s.audited, s.plain),
          target: { max: 1.2, text: 'p50 ≤ 1.2×' },
        },
      ];
    } finally {
      for (const host of hosts.reverse()) await host.close();
      rmSync(logs, { recursive: true, force: true });
    }
  },
};
