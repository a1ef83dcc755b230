/**
 * Scenario 4: wall time of a fresh `node` process that creates a host with 40
 * plugin packages (300 tools, no checks) and exits, with the manifest cache
 * warm and with it disabled, against `node -e 0`; the host's RSS with no
 * pool started against a bare node process's RSS; and the same 40 plugins each
 * holding an env grant, so each gets a pool of its own (the default), against
 * all of them opted into the shared pool.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { writeRegistry } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { cacheDirFor } from '../lib/cache-dir.js';

const CHILD = fileURLToPath(new URL('../lib/startup-child.js', import.meta.url));
const MB = 2 ** 20;

/** Runs `node ...args` to completion; resolves with its wall time and stdout. */
export function runNode(args, timeoutMs = 60_000, env = process.env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      if (code === 0) resolve({ ms, stdout });
      else
        reject(
          new Error(
            `node ${args[0]} exited with ${code ?? signal}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
          ),
        );
    });
  });
}

export default {
  id: '4',
  title: 'Startup with 40 plugin packages',
  async run({ tmp, quick }) {
    const dirs = writeRegistry(path.join(tmp, 'plugins'), { plugins: 40, tools: 300, checks: 0 });
    const base = { builtins: false, plugins: dirs.map((dir) => ({ package: dir, trust: 'trusted' })) };
    const warmConfig = JSON.stringify({ ...base, cache: { dir: cacheDirFor(tmp) } });
    const coldConfig = JSON.stringify({ ...base, cache: { enabled: false } });
    // The same plugins each granted BENCH_POOL_TOKEN (set in the child's env), warm cache: own pools by default.
    const grantEnv = { ...process.env, BENCH_POOL_TOKEN: 'bench-token' };
    const granted = (pool) =>
      JSON.stringify({
        ...base,
        plugins: base.plugins.map((p) => ({ ...p, grant: { env: ['BENCH_POOL_TOKEN'] }, ...(pool ? { pool } : {}) })),
        cache: { dir: cacheDirFor(tmp) },
      });
    const ownConfig = granted(undefined);
    const sharedConfig = granted('shared');
    const rss = { warm: [], cold: [], own: [], shared: [] };
    const host = (kind, config, env) => async () =>
      rss[kind].push(JSON.parse((await runNode([CHILD, config, tmp], undefined, env)).stdout).rss / MB);
    const report = async (config, env) =>
      JSON.parse((await runNode([CHILD, config, tmp, '--report'], undefined, env)).stdout);

    await host('warm', warmConfig)(); // fills the manifest cache
    const samples = await interleave(
      [
        { name: 'node', op: () => runNode(['-e', '0']) },
        { name: 'warm', op: host('warm', warmConfig) },
        { name: 'cold', op: host('cold', coldConfig) },
        { name: 'own', op: host('own', ownConfig, grantEnv) },
        { name: 'shared', op: host('shared', sharedConfig, grantEnv) },
      ],
      { rounds: quick ? 3 : 12, batch: 1, warmup: quick ? 0 : 1 },
    );
    const warmReport = await report(warmConfig);
    const coldReport = await report(coldConfig);
    const ownReport = await report(ownConfig, grantEnv);
    if (ownReport.ownPools !== 40 || ownReport.poolsStarted !== 0 || ownReport.fromCache !== 40)
      throw new Error(
        `40 plugins holding env grants did not start as 40 idle pools of their own: ${JSON.stringify(ownReport)}`,
      );
    if (
      warmReport.loaded !== 40 ||
      warmReport.fromCache !== 40 ||
      warmReport.poolsStarted !== 0 ||
      warmReport.extractionPoolStarted
    ) {
      throw new Error(`a warm start is not what it claims to be: ${JSON.stringify(warmReport)}`);
    }
    if (coldReport.loaded !== 40 || coldReport.fromCache !== 0)
      throw new Error(`a start without cache is not what it claims to be: ${JSON.stringify(coldReport)}`);

    const bareRss = [];
    for (let i = 0; i < 3; i++)
      bareRss.push(
        Number((await runNode(['-e', 'process.stdout.write(String(process.memoryUsage().rss))'])).stdout) / MB,
      );
    // Warm starts only (a start without cache has run an extraction pool), minus the cache fill and the warm-up.
    const hostRss = rss.warm.slice(quick ? 1 : 2);

    const node = summarize(samples.node);
    const warm = summarize(samples.warm);
    const cold = summarize(samples.cold);
    const own = summarize(samples.own);
    const shared = summarize(samples.shared);
    const label = 'node -e 0';
    return [
      {
        scenario: '4',
        name: 'startup, 40 plugins, manifest cache warm',
        measured: warm,
        baseline: { label, ...node },
        ratio: ratio(warm, node),
        target: { max: 3, text: '≤ 3× node -e 0' },
        note:
          `createToolHost itself (explain().startupMs of one more run) took ${warmReport.startupMs} ms; the rest ` +
          `is Node start and module loading`,
      },
      {
        scenario: '4',
        name: 'startup, 40 plugins, no manifest cache',
        measured: cold,
        baseline: { label, ...node },
        ratio: ratio(cold, node),
        target: { max: 15, text: '≤ 15× node -e 0' },
        note:
          `createToolHost itself took ${coldReport.startupMs} ms in one more run (manifests extracted in a pool ` +
          `of up to 2 threads)`,
      },
      {
        scenario: '4',
        name: 'host RSS after createToolHost, 40 plugins, no pool started',
        unit: 'MB',
        measured: summarize(hostRss),
        baseline: { label: 'bare node RSS', ...summarize(bareRss) },
        ratio: ratio(summarize(hostRss), summarize(bareRss)),
        target: { text: 'report' },
      },
      {
        scenario: '4',
        name: 'startup, 40 plugins holding env grants, cache warm: own pools (default) vs the shared pool',
        measured: own,
        baseline: { label: "the same with pool: 'shared'", ...shared },
        ratio: ratio(own, shared),
        target: { text: 'report' },
        note:
          `pools start on a plugin's first call, so none started; host RSS ` +
          `${summarize(rss.own).median.toFixed(1)} MB with own pools, ${summarize(rss.shared).median.toFixed(1)} ` +
          `MB shared`,
      },
    ];
  },
};
