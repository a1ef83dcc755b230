/**
 * Scenario 17: how soon `toolshed serve` answers over stdio. From spawning the
 * process to the result of the client's `initialize`, with 40 plugin packages
 * (manifest cache warm) and an MCP server that takes 3 s to start in the
 * config, against a plain SDK server (bench/lib/mcp-server.js) in the same
 * interleaved run. Also, for context: the time to a `tools/list` that holds
 * the plugins' tools (it waits for them; the slow server's tools come later,
 * with list_changed).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeRegistry } from '../lib/plugins.js';
import { interleave, ratio, summarize } from '../stats.js';
import { cacheDirFor } from '../lib/cache-dir.js';

const CLI = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const BASELINE = fileURLToPath(new URL('../lib/mcp-server.js', import.meta.url));
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'toolshed-bench', version: '1.0.0' } },
};

/**
 * Spawns `node ...args`, sends initialize (and, with `list`, tools/list after it), and resolves
 * with the milliseconds from spawn to each answer; the process is killed then.
 */
function startOnce(args, cwd, list = false) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const times = {};
    let buffer = '';
    let stderr = '';
    const timer = setTimeout(
      () => finish(new Error(`no answer within 30 s; stderr: ${stderr.trim().split('\n').at(-1) ?? ''}`)),
      30_000,
    );
    const finish = (error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      if (error) reject(error);
      else resolve(times);
    };
    child.on('error', finish);
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        if (message.id === 1) {
          times.initialize = performance.now() - started;
          if (!list) return finish();
          child.stdin.write(
            `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n` +
              `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`,
          );
        } else if (message.id === 2) {
          times.list = performance.now() - started;
          times.tools = message.result?.tools?.length ?? 0;
          return finish();
        }
      }
    });
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  });
}

export default {
  id: '17',
  title: 'serve: time to initialize',
  async run({ tmp, quick }) {
    const dirs = writeRegistry(path.join(tmp, 'plugins'), { plugins: 40, tools: 300, checks: 0 });
    const config = path.join(tmp, 'toolshed.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        builtins: false,
        plugins: dirs.map((dir) => ({ package: dir, trust: 'trusted' })),
        mcpServers: { slow: { command: process.execPath, args: [BASELINE, '--slow', '3000'] } },
        cache: { dir: cacheDirFor(tmp) },
      }),
    );
    const serve = [CLI, 'serve', '--config', config, '--trust-config'];
    // Fills the manifest cache, and checks that the plugins' tools are listed before the slow server's.
    const first = await startOnce(serve, tmp, true);
    if (!first.tools) throw new Error('the first tools/list held no tools');
    const samples = await interleave(
      [
        { name: 'plain', op: async () => (await startOnce([BASELINE], tmp)).initialize },
        { name: 'toolshed', op: async () => (await startOnce(serve, tmp)).initialize },
        { name: 'list', op: async () => (await startOnce(serve, tmp, true)).list },
      ],
      { rounds: quick ? 2 : 8, batch: 1, warmup: 0, reported: true },
    );
    const plain = summarize(samples.plain);
    const label = 'plain SDK server, spawn → initialize';
    return [
      {
        scenario: '17',
        name: 'serve: spawn → initialize, 40 plugins + a slow MCP server',
        measured: summarize(samples.toolshed),
        baseline: { label, ...plain },
        ratio: ratio(summarize(samples.toolshed), plain),
        target: { max: 1.5, text: '≤ 1.5× a plain SDK server' },
      },
      {
        scenario: '17',
        name: `serve: spawn → tools/list with the plugins' ${first.tools} tools (context)`,
        measured: summarize(samples.list),
        baseline: { label, ...plain },
        ratio: ratio(summarize(samples.list), plain),
      },
    ];
  },
};
