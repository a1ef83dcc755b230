/**
 * The MCP Inspector's CLI (`@modelcontextprotocol/inspector`, on Node 26: it needs 22.19 or
 * later) starts `toolshed serve` from an `mcpServers` config file (`--config … --server
 * toolshed`), in both protocol eras (`--protocol-era legacy | modern`): initialize reports
 * the revision, tools/list, tools/call, and the error envelopes of a failing call and of bad
 * arguments. Each CLI run is one connection doing one method, so a list_changed (which needs
 * a second request on the same connection) is the other clients' part.
 *
 * The Inspector starts toolshed itself (stdio) for initialize in each era; the other methods
 * reach one `toolshed serve --http` of the same config, started for the file and named in the
 * same config file (`--server toolshed-http`): a stdio server for each run was a toolshed
 * start (and stop) per method.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientProject, ENVELOPE, MODULES, NODE_26, type ClientProject } from './harness.js';

const INSPECTOR = path.join(MODULES, '@modelcontextprotocol/inspector/clients/launcher/build/index.js');

let project: ClientProject;
let mcpConfig: string;
let serve: ChildProcess | undefined;
beforeAll(async () => {
  project = await clientProject();
  serve = spawn(project.serve.command, [...project.serve.args, '--http', '127.0.0.1:0'], {
    cwd: project.dir,
    env: project.serve.env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const started = serve;
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    started.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    started.once('exit', (code) => reject(new Error(`serve --http exited (${code}) before listening: ${stderr}`)));
  });
  mcpConfig = path.join(project.dir, 'mcp.json');
  writeFileSync(
    mcpConfig,
    JSON.stringify({ mcpServers: { toolshed: project.serve, 'toolshed-http': { type: 'http', url } } }),
  );
});
afterAll(async () => {
  if (serve && serve.exitCode === null && serve.signalCode === null) {
    const exited = new Promise((resolve) => serve!.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  }
  await project?.close();
});

/** `toolshed` is started by the Inspector (stdio); `toolshed-http` is the file's running server. */
type Server = 'toolshed' | 'toolshed-http';

/** Runs one Inspector CLI method against `server` and returns its JSON answer (stdout's first line) and exit code. */
async function inspect(
  era: string,
  server: Server,
  args: string[],
): Promise<{ code: number | null; answer: any; stderr: string }> {
  const run = await project.run(
    NODE_26,
    [
      INSPECTOR,
      '--cli',
      '--config',
      mcpConfig,
      '--server',
      server,
      '--protocol-era',
      era,
      '--format',
      'json',
      '-q',
      ...args,
    ],
    {
      ...project.baseEnv(),
      // No OS keychain here: the Inspector keeps its (unused) secrets in memory instead of probing one.
      MCP_INSPECTOR_SECRET_STORE: 'memory',
    },
  );
  const line = run.stdout.split('\n').find((text) => text.trim().startsWith('{'));
  expect(line, `no JSON from the Inspector: ${run.stdout}\n${run.stderr}`).toBeDefined();
  return { code: run.code, answer: JSON.parse(line!), stderr: run.stderr };
}

const textOf = (result: { content: Array<{ text: string }> }) => result.content.map((block) => block.text).join('');

for (const { era, revision } of [
  { era: 'legacy', revision: '2025-11-25' },
  { era: 'modern', revision: '2026-07-28' },
]) {
  describe(`MCP Inspector CLI (--protocol-era ${era})`, () => {
    it(`starts toolshed from its config and negotiates ${revision}`, async () => {
      const { code, answer } = await inspect(era, 'toolshed', ['--method', 'initialize']);
      expect(code).toBe(0);
      expect(answer.result.protocolVersion).toBe(revision);
      expect(answer.result.serverInfo.name).toBe('toolshed');
      expect(answer.result.capabilities.tools).toEqual({ listChanged: true });
    });

    it('lists the tools (the deferred one not yet)', async () => {
      const { code, answer } = await inspect(era, 'toolshed-http', ['--method', 'tools/list']);
      expect(code).toBe(0);
      expect(answer.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual([
        'add_numbers',
        'divide_numbers',
        'tool_search',
      ]);
    });

    it('calls a tool', async () => {
      const { code, answer } = await inspect(era, 'toolshed-http', [
        '--method',
        'tools/call',
        '--tool-name',
        'add_numbers',
        '--tool-args-json',
        '{"a":2,"b":3}',
      ]);
      expect(code).toBe(0);
      expect(answer.result.isError).toBeUndefined();
      expect(textOf(answer.result)).toBe('{"sum":5}');
    });

    it("gets a failing call's error envelope, and a bad argument's", async () => {
      const failed = await inspect(era, 'toolshed-http', [
        '--method',
        'tools/call',
        '--tool-name',
        'divide_numbers',
        '--tool-args-json',
        '{"a":1,"b":0}',
      ]);
      // The Inspector prints the result, then exits non-zero on isError.
      expect(failed.code).not.toBe(0);
      expect(failed.answer.result.isError).toBe(true);
      expect(textOf(failed.answer.result)).toBe(ENVELOPE);
      const invalid = await inspect(era, 'toolshed-http', [
        '--method',
        'tools/call',
        '--tool-name',
        'add_numbers',
        '--tool-args-json',
        '{"a":2,"b":"three"}',
      ]);
      expect(invalid.answer.result.isError).toBe(true);
      expect(JSON.parse(textOf(invalid.answer.result))).toEqual({
        error: expect.stringContaining('/b must be number'),
        code: 'INVALID_ARGUMENTS',
      });
    });
  });
}

it('reaches no network', () => {
  expect(project.trap.attempts).toEqual([]);
});
