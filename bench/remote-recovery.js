#!/usr/bin/env node
/**
 * `node bench/remote-recovery.js [--outage 25] [--rounds 3]`: how soon a remote toolset is usable
 * again after its server comes back. A `toolshed serve --http` replica is the server, a host of
 * the built library has its URL in `mcpServers`; each round kills the replica (kill -9), keeps it
 * down for `--outage` seconds (quiet for 5 s, then one call a second, as a model keeps calling),
 * restarts it on the same port and times, from the moment it listens
 * again, until a call through the host succeeds (one attempt every 20 ms). Also printed: how long
 * the host took to hide the tools after the kill, without a call. Not part of `npm run bench`:
 * each round spends its outage waiting.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const CLI = fileURLToPath(new URL('../bin/toolshed.js', import.meta.url));
const KITCHEN = fileURLToPath(new URL('../test/fixtures/plugins/kitchen', import.meta.url));

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a replica on `port`; resolves with its process once it listens. */
function startReplica(cwd, port) {
  const child = spawn(process.execPath, [CLI, 'serve', '--http', `127.0.0.1:${port}`, '--stateless'], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      if (/listening on http/.test(text)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`the replica exited (${code}): ${text}`)));
  });
}

/** The first seconds of an outage see no call: does the host notice on its own? */
const QUIET_MS = 5_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const { values } = parseArgs({
    options: { outage: { type: 'string', default: '25' }, rounds: { type: 'string', default: '3' } },
  });
  const { createToolHost } = await import('../dist/core/index.js');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolshed-recovery-'));
  writeFileSync(
    path.join(dir, '.toolshedrc.json'),
    JSON.stringify({ builtins: false, cache: { enabled: false }, plugins: [{ package: KITCHEN, trust: 'trusted' }] }),
  );
  const port = await freePort();
  let replica = await startReplica(dir, port);
  const host = await createToolHost({
    cwd: dir,
    env: { PATH: process.env.PATH },
    config: {
      builtins: false,
      cache: { enabled: false },
      mcpServers: { far: { url: `http://127.0.0.1:${port}/mcp` } },
    },
  });
  const exposed = () => host.explain().tools.find((tool) => tool.name === 'echo')?.exposed === true;
  try {
    if (!(await host.call('echo', {})).ok) throw new Error('the first call failed');
    for (let round = 1; round <= Number(values.rounds); round++) {
      replica.kill('SIGKILL');
      const killed = performance.now();
      while (exposed() && performance.now() - killed < QUIET_MS) await sleep(20);
      const hidden = exposed() ? undefined : performance.now() - killed;
      await sleep(Math.max(0, QUIET_MS - (performance.now() - killed)));
      // Then the model calls again: one call a second for the rest of the outage, each failing.
      while (performance.now() - killed < Number(values.outage) * 1000) {
        await host.call('echo', { round });
        await sleep(1_000);
      }
      replica = await startReplica(dir, port);
      const back = performance.now();
      while (!exposed()) await sleep(10);
      const connected = performance.now() - back;
      while (!(await host.call('echo', { round })).ok) await sleep(20);
      const usable = performance.now() - back;
      const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
      console.log(
        `round ${round}: tools hidden ` +
          `${hidden === undefined ? `not within ${s(QUIET_MS)}` : `${s(hidden)} after the kill`}, without a call; ` +
          `after the server listened again: connected ${s(connected)}, a call succeeded ${s(usable)} (outage ` +
          `${values.outage} s)`,
      );
    }
  } finally {
    await host.close();
    replica.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
