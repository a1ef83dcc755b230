/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, its server
 * scenarios, on Node 26) against `toolshed serve --http`: every scenario that applies must
 * pass with no failed check. The suite's scenarios call tools by name; toolshed serves them
 * from a plugin (`fixtures/conformance-plugin`: text, an error, ctx.log, ctx.progress, a 2020-12
 * schema) and a hosted MCP server (`fixtures/conformance-server.mjs`: image, audio and resource
 * blocks, and the elicitation requests toolshed forwards to the calling client).
 *
 * Revisions: the suite (0.1.16) knows 2025-06-18 and 2025-11-25, and its client always
 * negotiates 2025-11-25 (`--spec-version` filters scenarios, it pins nothing); it has no
 * scenario for 2026-07-28, so that revision is covered by test/mcp/revisions.test.ts and the
 * Inspector and AI SDK tests here. It tests servers over HTTP only (`--url`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientProject, MODULES, NODE_26, type ClientProject } from './harness.js';

const CONFORMANCE = path.join(MODULES, '@modelcontextprotocol/conformance/dist/index.js');
const PLUGIN = fileURLToPath(new URL('./fixtures/conformance-plugin', import.meta.url));
const SERVER = fileURLToPath(new URL('./fixtures/conformance-server.mjs', import.meta.url));

/** The scenarios that apply to toolshed, each of which must pass. */
const APPLY = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-with-progress',
  'tools-call-error',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
  // In the suite's pending set (run by name): input schemas keep $schema, $defs, additionalProperties.
  'json-schema-2020-12',
];

/**
 * The scenarios of a hosted server's elicitation, which toolshed forwards to the client that made the call (issue 25,
 * part 3).
 */
const ELICITATION = ['tools-call-elicitation', 'elicitation-sep1034-defaults', 'elicitation-sep1330-enums'];

/** The scenarios that do not apply, and why (docs/embedding.md says the same). */
const NOT_APPLY: Record<string, string> = {
  'completion-complete': 'completion is for prompt and resource arguments: toolshed serves tools only',
  'tools-call-sampling':
    'toolshed forwards a hosted server sampling request only to an embedder callback, and serve has none',
  'resources-list': 'toolshed serves tools only',
  'resources-read-text': 'toolshed serves tools only',
  'resources-read-binary': 'toolshed serves tools only',
  'resources-templates-read': 'toolshed serves tools only',
  'resources-subscribe': 'toolshed serves tools only',
  'resources-unsubscribe': 'toolshed serves tools only',
  'prompts-list': 'toolshed serves tools only',
  'prompts-get-simple': 'toolshed serves tools only',
  'prompts-get-with-args': 'toolshed serves tools only',
  'prompts-get-embedded-resource': 'toolshed serves tools only',
  'prompts-get-with-image': 'toolshed serves tools only',
  'server-sse-polling':
    'needs a tool that closes its own SSE stream mid-call (test_reconnection, SEP-1699): no tool reaches the transport, and serve keeps no event store to resume from',
};

/** One check of one scenario, as the suite writes it to `<out>/server-<scenario>-<time>/checks.json`. */
interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

let project: ClientProject;
let serve: ChildProcess;
let url: string;
const outDir = () => path.join(project.dir, 'conformance');

/** Runs the suite (`args` pick the scenarios) against the server; its exit code is ignored, the checks are read. */
function runSuite(args: string[]) {
  return project.run(
    NODE_26,
    [CONFORMANCE, 'server', '--url', url, '-o', outDir(), ...args],
    project.baseEnv(),
    300_000,
  );
}

/** The checks of each scenario that ran, by scenario name. */
function checksByScenario(): Map<string, Check[]> {
  const found = new Map<string, Check[]>();
  for (const entry of readdirSync(outDir())) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(entry)?.[1];
    if (scenario) found.set(scenario, JSON.parse(readFileSync(path.join(outDir(), entry, 'checks.json'), 'utf8')));
  }
  return found;
}

beforeAll(async () => {
  project = await clientProject({
    plugins: [{ package: PLUGIN, trust: 'trusted' }],
    mcpServers: { content: { command: process.execPath, args: [SERVER], trust: 'trusted' } },
    defer: [],
  });
  serve = spawn(project.serve.command, [...project.serve.args, '--http', '127.0.0.1:0'], {
    cwd: project.dir,
    env: project.serve.env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    serve.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    serve.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
  });
  await runSuite([]);
  // The suite's pending set, by name: one that applies, one that does not (listed with its reason).
  await runSuite(['--scenario', 'json-schema-2020-12']);
  await runSuite(['--scenario', 'server-sse-polling']);
}, 600_000);

afterAll(async () => {
  if (serve && serve.exitCode === null) {
    const exited = new Promise((resolve) => serve.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  }
  await project?.close();
});

describe('the MCP conformance suite against toolshed serve --http', () => {
  it('ran every scenario listed here, and lists every scenario it ran', () => {
    const ran = [...checksByScenario().keys()].sort();
    expect(ran).toEqual([...APPLY, ...ELICITATION, ...Object.keys(NOT_APPLY)].sort());
  });

  it.each([...APPLY, ...ELICITATION])('%s passes', (scenario) => {
    const checks = checksByScenario().get(scenario) ?? [];
    expect(checks.length).toBeGreaterThan(0);
    expect(
      checks.filter((check) => check.status === 'FAILURE').map((check) => `${check.id}: ${check.errorMessage}`),
    ).toEqual([]);
  });

  it('reaches no network', () => {
    expect(project.trap.attempts).toEqual([]);
  });
});
