/**
 * Scenario 11: what active plugins cost. A fresh `node` process creates a host,
 * calls every plugin's tool (so its pool or child is running) and reports its
 * RSS and threads, and the RSS and PSS of every process below it.
 *
 * - 40 active trusted plugins against a host with 1 active trusted plugin
 *   (target ≤ 1.5×: they share one pool);
 * - 40 active untrusted plugins: processes per plugin (node, and the sandbox
 *   launcher that stays resident as its parent, with its own RSS and PSS), and
 *   PSS per plugin against the PSS of a bare `node` process measured the same way;
 * - 40 active trusted plugins holding an env grant: each in a pool of its own
 *   (the default) against all of them opted into the shared pool (`pool: 'shared'`),
 *   side by side: what the safer default costs per plugin.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBenchPlugin } from '../lib/plugins.js';
import { summarize } from '../stats.js';
import { cacheDirFor } from '../lib/cache-dir.js';

const CHILD = fileURLToPath(new URL('../lib/memory-child.js', import.meta.url));

function runNode(args, timeoutMs = 180_000, env = process.env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`memory child exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

const BARE =
  "const f=(p,n)=>Number(new RegExp('^'+n+':\\\\s+(\\\\d+)','m').exec(require('fs').readFileSync(p,'utf8'))[1]);" +
  "process.stdout.write(JSON.stringify({rssKb:f('/proc/self/status','VmRSS')," +
  "pssKb:f('/proc/self/smaps_rollup','Pss')," +
  "threads:f('/proc/self/status','Threads')}))";

/** The note's words on an untrusted plugin's launcher process: its memory, or that there is none. */
function launcherNote(plugin) {
  if (!plugin.launcher) return 'no launcher process';
  const rss = plugin.launcherRss.toFixed(1);
  return `the resident ${plugin.launcher} launcher: RSS ${rss} MB, PSS ${plugin.launcherPss.toFixed(2)} MB`;
}

