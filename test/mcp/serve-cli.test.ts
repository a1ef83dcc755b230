/**
 * `toolshed serve` as a process: flags, the printed URL, and clean shutdown on stdin close and SIGTERM.
 * A flag refused before anything starts is run by the CLI's main() in this process (test/helpers.ts's toolshedMain).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { isLoopback, parseListenAddress } from '#internal/core/http/address.js';
import { BIN, mcpProject } from './setup.js';
import { suiteHome, toolshedMain } from '../helpers.js';

const project = mcpProject(60_000);
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  project.cleanup();
});

function serve(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'serve', '--config', project.config, ...args], {
    cwd: project.dir,
    env: { ...suiteHome(), PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // 'close', not 'exit': 'exit' can come before the last of stderr has been read, and the tests read it then.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const stderrMatching = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(stderr);
        if (match) {
          child.stderr!.off('data', check);
          resolve(match);
        }
      };
      child.stderr!.on('data', check);
      child.once('exit', () => reject(new Error(`exited before printing ${pattern}: ${stderr}`)));
      check();
    });
  return { child, exited, stderrMatching, stderr: () => stderr };
}

describe('toolshed serve (process)', () => {
  it('exits 0 when the client closes stdin, and writes nothing but protocol to stdout', async () => {
    const server = serve([]);
    await server.stderrMatching(/ready/);
    let stdout = '';
    server.child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    server.child.stdin!.end();
    expect(await server.exited).toBe(0);
    expect(stdout).toBe('');
    expect(server.stderr()).toContain('client closed the connection');
  });

  it('prints the HTTP URL on stderr, serves it, and exits 0 on SIGTERM', async () => {
    const server = serve(['--http', '127.0.0.1:0']);
    const [, url] = await server.stderrMatching(/listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
    const client = new Client({ name: 'toolshed-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.stderr()).toContain('stopping (SIGTERM)');
  });

  it('refuses a non-loopback address unless explicitly allowed', () => {
    const result = spawnSync(process.execPath, [BIN, 'serve', '--config', project.config, '--http', '0.0.0.0:0'], {
      cwd: project.dir,
      encoding: 'utf8',
      env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/refusing to serve on 0\.0\.0\.0.*TOOLSHED_SERVE_ALLOW_REMOTE=1/);
  });

  it('reports a malformed address as a usage error', async () => {
    const bad = await toolshedMain(['serve', '--http', 'nowhere'], { cwd: project.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--http expects HOST:PORT');
  });

  it('parses listen addresses and knows loopback from the rest', () => {
    expect(parseListenAddress('127.0.0.1:3333')).toEqual({ host: '127.0.0.1', port: 3333 });
    expect(parseListenAddress('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseListenAddress('8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(() => parseListenAddress('host:99999')).toThrow(/HOST:PORT/);
    expect(['localhost', '127.0.0.1', '127.1.2.3', '::1'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '192.168.1.10', '::', 'example.com'].some(isLoopback)).toBe(false);
  });
});
