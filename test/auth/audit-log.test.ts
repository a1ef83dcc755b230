/**
 * The audit log (config `audit`) through the library API: one JSON line per call, refused calls
 * (before any hook runs, by a hook, by an approver, nested calls a chain may not make, throws
 * inside the host) and nested calls (ctx.callTool, execute_code's tool calls) included, with the
 * caller chain, the identity without its token, and digests that follow the arguments' content.
 * The file is created 0600, refused inside a folder the model's tools can write, flushed by
 * `host.close()`, and a sink that fails never fails a call.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type Identity, type ToolHost, type ToolHostOptions } from 'toolshed';
import { fixture, tempDir, withHost } from '../helpers.js';

const CODE_PLUGIN = fileURLToPath(new URL('../../plugins/code-execution', import.meta.url));
const NOTES = 'toolshed-plugin-notes';
/** What the token of the identity below holds: it must never reach a line. */
const TOKEN_MARKER = 'TOKEN-MARKER-3f9c1e-never-in-the-audit-log';
const ALICE: Identity = {
  subject: 'alice',
  issuer: 'https://issuer.test',
  scopes: ['notes'],
  claims: { sub: 'alice', groups: ['eng'] },
  token: TOKEN_MARKER,
};

const workspace = tempDir('toolshed-audit-ws-');
const logs = tempDir('toolshed-audit-logs-');
afterAll(() => {
  workspace.cleanup();
  logs.cleanup();
});

/**
 * An untrusted plugin whose `relay` tool calls the tool its arguments name (it is granted no callTools); written once,
 * so later hosts read its manifest from the cache.
 */
function writeRelay(): string {
  const dir = path.join(workspace.dir, 'plugins', 'relay');
  if (existsSync(dir)) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'audit-relay',
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
      toolshed: { apiVersion: 1 },
    }),
  );
  const relay = `{ name: 'relay', description: 'Calls the tool it is told to.', parameters: { type: 'object', properties: { tool: { type: 'string' } }, required: ['tool'] }, handler: async ({ tool }, ctx) => ctx.callTool(tool, { id: 'r' }) }`;
  writeFileSync(path.join(dir, 'index.js'), `export default { apiVersion: 1, tools: [${relay}] };`);
  return dir;
}

/** Host options over the notes fixture, execute_code and the untrusted relay, auditing to `to`. */
function options(
  to: string,
  audit: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): ToolHostOptions {
  return {
    cwd: workspace.dir,
    env: { PATH: process.env.PATH },
    config: {
      builtins: false,
      plugins: [
        { package: fixture('plugins', 'notes'), trust: 'trusted' },
        { package: CODE_PLUGIN, trust: 'trusted' },
        { package: writeRelay(), trust: 'untrusted' },
      ],
      disable: ['delete_note'],
      approve: { tools: ['sync_notes'], timeoutMs: 200 },
      codeExecution: { tools: ['summarize_note', 'read_note'] },
      limits: { maxCallDepth: 1 },
      audit: { to, ...audit },
      ...extra,
    },
  };
}

