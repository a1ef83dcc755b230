/**
 * Scenario 18: CPU per call of `toolshed serve --http`, stateful (a 2025-era
 * session per client) and `--stateless`, against a plain SDK v2 server with
 * the same trivial tool (bench/lib/http-server.js) in the same modes. A load
 * generator in a process of its own (bench/lib/http-load.js) keeps 32
 * tools/call requests in flight over keep-alive connections, straight to each
 * server and through haproxy; the server's CPU time (user + system, read from
 * /proc, worker threads included) is divided by the calls it answered. Every
 * server runs for the whole scenario; the batches alternate (stats.js). The
 * target compares with the worker-less SDK server; the SDK server whose handler
 * runs the tool in a raw Piscina pool (as toolshed runs it in its worker)
 * gives context.
 */
import { fork, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBenchPlugin } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { cacheDirFor } from '../lib/cache-dir.js';

const CLI = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const BASELINE = fileURLToPath(new URL('../lib/http-server.js', import.meta.url));
const LOAD = fileURLToPath(new URL('../lib/http-load.js', import.meta.url));
const CONCURRENCY = 32;
/** /proc/<pid>/stat counts CPU time in clock ticks (USER_HZ). */
const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);
const TARGET = { max: 1.3, text: '≤ 1.3× CPU per call' };

/** A free TCP port on loopback. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** CPU milliseconds (user + system, every thread) the process `pid` has used. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** Spawns `args` and resolves once its stderr says it listens; the error carries its stderr. */
function startServer(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const timer = setTimeout(
      () => fail(new Error(`not listening within 60 s: ${stderr.trim().split('\n').at(-1) ?? ''}`)),
      60_000,
    );
    const fail = (error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('exit', (code) => fail(new Error(`exited (${code}): ${stderr.trim().split('\n').at(-1) ?? ''}`)));
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (!/listening on http:\/\/\S+\/mcp/.test(stderr)) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve(child);
    });
  });
}

/**
 * One haproxy in HTTP mode with a frontend per backend address; resolves with the process and each
 * frontend's port. It rewrites Host to the backend's address, as a proxy in front of a server bound to
 * loopback must (serve checks Host there against DNS rebinding).
 */
async function startHaproxy(backends, dir) {
  const bin = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy'].find(existsSync) ?? 'haproxy';
  const ports = await Promise.all(backends.map(() => freePort()));
  const config = [
    'global',
    '    maxconn 4096',
    'defaults',
    '    mode http',
    '    timeout connect 5s',
    '    timeout client 60s',
    '    timeout server 60s',
    '    option http-keep-alive',
    ...backends.flatMap((address, i) => [
      `listen bench${i}`,
      `    bind 127.0.0.1:${ports[i]}`,
      `    http-request set-header Host ${address}`,
      `    server s${i} ${address}`,
    ]),
  ].join('\n');
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, `${config}\n`);
  const child = spawn(bin, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  for (const port of ports) {
    for (let attempt = 0; ; attempt++) {
      if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode})`);
      const open = await new Promise((resolve) =>
        net
          .connect(port, '127.0.0.1')
          .once('connect', function () {
            this.destroy();
            resolve(true);
          })
          .once('error', () => resolve(false)),
      );
      if (open) break;
      if (attempt > 400) throw new Error(`haproxy does not listen on ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  return { child, ports };
}

/** The load generator process and a request/answer wrapper around its IPC channel. */
function startLoad() {
  const child = fork(LOAD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map();
  let next = 0;
  child.on('message', (message) => {
    const settle = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) settle.reject(new Error(message.error));
    else settle.resolve(message);
  });
  const ask = (message) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      child.send({ ...message, id });
    });
  return { child, ask };
}

