/**
 * Scenario 20: what the console costs the calls it watches. The same thread-tier dispatch of a
 * trivial tool, interleaved in one run, on: a host nobody watches (the baseline); a host with the
 * console open (`toolshed ui`'s listener on loopback) and no page on it (each call still becomes a
 * record kept among the last 200); one with a browser-like client (a process of its own) reading
 * its live stream (each call becomes a record, kept among the last 200 and written to the stream as an SSE
 * event); and the same with arguments and results on the stream (`payloads=1`).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createToolHost } from '../../dist/core/index.js';
import { serveConsole } from '../../dist/core/console/listener.js';
import { writeBenchPlugin } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { cacheDirFor } from '../lib/cache-dir.js';
import { THREADS } from './dispatch.js';

/**
 * A browser-like client of a console's live stream, in a process of its own (a browser is not in
 * the host's process): it reads until killed and says how many call events it got on the way.
 */
function follow(url) {
  const script = `
    let calls = 0;
    process.on('SIGTERM', () => { process.stdout.write(String(calls)); process.exit(0); });
    const response = await fetch(process.argv[1]);
    if (!response.ok) { process.stdout.write('status ' + response.status); process.exit(1); }
    const decoder = new TextDecoder();
    process.stdout.write('open\\n');
    for await (const chunk of response.body)
      calls += (decoder.decode(chunk, { stream: true }).match(/^event: call$/gm) ?? []).length;
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const opened = new Promise((resolve, reject) => {
    child.stdout.on('data', () => (out.startsWith('open') ? resolve() : undefined));
    child.once('exit', () => reject(new Error(`the stream client exited: ${out}`)));
  });
  return {
    opened,
    /** stops it; resolves with the number of call events it read */
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      return Number(out.replace(/^open\n/, ''));
    },
  };
}

export default {
  id: '20',
  title: 'Dispatch while the console watches (its live stream, with and without payloads)',
  async run({ tmp, quick }) {
    const dir = path.join(tmp, 'bench-console');
    writeBenchPlugin(dir);
    const config = {
      builtins: false,
      plugins: [{ package: dir, trust: 'trusted' }],
      cache: { dir: cacheDirFor(tmp) },
      limits: { threads: THREADS },
    };
    const hosts = [];
    const consoles = [];
    const streams = [];
    try {
      const plain = await createToolHost({ cwd: tmp, config });
      const watched = await createToolHost({ cwd: tmp, config });
      const payloads = await createToolHost({ cwd: tmp, config });
      const unwatched = await createToolHost({ cwd: tmp, config });
      hosts.push(plain, watched, payloads, unwatched);
      consoles.push(await serveConsole(unwatched, { host: '127.0.0.1', port: 0 }));
      for (const [host, query] of [
        [watched, ''],
        [payloads, '?payloads=1'],
      ]) {
        const endpoint = await serveConsole(host, { host: '127.0.0.1', port: 0 });
        consoles.push(endpoint);
        const client = follow(`${endpoint.url}api/events${query}`);
        streams.push(client);
        await client.opened;
      }
      for (const host of hosts) {
        const out = await host.dispatch('bench_echo', '{"n":1}');
        if (out !== '{"echo":1}') throw new Error(`bench_echo returned ${out}`);
      }
      const samples = await interleave(
        [
          { name: 'plain', op: () => plain.dispatch('bench_echo', '{"n":1}') },
          { name: 'open', op: () => unwatched.dispatch('bench_echo', '{"n":1}') },
          { name: 'watched', op: () => watched.dispatch('bench_echo', '{"n":1}') },
          { name: 'payloads', op: () => payloads.dispatch('bench_echo', '{"n":1}') },
        ],
        quick ? { rounds: 6, batch: 100, warmup: 200 } : { rounds: 20, batch: 250, warmup: 500 },
      );
      // The streams must have carried the calls, or the figure measures nothing.
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const client of streams.splice(0))
        if (!((await client.stop()) > 0)) throw new Error('a console stream carried no call event');
      const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
      const baseline = { label: 'the same dispatch on a host nobody watches', ...s.plain };
      return [
        {
          scenario: '20',
          name: 'dispatch with the console open, no page on it',
          measured: s.open,
          baseline,
          ratio: ratio(s.open, s.plain),
          target: { max: 1.2, text: 'p50 ≤ 1.2×' },
        },
        {
          scenario: '20',
          name: 'dispatch with the console open and one client on its live stream',
          measured: s.watched,
          baseline,
          ratio: ratio(s.watched, s.plain),
          target: { max: 1.2, text: 'p50 ≤ 1.2×' },
        },
        {
          scenario: '20',
          name: 'the same, the stream carrying arguments and results',
          measured: s.payloads,
          baseline,
          ratio: ratio(s.payloads, s.plain),
          target: { max: 1.3, text: 'p50 ≤ 1.3×' },
        },
      ];
    } finally {
      for (const client of streams) await client.stop();
      for (const endpoint of consoles) await endpoint.close();
      for (const host of hosts.reverse()) await host.close();
    }
  },
};