interface Line {
  time: string;
  tool: string;
  code: string;
  durationMs: number;
  identity?: { subject: string; issuer?: string };
  sessionId?: string;
  callId?: string;
  chain: Array<{ tool: string; plugin: string }>;
  plugin?: string;
  tier?: string;
  argumentsSha256: string;
  resultSha256: string;
  arguments?: unknown;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const readLines = (file: string): Line[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);

describe('an audited host', () => {
  const log = path.join(logs.dir, 'calls.jsonl');
  let host: ToolHost;
  let alice: ToolHost;
  /** the lines once `count` of them are on disk */
  const lines = async (count: number): Promise<Line[]> => {
    await expect.poll(() => readLines(log).length).toBeGreaterThanOrEqual(count);
    return readLines(log);
  };

  beforeAll(async () => {
    host = await createToolHost(options(log));
    alice = host.as(ALICE);
  });
  afterAll(async () => {
    await alice?.close();
    await host?.close();
  });

  it('writes a line for a call: time, who (never the token), session, call id, tool, plugin, tier, code, duration and digests', async () => {
    const before = Date.now();
    const result = await alice.dispatch('read_note', '{"id":"a"}', { sessionId: 's-1', callId: 'call-1' });
    const [line] = await lines(1);
    expect(line).toEqual({
      time: expect.any(String),
      tool: 'read_note',
      code: 'OK',
      durationMs: expect.any(Number),
      identity: { subject: 'alice', issuer: 'https://issuer.test' },
      sessionId: 's-1',
      callId: 'call-1',
      chain: [],
      plugin: NOTES,
      tier: 'thread',
      argumentsSha256: sha256('{"id":"a"}'),
      resultSha256: sha256(result),
    });
    expect(Date.parse(line!.time)).toBeGreaterThanOrEqual(before - 1000);
    expect(Object.keys(line!)).toEqual([
      'time',
      'tool',
      'code',
      'durationMs',
      'identity',
      'sessionId',
      'callId',
      'chain',
      'plugin',
      'tier',
      'argumentsSha256',
      'resultSha256',
    ]);
  });

  it('gives equal arguments equal digests however they were spelled, and different ones different digests', async () => {
    const start = readLines(log).length;
    await host.dispatch('write_note', { text: 'hello', id: 'n1' });
    await host.dispatch('write_note', '{ "id": "n1", "text": "hello" }');
    await host.dispatch('write_note', { id: 'n1', text: 'hello!' });
    const [a, b, c] = (await lines(start + 3)).slice(start);
    expect(a!.argumentsSha256).toBe(sha256('{"id":"n1","text":"hello"}'));
    expect(b!.argumentsSha256).toBe(a!.argumentsSha256);
    expect(c!.argumentsSha256).not.toBe(a!.argumentsSha256);
    expect(b!.resultSha256).toBe(a!.resultSha256);
    expect(c!.resultSha256).not.toBe(a!.resultSha256);
    // A call without an identity names none; without arguments: the digest of {}.
    expect(a!.identity).toBeUndefined();
    await host.dispatch('list_notes');
    const [listed] = (await lines(start + 4)).slice(start + 3);
    expect(listed!.argumentsSha256).toBe(sha256('{}'));
  });

  it('writes a line with its code for each call refused before any hook runs, by a hook or by an approver', async () => {
    const start = readLines(log).length;
    const stop = host.use({
      beforeCall: (call) => (call.tool === 'write_note' ? { block: 'no writing today' } : undefined),
    });
    try {
      const calls: Array<[string, unknown, Parameters<ToolHost['dispatch']>[2]?]> = [
        ['no_such_tool', {}],
        ['delete_note', { id: 'a' }],
        ['read_note', { id: 7 }],
        ['read_note', '{"id": '],
        ['write_note', { id: 'a', text: 'b' }],
        ['sync_notes', {}, { onApproval: () => false }],
        ['sync_notes', {}, { onApproval: () => new Promise<boolean>(() => {}) }],
      ];
      const results = [];
      for (const [tool, args, callOptions] of calls) results.push(await alice.dispatch(tool, args, callOptions));
      const written = (await lines(start + calls.length)).slice(start);
      expect(written.map((line) => [line.tool, line.code])).toEqual([
        ['no_such_tool', 'UNKNOWN_TOOL'],
        ['delete_note', 'TOOL_NOT_EXPOSED'],
        ['read_note', 'INVALID_ARGUMENTS'],
        ['read_note', 'INVALID_ARGUMENTS'],
        ['write_note', 'TOOL_BLOCKED'],
        ['sync_notes', 'APPROVAL_DENIED'],
        ['sync_notes', 'APPROVAL_TIMEOUT'],
      ]);
      // Each result digest is of the envelope the caller got; bad JSON is digested as it came.
      expect(written.map((line) => line.resultSha256)).toEqual(results.map(sha256));
      expect(written[3]!.argumentsSha256).toBe(sha256('{"id": '));
      expect(written.every((line) => line.identity?.subject === 'alice')).toBe(true);
      // An unknown tool has no plugin; a known one, even hidden, has.
      expect(written[0]!.plugin).toBeUndefined();
      expect(written[1]!.plugin).toBe(NOTES);
      // A made-up name of any length makes a line of bounded size.
      await host.dispatch('x'.repeat(10_000), {});
      const [long] = (await lines(start + calls.length + 1)).slice(start + calls.length);
      expect(long).toMatchObject({ tool: `${'x'.repeat(256)}…`, code: 'UNKNOWN_TOOL' });
    } finally {
      stop();
    }
  });

  it('writes a line for each nested call, with its chain, and for the nested calls a chain may not make', async () => {
    const start = readLines(log).length;
    await alice.dispatch('summarize_note', { id: 'n' }, { sessionId: 's-2' });
    await alice.dispatch('execute_code', { code: 'return await tools.read_note({ id: "x" });' });
    await alice.dispatch('execute_code', { code: 'return await tools.summarize_note({ id: "y" });' });
    await alice.dispatch('relay', { tool: 'read_note' });
    const written = (await lines(start + 9)).slice(start);
    const row = (line: Line) => [line.tool, line.code, line.chain.map((hop) => hop.tool).join(' > ')];
    // A nested call ends before its caller, so its line comes first; a refusal reaches the caller's handler as a throw.
    expect(written.map(row)).toEqual([
      ['read_note', 'OK', 'summarize_note'],
      ['summarize_note', 'OK', ''],
      ['read_note', 'OK', 'execute_code'],
      ['execute_code', 'OK', ''],
      ['read_note', 'CALL_DEPTH_EXCEEDED', 'execute_code > summarize_note'],
      ['summarize_note', 'TOOL_FAILED', 'execute_code'],
      ['execute_code', 'OK', ''],
      ['read_note', 'PERMISSION_DENIED', 'relay'],
      ['relay', 'PERMISSION_DENIED', ''],
    ]);
    expect(written[0]).toMatchObject({
      sessionId: 's-2',
      identity: { subject: 'alice' },
      chain: [{ tool: 'summarize_note', plugin: NOTES }],
      argumentsSha256: sha256('{"id":"n"}'),
    });
    expect(written[7]!.chain).toEqual([{ tool: 'relay', plugin: 'audit-relay' }]);
    expect(written[8]).toMatchObject({ plugin: 'audit-relay', tier: 'process' });
  });

  it('writes a line when the call throws inside the host (the TOOL_CRASHED path)', async () => {
    const start = readLines(log).length;
    const poisoned = {
      get id(): string {
        throw new Error('a getter that throws');
      },
    };
    const result = await alice.dispatch('read_note', poisoned);
    expect(JSON.parse(result)).toMatchObject({ code: 'TOOL_CRASHED' });
    const [line] = (await lines(start + 1)).slice(start);
    expect(line).toMatchObject({
      tool: 'read_note',
      code: 'TOOL_CRASHED',
      identity: { subject: 'alice' },
      resultSha256: sha256(result),
    });
  });

  it('never writes the token, and leaves the arguments out unless asked', async () => {
    await alice.dispatch('write_note', { id: 'secret-note', text: 'the contents' });
    await lines(1);
    const text = readFileSync(log, 'utf8');
    expect(text).not.toContain(TOKEN_MARKER);
    expect(text).not.toContain('the contents');
    expect(readLines(log).every((line) => !('arguments' in line))).toBe(true);
  });

  it('creates the file 0600 and shows its target and counts in explain', async () => {
    expect(statSync(log).mode & 0o777).toBe(0o600);
    // The count follows the write's completion, a moment after the line is readable.
    await expect.poll(() => host.explain().audit).toEqual({ to: log, written: readLines(log).length, dropped: 0 });
  });
});

describe('audit.arguments and host.close()', () => {
  it('puts the arguments in when asked, and close() leaves every line on disk', async () => {
    const log = path.join(logs.dir, 'with-arguments.jsonl');
    const host = await createToolHost(options(log, { arguments: true }));
    const calls = Array.from({ length: 200 }, (_, i) =>
      host.dispatch('write_note', { id: `n${i}`, text: 'x'.repeat(i) }),
    );
    await Promise.all(calls);
    await host.close();
    const written = readLines(log);
    expect(written).toHaveLength(200);
    expect(written.map((line) => (line.arguments as { id: string }).id).sort()).toEqual(
      Array.from({ length: 200 }, (_, i) => `n${i}`).sort(),
    );
    // Bad JSON, or arguments over limits.maxArgsBytes, are not read: their raw digest is all there is.
    const again = await createToolHost(
      options(log, { arguments: true }, { limits: { maxCallDepth: 1, maxArgsBytes: 100 } }),
    );
    const big = JSON.stringify({ id: 'x'.repeat(200) });
    await again.dispatch('read_note', '{"id": ');
    await again.dispatch('read_note', big);
    await again.close();
    const [bad, over] = readLines(log).slice(200);
    expect(bad).toMatchObject({ code: 'INVALID_ARGUMENTS', argumentsSha256: sha256('{"id": ') });
    expect(over).toMatchObject({ code: 'INVALID_ARGUMENTS', argumentsSha256: sha256(big) });
    expect('arguments' in bad! || 'arguments' in over!).toBe(false);
  });
});

describe('where the audit file may be', () => {
  it('is refused inside the workspace root, by path or through a link, with CONFIG_INVALID saying why', async () => {
    await expect(createToolHost(options('audit.jsonl'))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining("which the model's tools can write"),
    });
    const link = path.join(logs.dir, 'into-workspace');
    symlinkSync(workspace.dir, link);
    await expect(createToolHost(options(path.join(link, 'audit.jsonl')))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      data: { pointer: '/audit/to' },
    });
  });