export default {
  id: '18',
  title: 'serve --http: CPU per call at concurrency 32',
  async run({ tmp, quick }) {
    const dir = writeBenchPlugin(path.join(tmp, 'bench'));
    const config = path.join(tmp, '.toolshedrc.json');
    // One load generator stands for 32 clients, direct and through haproxy, all from 127.0.0.1: lift the per-client
    // session cap.
    const serve = { maxSessionsPerClient: 100 };
    writeFileSync(
      config,
      JSON.stringify({
        builtins: false,
        plugins: [{ package: dir, trust: 'trusted' }],
        cache: { dir: cacheDirFor(tmp) },
        serve,
      }),
    );
    const servers = [
      {
        name: 'toolshed',
        stateful: true,
        args: (port) => [CLI, 'serve', '--http', `127.0.0.1:${port}`, '--config', config],
      },
      {
        name: 'toolshed',
        stateful: false,
        args: (port) => [CLI, 'serve', '--http', `127.0.0.1:${port}`, '--stateless', '--config', config],
      },
      { name: 'sdk', stateful: true, args: (port) => [BASELINE, String(port)] },
      { name: 'sdk', stateful: false, args: (port) => [BASELINE, String(port), '--stateless'] },
      { name: 'piscina', stateful: true, args: (port) => [BASELINE, String(port), '--piscina'] },
      { name: 'piscina', stateful: false, args: (port) => [BASELINE, String(port), '--stateless', '--piscina'] },
    ];
    const children = [];
    const load = startLoad();
    children.push(load.child);
    try {
      for (const server of servers) {
        server.port = await freePort();
        server.child = await startServer(server.args(server.port), tmp);
        children.push(server.child);
      }
      const proxy = await startHaproxy(
        servers.map((s) => `127.0.0.1:${s.port}`),
        tmp,
      );
      children.push(proxy.child);
      const variants = [];
      for (const [i, server] of servers.entries()) {
        for (const via of ['direct', 'haproxy']) {
          const key = `${server.name} ${server.stateful ? 'stateful' : 'stateless'} ${via}`;
          const port = via === 'direct' ? server.port : proxy.ports[i];
          await load.ask({
            cmd: 'open',
            target: key,
            url: `http://127.0.0.1:${port}/mcp`,
            stateful: server.stateful,
            concurrency: CONCURRENCY,
          });
          const throughput = [];
          variants.push({
            name: key,
            throughput,
            op: async () => {
              const calls = quick ? 400 : 1_500;
              const before = cpuMs(server.child.pid);
              const { ms, errors, firstError } = await load.ask({ cmd: 'run', target: key, calls });
              if (errors) throw new Error(`${key}: ${errors} of ${calls} calls failed, e.g. ${firstError}`);
              throughput.push((calls / ms) * 1000);
              return (cpuMs(server.child.pid) - before) / calls;
            },
          });
        }
      }
      const samples = await interleave(variants, { rounds: quick ? 3 : 6, batch: 1, warmup: 1, reported: true });
      const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
      const rows = [];
      for (const mode of ['stateful', 'stateless']) {
        for (const via of ['direct', 'haproxy']) {
          const measured = summarize(samples[`toolshed ${mode} ${via}`]);
          const rate = (name) =>
            Math.round(median(variants.find((v) => v.name === `${name} ${mode} ${via}`).throughput));
          const note =
            `calls/s: toolshed ${rate('toolshed')}, SDK ${rate('sdk')}, SDK + Piscina ${rate('piscina')}; ` +
            `${CONCURRENCY} in flight, ${samples[`toolshed ${mode} ${via}`].length} batches each`;
          for (const [base, label, target] of [
            ['sdk', `plain SDK server, ${mode}`, TARGET],
            ['piscina', `SDK server + raw Piscina hop, ${mode}`, { text: 'context' }],
          ]) {
            const baseline = summarize(samples[`${base} ${mode} ${via}`]);
            rows.push({
              scenario: '18',
              name: `serve --http${mode === 'stateless' ? ' --stateless' : ''}, ${via}: CPU per tools/call vs ${label}`,
              measured,
              baseline: { label, ...baseline },
              ratio: ratio(measured, baseline),
              target,
              ...(base === 'sdk' ? { note } : {}),
            });
          }
        }
      }
      return rows;
    } finally {
      for (const child of children) child.kill('SIGKILL');
    }
  },
};
