/**
 * A refused start stops what it started. `toolshed ui` and `serve --ui --http` on a non-loopback
 * address without authentication open the host first (the config may name `serve.auth`), and so
 * start its MCP servers; the refusal then used to leave the process running with them, outliving
 * its shell. It exits 2 now, with the refusal on stderr and no MCP server process left. Real CLI
 * children and a real stdio MCP server (its command line tagged, so the test can look for it).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, suiteHome, tempDir } from '../helpers.js';
import { BIN } from '../mcp/setup.js';

const work = tempDir('toolshed-refused-');
const TAG = `refused-start-${process.pid}-${Date.now()}`;
writeFileSync(path.join(work.dir, 'package.json'), '{"name":"refused","private":true}');
writeFileSync(
  path.join(work.dir, 'toolshed.config.json'),
  JSON.stringify({
    builtins: false,
    cache: { enabled: false },
    mcpServers: { tagged: { command: process.execPath, args: [fixture('mcp-servers', 'escapes', 'server.mjs'), TAG] } },
  }),
);
const running: Array<ReturnType<typeof spawn>> = [];
afterAll(() => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const pid of tagged()) process.kill(pid, 'SIGKILL');
  work.cleanup();
});

/** The processes whose command line holds TAG (the MCP server, and a sandbox launcher around it). */
function tagged(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(TAG);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Runs the CLI until it exits (a start that never ends fails the test by its timeout). */
function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args, '--config', 'toolshed.config.json', '--trust-config'], {
    cwd: work.dir,
    env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

describe('a refused start', () => {
  it.each([
    ['toolshed ui', ['ui', '--http', '0.0.0.0:0']],
    ['toolshed serve --ui --http', ['serve', '--ui', '--http', '0.0.0.0:0']],
  ])(
    '%s on 0.0.0.0 without authentication exits 2 and leaves no MCP server running',
    { timeout: 30_000 },
    async (_name, args) => {
      const result = await run(args);
      expect(result.stderr).toMatch(/refusing to serve on 0\.0\.0\.0 without authentication/);
      expect(result.code).toBe(2);
      expect(tagged()).toEqual([]);
    },
  );
});