  it("is refused inside a plugin's fsWrite grant", async () => {
    const granted = path.join(logs.dir, 'granted');
    mkdirSync(granted, { recursive: true });
    const base = options(path.join(granted, 'audit.jsonl'));
    const config = base.config as { plugins: Array<Record<string, unknown>> };
    config.plugins[2] = { ...config.plugins[2], grant: { fsWrite: [granted] } };
    await expect(createToolHost(base)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining(granted),
    });
  });

  it('that fails (a full disk) fails no call: one warning, and explain counts the lines dropped', async () => {
    const warnings: string[] = [];
    await withHost(options('/dev/full'), async (host) => {
      host.on('warning', (message) => warnings.push(message));
      expect(await host.dispatch('read_note', { id: 'a' })).toBe('note a');
      expect(await host.dispatch('read_note', { id: 'b' })).toBe('note b');
      await expect.poll(() => host.explain().audit?.dropped).toBe(2);
      expect(await host.dispatch('read_note', { id: 'c' })).toBe('note c');
      expect(host.explain().audit).toMatchObject({
        to: '/dev/full',
        written: 0,
        dropped: 3,
        failure: expect.stringContaining('ENOSPC'),
      });
    });
    expect(warnings.filter((message) => message.includes('audit log'))).toEqual([
      expect.stringContaining('/dev/full is dropping lines'),
    ]);
  });

  it('that cannot keep up drops what is past 64 MB queued, one warning, and close() still writes out the rest', {
    timeout: 120_000,
  }, async () => {
    const fifo = path.join(logs.dir, 'stalled.fifo');
    execFileSync('mkfifo', [fifo]);
    // A reader that holds the pipe open and reads nothing: once its buffer is full, writes wait.
    const holder = await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const warnings: string[] = [];
    const host = await createToolHost(options(fifo, { arguments: true }));
    host.on('warning', (message) => warnings.push(message));
    const text = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 70; i++) expect(await host.dispatch('write_note', { id: `n${i}`, text })).toContain('"saved"');
    const { dropped } = host.explain().audit!;
    expect(dropped).toBeGreaterThan(0);
    expect(warnings).toEqual([expect.stringContaining('more than 67108864 bytes of lines wait to be written')]);
    // A reader that drains the pipe: close() writes out every line it kept. The holder closes
    // only once cat has the pipe open: with no reader for a moment, the host's next write would
    // fail with EPIPE, and cat would read only what the pipe held (part of a line).
    const cat = spawn('sh', ['-c', 'exec <"$1" && echo open >&2 && exec cat', 'sh', fifo], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    cat.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const done = new Promise((resolve) => cat.once('close', resolve));
    await new Promise((resolve) => cat.stderr.once('data', resolve));
    await holder.close();
    await host.close();
    await done;
    const written = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line);
    expect(written).toHaveLength(70 - dropped);
    expect(written.map((line) => (line.arguments as { id: string }).id)).toEqual(
      Array.from({ length: 70 - dropped }, (_, i) => `n${i}`),
    );
  });
});