export default {
  id: '11',
  title: 'Memory and threads: 40 active trusted plugins, 40 untrusted',
  async run({ tmp, quick }) {
    if (process.platform !== 'linux')
      return [{ scenario: '11', name: 'memory with 40 active plugins', notMeasured: 'reads /proc (Linux only)' }];
    const dirs = Array.from({ length: 40 }, (_, i) =>
      writeBenchPlugin(path.join(tmp, `mem-${i}`), { name: `toolshed-plugin-mem-${i}`, prefix: `mem${i}_` }),
    );
    const config = (count, trust) =>
      JSON.stringify({
        builtins: false,
        cache: { dir: cacheDirFor(tmp) },
        plugins: dirs.slice(0, count).map((dir) => ({ package: dir, trust })),
      });
    const sample = async (count, trust) =>
      JSON.parse(await runNode([CHILD, config(count, trust), tmp, 'echo', String(count)]));
    // Every plugin granted BENCH_POOL_TOKEN (set in the child's env): by default each gets a pool of its own.
    const granted = (pool) =>
      JSON.stringify({
        builtins: false,
        cache: { dir: cacheDirFor(tmp) },
        plugins: dirs.map((dir) => ({
          package: dir,
          trust: 'trusted',
          grant: { env: ['BENCH_POOL_TOKEN'] },
          ...(pool ? { pool } : {}),
        })),
      });
    const sampleGranted = async (pool) =>
      JSON.parse(
        await runNode([CHILD, granted(pool), tmp, 'echo', '40'], undefined, {
          ...process.env,
          BENCH_POOL_TOKEN: 'bench-token',
        }),
      );
    const runs = quick ? 1 : 3;
    const one = [];
    const forty = [];
    const untrusted = [];
    const bare = [];
    const grantShared = [];
    const grantOwn = [];
    for (let i = 0; i < runs; i++) {
      one.push(await sample(1, 'trusted'));
      forty.push(await sample(40, 'trusted'));
      untrusted.push(await sample(40, 'untrusted'));
      bare.push(JSON.parse(await runNode(['-e', BARE])));
      // Alternated, so both see the same machine.
      for (const kind of i % 2 ? ['own', 'shared'] : ['shared', 'own'])
        (kind === 'own' ? grantOwn : grantShared).push(await sampleGranted(kind === 'own' ? undefined : 'shared'));
    }
    const mb = (kb) => kb / 1024;
    const rss = (list) => summarize(list.map((s) => mb(s.rssKb)));
    const sum = (list, key) => list.reduce((n, c) => n + c[key], 0);
    const perPlugin = untrusted.map((s) => {
      // The launcher (bwrap or unshare) stays resident as node's parent; reported apart from node.
      const launchers = s.children.filter((c) => c.name !== 'node');
      return {
        pss: mb(sum(s.children, 'pssKb')) / 40,
        rss: mb(sum(s.children, 'rssKb')) / 40,
        processes: s.children.length / 40,
        nodes: (s.children.length - launchers.length) / 40,
        launcher: launchers[0]?.name,
        launcherPss: launchers.length ? mb(sum(launchers, 'pssKb')) / launchers.length : 0,
        launcherRss: launchers.length ? mb(sum(launchers, 'rssKb')) / launchers.length : 0,
        nodeThreads: s.children.find((c) => c.name === 'node')?.threads,
      };
    });
    const pss = summarize(perPlugin.map((p) => p.pss));
    const ownRss = rss(grantOwn);
    const sharedRss = rss(grantShared);
    const extraPerPool = (ownRss.median - sharedRss.median) / 40;
    const ownThreads = grantOwn[grantOwn.length - 1].threads;
    const sharedThreads = grantShared[grantShared.length - 1].threads;
    if (ownThreads - sharedThreads < 30)
      throw new Error(
        `40 plugins holding env grants did not get pools of their own: ${ownThreads} threads against ` +
          `${sharedThreads} shared`,
      );
    const barePss = summarize(bare.map((s) => mb(s.pssKb)));
    const last = forty[forty.length - 1];
    return [
      {
        scenario: '11',
        name: 'host RSS, 40 active trusted plugins vs 1',
        unit: 'MB',
        measured: rss(forty),
        baseline: { label: 'host with 1 active trusted plugin', ...rss(one) },
        ratio: rss(forty).median / rss(one).median,
        target: { max: 1.5, text: '≤ 1.5×' },
        note:
          `threads in the host process: ${last.threads} with 40 plugins, ${one[one.length - 1].threads} with 1 ` +
          `(one shared pool)`,
      },
      {
        scenario: '11',
        name: 'PSS per active untrusted plugin (40 plugins)',
        unit: 'MB',
        measured: pss,
        baseline: { label: 'PSS of a bare node process', ...barePss },
        ratio: pss.median / barePss.median,
        target: { text: 'report' },
        note:
          `${perPlugin[0].processes.toFixed(1)} processes per untrusted plugin (${perPlugin[0].nodes.toFixed(1)} ` +
          `node, ${perPlugin[0].nodeThreads} threads; ` +
          `${launcherNote(perPlugin[0])}); ` +
          `RSS per plugin ${perPlugin[0].rss.toFixed(1)} MB; host RSS ${mb(untrusted[0].rssKb).toFixed(0)} MB`,
      },
      {
        scenario: '11',
        name: 'host RSS, 40 active trusted plugins holding env grants: own pools (default) vs one shared pool',
        unit: 'MB',
        measured: ownRss,
        baseline: { label: "the same plugins with pool: 'shared'", ...sharedRss },
        ratio: ownRss.median / sharedRss.median,
        target: { text: 'report' },
        note:
          `${(ownRss.median - sharedRss.median).toFixed(0)} MB more in all, ${extraPerPool.toFixed(1)} MB per ` +
          `pool of its own (one thread each, started by its calls); threads in the host process: ${ownThreads} ` +
          `with own pools, ${sharedThreads} with the shared pool`,
      },
    ];
  },
};
