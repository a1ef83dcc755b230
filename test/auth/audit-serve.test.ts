/**
 * The audit log of `toolshed serve` as a process: over Streamable HTTP every tools/call, refused
 * ones included, gets its line with the MCP session it came in, and `SIGTERM` leaves them all on
 * disk; over stdio, `audit.to: 'stdout'` cannot break the protocol (the lines go to stderr). The
 * summary `toolshed` prints names the audit target and its counts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../mcp/setup.js';
import { fixture, suiteHome, tempDir } from '../helpers.js';

const project = tempDir('toolshed-audit-serve-');
const logs = tempDir('toolshed-audit-serve-logs-');
const children: Array<ReturnType<typeof spawn>> = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  project.cleanup();
  logs.cleanup();
});

/** A config file in the project serving the notes fixture, auditing to `to`. */
function writeConfig(name: string, to: string): string {
  const file = path.join(project.dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      builtins: false,
      plugins: [{ package: fixture('plugins', 'notes'), trust: 'trusted' }],
      audit: { to },
    }),
  );
  return file;
}

const readLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('toolshed serve with audit', () => {
  it('over --http writes a line per call with its MCP session, refused calls included, and flushes them on SIGTERM', {
    timeout: 60_000,
  }, async () => {
    const log = path.join(logs.dir, 'serve.jsonl');
    const config = writeConfig('http.config.json', log);
    const child = spawn(process.execPath, [BIN, 'serve', '--config', config, '--http', '127.0.0.1:0'], {
      cwd: project.dir,
      env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.once('exit', () => reject(new Error(`serve exited: ${stderr}`)));
    });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = new Client({ name: 'audit-test', version: '1.0.0' });
    await client.connect(transport);
    const sessionId = transport.sessionId;
    expect(sessionId).toEqual(expect.any(String));
    await client.callTool({ name: 'read_note', arguments: { id: 'a' } });
    await client.callTool({ name: 'no_such_tool', arguments: {} });
    await client.close();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = readLines(log);
    expect(lines.map((line) => [line.tool, line.code, line.sessionId])).toEqual([
      ['read_note', 'OK', sessionId],
      ['no_such_tool', 'UNKNOWN_TOOL', sessionId],
    ]);
  });

  it("over stdio sends audit.to 'stdout' to stderr: the protocol stays intact", { timeout: 60_000 }, async () => {
    const config = writeConfig('stdio.config.json', 'stdout');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--config', config],
      cwd: project.dir,
      env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'audit-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'read_note', arguments: { id: 'a' } });
      expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/^note a/);
      await expect.poll(() => stderr).toMatch(/"tool":"read_note","code":"OK"/);
    } finally {
      await client.close();
    }
  });

  it('shows the audit target and its counts in the summary', { timeout: 60_000 }, () => {
    const log = path.join(logs.dir, 'summary.jsonl');
    const config = writeConfig('summary.config.json', log);
    const result = spawnSync(process.execPath, [BIN, '--config', config], {
      cwd: project.dir,
      encoding: 'utf8',
      env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`audit: ${log} — 0 lines written, 0 dropped`);
  });
});
