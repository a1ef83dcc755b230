/**
 * The console's API over real HTTP against a real host (worker pool and all), as `toolshed ui`
 * serves it: every endpoint, the event stream, calls held for approval and their answers, change
 * events when a check flips, and no secret in any answer.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { serveConsole, type ConsoleEndpoint } from '#internal/core/console/listener.js';
import { KEPT_CALLS, KEPT_PAYLOAD_CHARS } from '#internal/core/console/calls.js';
import { CONTENT_SECURITY_POLICY } from '#internal/core/console/replies.js';
import { MAX_BUFFERED_BYTES } from '#internal/core/console/event-stream.js';
import { tempDir } from '../helpers.js';
import { consoleConfig, MARKER, post, readEvents, type EventReader } from './helpers.js';

const work = tempDir();
const env: Record<string, string | undefined> = { PATH: process.env.PATH, CONSOLE_SECRET: MARKER };
let host: ToolHost;
let endpoint: ConsoleEndpoint;
let api: string;
let stream: EventReader;
/** Every answer body, checked for the marker at the end. */
const answers: string[] = [];

async function get(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${api}${path}`, { headers });
  const text = await response.text();
  answers.push(text);
  return { status: response.status, body: JSON.parse(text), headers: response.headers };
}

async function send(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await post(`${api}${path}`, body);
  const text = await response.text();
  answers.push(text);
  return { status: response.status, body: JSON.parse(text) };
}

beforeAll(async () => {
  host = await createToolHost({ cwd: work.dir, config: consoleConfig(), env, waitForServers: false });
  endpoint = await serveConsole(host, { host: '127.0.0.1', port: 0 });
  api = `${endpoint.url}api/`;
  stream = await readEvents(`${api}events`);
}, 60_000);

afterAll(async () => {
  stream?.close();
  await endpoint?.close();
  await host?.close();
  work.cleanup();
});

describe('console API', () => {
  it('answers the overview: funnel, plugins, every tool with its state and reason, sorted', {
    timeout: 60_000,
  }, async () => {
    const { status, body, headers } = await get('overview');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('referrer-policy')).toBe('no-referrer');
    expect(headers.get('set-cookie')).toBeNull();
    expect(headers.get('access-control-allow-origin')).toBeNull();
    expect(body.serving).toEqual({ mcp: false });
    expect(body.funnel).toMatchObject({ registered: 4, exposed: 3, deferred: 0 });
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(['chatter', 'delete_note', 'echo', 'flagged']);
    expect(body.tools.find((t: { name: string }) => t.name === 'flagged')).toMatchObject({
      exposed: false,
      layer: 'availability',
      reason: expect.stringContaining('CONSOLE_FLAG'),
      tier: 'thread',
      trust: 'trusted',
    });
    expect(body.tools.find((t: { name: string }) => t.name === 'delete_note')).toMatchObject({
      exposed: true,
      approval: 'listed',
    });
    expect(body.plugins.map((p: { name: string }) => p.name)).toContain('toolshed-plugin-console-ops');
  });

  it("answers a tool's detail: parts marked, resolved text, schema, examples, every provider format", {
    timeout: 60_000,
  }, async () => {
    const { status, body } = await get('tools/echo');
    expect(status).toBe(200);
    expect(body.state).toMatchObject({ name: 'echo', exposed: true });
    expect(body.plugin).toMatchObject({ name: 'toolshed-plugin-console-ops', tier: 'thread', trust: 'trusted' });
    expect(body.plugin.permissions).toHaveProperty('effective');
    expect(body.parameters).toEqual({ type: 'object', properties: { text: { type: 'string' } } });
    expect(body.annotations).toEqual({ readOnlyHint: true });
    expect(body.description.resolved).toBe('Returns its arguments. flagged is away.');
    expect(body.description.parts).toEqual([
      { text: 'Returns its arguments.', kind: 'plain', shown: true },
      { text: 'Pair it with flagged.', kind: 'ifAvailable', tools: ['flagged'], shown: false },
      { text: 'flagged is away.', kind: 'ifMissing', tools: ['flagged'], shown: true },
    ]);
    expect(body.examples).toEqual([{ text: 'hello' }]);
    expect(Object.keys(body.definitions).sort()).toEqual(['anthropic', 'gemini', 'mcp', 'openai', 'responses']);
    expect(body.definitions.openai.function.name).toBe('echo');
    expect(body.definitions.anthropic.name).toBe('echo');
  });

  it('answers 404 for a tool that is not registered, and for an unknown endpoint', { timeout: 60_000 }, async () => {
    expect(await get('tools/nope')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(await get('nothing')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(await get('tools/%E0%A4%A')).toMatchObject({ status: 400, body: { error: { code: 'USAGE' } } });
  });

  it('gives a hidden tool no definitions, and says why', { timeout: 60_000 }, async () => {
    const { body } = await get('tools/flagged');
    expect(body.definitions).toBeNull();
    expect(body.description.resolved).toBe('');
    expect(body.state.reason).toContain('CONSOLE_FLAG');
  });

  it('runs a call through dispatch, and the call is in api/calls and on the event stream', {
    timeout: 60_000,
  }, async () => {
    const { status, body } = await send('call', { tool: 'echo', args: { text: 'hi there' } });
    expect(status).toBe(200);
    expect(body.outcome).toEqual({ ok: true, text: '{"text":"hi there"}' });
    expect(body.callId).toMatch(/^console-/);
    const event = await stream.next(
      (e) => e.event === 'call' && (e.data as { callId?: string }).callId === body.callId,
    );
    expect(event.data).toMatchObject({
      tool: 'echo',
      code: 'OK',
      sessionId: 'console',
      chain: [],
      plugin: 'toolshed-plugin-console-ops',
      tier: 'thread',
      resultChars: 19,
    });
    // Without payloads=1, no arguments or result.
    expect(event.data).not.toHaveProperty('args');
    expect(event.data).not.toHaveProperty('result');
    const calls = (await get('calls')).body.calls;
    expect(calls.at(-1)).toMatchObject({ tool: 'echo', callId: body.callId });
    expect(calls.at(-1)).not.toHaveProperty('args');
    const withPayloads = (await get('calls?payloads=1')).body.calls;
    expect(withPayloads.at(-1)).toMatchObject({ args: { text: 'hi there' }, result: '{"text":"hi there"}' });
  });

  it('reports a failed call as its error envelope, and an invalid request as USAGE', { timeout: 60_000 }, async () => {
    const failed = await send('call', { tool: 'echo', args: { text: 5 } });
    expect(failed.body.outcome).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    expect(await send('call', { args: {} })).toMatchObject({ status: 400, body: { error: { code: 'USAGE' } } });
    const broken = await fetch(`${api}call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-toolshed-console': '1' },
      body: '{not json',
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: string } }).error.code).toBe('USAGE');
  });

  it('sends a call refused before it ran as a call event too', { timeout: 60_000 }, async () => {
    const { body } = await send('call', { tool: 'no_such_tool', args: {} });
    expect(body.outcome).toMatchObject({ ok: false, code: 'UNKNOWN_TOOL' });
    const event = await stream.next((e) => e.event === 'call' && (e.data as { tool: string }).tool === 'no_such_tool');
    expect(event.data).toMatchObject({ code: 'UNKNOWN_TOOL', callId: body.callId });
  });

  it('forwards plugin log lines as log events', { timeout: 60_000 }, async () => {
    await send('call', { tool: 'chatter', args: {} });
    const warning = await stream.next(
      (e) => e.event === 'log' && (e.data as { message: string }).message === 'careful now',
    );
    expect(warning.data).toMatchObject({ plugin: 'toolshed-plugin-console-ops', tool: 'chatter', level: 'warning' });
  });

  it("holds the console's own call needing approval until it is approved; a second answer is a conflict", {
    timeout: 60_000,
  }, async () => {
    const running = send('call', { tool: 'delete_note', args: { id: 'n1' } });
    const held = await stream.next(
      (e) => e.event === 'approval' && (e.data as { args: { id: string } }).args.id === 'n1',
    );
    const id = (held.data as { id: string }).id;
    expect(held.data).toMatchObject({
      tool: 'delete_note',
      reason: 'listed',
      sessionId: 'console',
      chain: [],
      timeoutMs: 120_000,
    });
    expect((await get('approvals')).body.approvals).toEqual([held.data]);
    expect(await send(`approvals/${id}`, { approved: true })).toEqual({ status: 200, body: { settled: true } });
    expect((await running).body.outcome).toEqual({ ok: true, text: 'deleted n1' });
    expect((await stream.next((e) => e.event === 'settled' && (e.data as { id: string }).id === id)).data).toEqual({
      id,
      approved: true,
      by: 'console',
    });
    expect(await send(`approvals/${id}`, { approved: false })).toMatchObject({
      status: 409,
      body: { error: { code: 'CONFLICT' } },
    });
    expect(await send('approvals/no-such-id', { approved: true })).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND' } },
    });
    expect((await get('approvals')).body.approvals).toEqual([]);
  });

  it('refuses a held call the operator denies, with the reason', { timeout: 60_000 }, async () => {
    const running = send('call', { tool: 'delete_note', args: { id: 'n2' } });
    const held = await stream.next(
      (e) => e.event === 'approval' && (e.data as { args: { id: string } }).args.id === 'n2',
    );
    expect(
      await send(`approvals/${(held.data as { id: string }).id}`, { approved: false, reason: 'not today' }),
    ).toMatchObject({ status: 200 });
    expect((await running).body.outcome).toMatchObject({
      ok: false,
      code: 'APPROVAL_DENIED',
      message: expect.stringContaining('not today'),
    });
  });

  it('answers sessions: not serving, the breakers', { timeout: 60_000 }, async () => {
    const { body } = await get('sessions');
    expect(body).toMatchObject({ serving: false, breakers: [] });
    expect(Array.isArray(body.sessions)).toBe(true);
  });

  it('validates search requests', { timeout: 60_000 }, async () => {
    expect(await send('search', { query: '' })).toMatchObject({ status: 400, body: { error: { code: 'USAGE' } } });
    expect(await send('search', { query: 'note', limit: 51 })).toMatchObject({ status: 400 });
    const { status, body } = await send('search', { query: 'delete note' });
    expect(status).toBe(200);
    expect(body.indexed).toBe(3);
    expect(body.results[0]).toMatchObject({
      name: 'delete_note',
      score: expect.any(Number),
      deferred: false,
      matched: expect.objectContaining({ delete: expect.any(Array) }),
    });
  });

  it('sends a change event when a check flips: the tool, from hidden to exposed', { timeout: 60_000 }, async () => {
    env.CONSOLE_FLAG = '1';
    host.invalidateChecks();
    await host.refresh();
    const change = await stream.next(
      (e) =>
        e.event === 'change' &&
        (e.data as { changes: Array<{ name: string }> }).changes.some((c) => c.name === 'flagged'),
    );
    expect((change.data as { changes: unknown[] }).changes).toContainEqual({
      kind: 'tool',
      name: 'flagged',
      from: 'hidden',
      to: 'exposed',
      text: 'flagged exposed',
    });
    delete env.CONSOLE_FLAG;
    host.invalidateChecks();
    await host.refresh();
    const back = await stream.next(
      (e) =>
        e.event === 'change' &&
        (e.data as { changes: Array<{ name: string; to: string }> }).changes.some(
          (c) => c.name === 'flagged' && c.to === 'hidden',
        ),
    );
    expect(
      (back.data as { changes: Array<{ text: string }> }).changes.find((c) => c.text.startsWith('flagged'))!.text,
    ).toMatch(/^flagged hidden: .*CONSOLE_FLAG/);
  });

  it('opens the stream with hello: the generation, the kept calls and the held approvals', {
    timeout: 60_000,
  }, async () => {
    const fresh = await readEvents(`${api}events?payloads=1`);
    try {
      const hello = await fresh.next((e) => e.event === 'hello');
      expect(hello.data).toMatchObject({ generation: expect.any(Number), approvals: [] });
      expect(
        (hello.data as { calls: Array<{ tool: string; args?: unknown }> }).calls.find((c) => c.tool === 'echo'),
      ).toHaveProperty('args');
      expect(fresh.events[0]!.event).toBe('hello');
    } finally {
      fresh.close();
    }
  });

  it('serves the page (or the not-built page) and 404s for other paths', { timeout: 60_000 }, async () => {
    const page = await fetch(endpoint.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('toolshed');
    expect((await fetch(`${endpoint.url}assets/../../package.json`)).status).toBe(404);
    expect((await fetch(`${endpoint.url}nothing.html`)).status).toBe(404);
  });

  it('keeps the last 200 calls, newest last', { timeout: 60_000 }, async () => {
    for (let i = 0; i < KEPT_CALLS + 5; i++) await host.call('echo', { text: `n${i}` });
    const calls = (await get('calls?payloads=1')).body.calls as Array<{ args: { text: string } }>;
    expect(KEPT_CALLS).toBe(200);
    expect(calls).toHaveLength(KEPT_CALLS);
    expect(calls.at(-1)!.args.text).toBe(`n${KEPT_CALLS + 4}`);
    expect(calls[0]!.args.text).toBe('n5');
  });

  it("keeps at most KEPT_PAYLOAD_CHARS of a call's arguments and result, cut where marked", {
    timeout: 60_000,
  }, async () => {
    const text = 'x'.repeat(KEPT_PAYLOAD_CHARS * 2);
    await host.call('echo', { text });
    const call = (
      (await get('calls?payloads=1')).body.calls as Array<{
        args: unknown;
        result: string;
        resultChars: number;
        truncated?: string[];
      }>
    ).at(-1)!;
    expect(call.truncated).toEqual(['args', 'result']);
    expect(call.resultChars).toBeGreaterThan(KEPT_PAYLOAD_CHARS * 2);
    expect(call.result).toMatch(/… \(\d+ more characters not kept\)$/);
    expect(call.result.indexOf('…')).toBe(KEPT_PAYLOAD_CHARS);
    expect(call.args).toMatch(/^\{"text":"x+… \(\d+ more characters not kept\)$/);
    const bare = ((await get('calls')).body.calls as Array<Record<string, unknown>>).at(-1)!;
    expect(bare).not.toHaveProperty('truncated');
    expect(bare).not.toHaveProperty('result');
  });

  it('puts the marker secret in no answer and no event', { timeout: 60_000 }, async () => {
    await get('tools/delete_note');
    await get('tools/chatter');
    expect(answers.length).toBeGreaterThan(10);
    for (const text of answers) expect(text).not.toContain(MARKER);
    expect(stream.text).not.toContain(MARKER);
  });
});

describe('console API: how held calls are settled without it', () => {
  let timed: ToolHost;
  let timedEndpoint: ConsoleEndpoint;
  let events: EventReader;

  beforeAll(async () => {
    timed = await createToolHost({
      cwd: work.dir,
      config: consoleConfig({ approve: { tools: ['delete_note'], timeoutMs: 400 } }),
      env,
      waitForServers: false,
    });
    timedEndpoint = await serveConsole(timed, { host: '127.0.0.1', port: 0 });
    events = await readEvents(`${timedEndpoint.url}api/events`);
  }, 60_000);

  afterAll(async () => {
    events?.close();
    await timedEndpoint?.close();
    await timed?.close();
  });

  it("says the caller settled it when the call's own approver answered first", { timeout: 60_000 }, async () => {
    const outcome = await timed.call(
      'delete_note',
      { id: 'c1' },
      { onApproval: () => new Promise((resolve) => setTimeout(() => resolve(true), 50)) },
    );
    expect(outcome).toEqual({ ok: true, text: 'deleted c1' });
    const held = await events.next(
      (e) => e.event === 'approval' && (e.data as { args: { id: string } }).args.id === 'c1',
    );
    const id = (held.data as { id: string }).id;
    expect((await events.next((e) => e.event === 'settled' && (e.data as { id: string }).id === id)).data).toEqual({
      id,
      approved: true,
      by: 'caller',
    });
  });

  it('says it timed out when nobody answered within approve.timeoutMs', { timeout: 60_000 }, async () => {
    const outcome = await timed.call('delete_note', { id: 'c2' });
    expect(outcome).toMatchObject({ ok: false, code: 'APPROVAL_TIMEOUT' });
    const held = await events.next(
      (e) => e.event === 'approval' && (e.data as { args: { id: string } }).args.id === 'c2',
    );
    const id = (held.data as { id: string }).id;
    expect((await events.next((e) => e.event === 'settled' && (e.data as { id: string }).id === id)).data).toEqual({
      id,
      approved: false,
      by: 'timeout',
    });
    expect((await post(`${timedEndpoint.url}api/approvals/${id}`, { approved: true })).status).toBe(409);
  });
});

describe('console API: a client that stops reading', () => {
  it('is cut off once MAX_BUFFERED_BYTES wait for it, and the server drops the backlog', {
    timeout: 60_000,
  }, async () => {
    const { port } = new URL(endpoint.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /api/events?payloads=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    // Never read while the calls run: what the server sends piles up in its buffers.
    socket.pause();
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const text = 'x'.repeat(50_000);
    const produced = 25 * Math.ceil(MAX_BUFFERED_BYTES / text.length);
    for (let i = 0; i < produced; i++) await host.call('echo', { text });
    let received = 0;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.resume();
    // A stream the server still held would never end.
    await closed;
    // Each event carried the text twice (arguments and result).
    expect(received).toBeLessThan((produced * 2 * text.length) / 2);
    expect(MAX_BUFFERED_BYTES).toBe(4 * 1024 * 1024);
  });
});
