/**
 * What servers send toolshed as their client, and where it goes: tool metadata into the
 * definitions, log messages to the call (with their level) or the host, elicitation to the call's
 * or the host's answerer (declined without one), roots from the workspace root, sampling only
 * with the embedder's callback. Real servers: the fixture on the v2 SDK in both eras, and
 * server-everything.
 */
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ElicitRequest, LogLevel, ToolHost } from 'toolshed';
import { FileHosts, MODERN, PROJECT, server, serverScript, until } from './setup.js';

/** The fixture in each era: `m_` tools on 2026-07-28, `l_` tools on 2025-11-25. */
const BOTH_ERAS = {
  m: { command: 'node', args: [MODERN], prefix: false as const, toolset: 'modern' },
  l: { command: 'node', args: [MODERN], protocol: 'legacy' as const },
};

const hosts = new FileHosts();
const shared = new FileHosts();
/** Both eras, with no answerer of the host's own; the tests that use it only call and read. */
let plain: ToolHost;
/** Both eras, the host answering elicitation with the tool's name. */
let answering: ToolHost;
/** server-everything, the host recording and declining elicitation. */
let everything: ToolHost;
const asked: string[] = [];

beforeAll(async () => {
  [plain, answering, everything] = await Promise.all([
    shared.open(BOTH_ERAS),
    shared.open(BOTH_ERAS, {
      onElicitation: async (request) => ({ action: 'accept', content: { name: `host for ${request.tool}` } }),
    }),
    shared.open(
      { everything: { command: 'node', args: [serverScript('everything')] } },
      { onElicitation: async (request) => (asked.push(request.message), { action: 'decline' }) },
    ),
  ]);
});
afterEach(() => hosts.release());
afterAll(async () => {
  await Promise.all([hosts.closeAll(), shared.closeAll()]);
});

const open = hosts.open.bind(hosts);

describe('tool metadata', () => {
  it("keeps a server tool's title, icons, outputSchema, annotations and _meta, and passes them on in the mcp format", async () => {
    const host = plain;
    const [forecast] = (await host.definitions({ format: 'mcp' })).filter((d) => d.name === 'forecast');
    expect(forecast).toMatchObject({
      title: 'Weather forecast',
      icons: [{ src: 'https://example.invalid/sun.png', mimeType: 'image/png', sizes: ['48x48'] }],
      outputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, tempC: { type: 'number' } },
        required: ['city', 'tempC'],
      },
      annotations: { readOnlyHint: true, openWorldHint: true, title: 'Weather forecast' },
      _meta: { 'example.dev/category': 'weather' },
    });
    const outcome = await host.call('forecast', { city: 'Oslo' });
    expect(outcome).toMatchObject({ ok: true, content: { structured: { city: 'Oslo', tempC: 21 } } });
  });

  it('hides a tool that must be called as a task on a server that cannot run tasks, with the reason in explain; an optional one is called plainly', async () => {
    const host = await open({ old: { command: 'node', args: [MODERN, 'legacy'] } });
    const report = host.explain();
    expect(report.tools.map((t) => t.name)).not.toContain('only_task');
    expect(server(report, 'old').warnings).toContain(
      "tool only_task left out: it must be called as a task (execution.taskSupport: 'required'), and the server does not declare task-augmented tools/call (capabilities.tasks.requests.tools.call)",
    );
    expect(await host.dispatch('maybe_task', {})).toBe('maybe_task answered (2025-11-25)');
  });
});

describe('task-required tools', () => {
  it("calls one as a task where the server runs tasks, forwarding the elicitation it needs meanwhile; a caller's cancel ends the call (and cancels the task)", async () => {
    const host = everything;
    expect(host.explain().tools.find((t) => t.name === 'simulate-research-query')?.exposed).toBe(true);
    // Each task takes the server 4 s (four stages of a second): the three run side by side.
    const controller = new AbortController();
    const [clear, clarified, cancelled] = await Promise.all([
      host.dispatch('simulate-research-query', { topic: 'tides' }),
      host.dispatch('simulate-research-query', { topic: 'tides', ambiguous: true }),
      (async () => {
        const call = host.call('simulate-research-query', { topic: 'tides' }, { signal: controller.signal });
        setTimeout(() => controller.abort(), 200);
        return call;
      })(),
    ]);
    expect(clear).toMatch(/^# Research Report: tides\n/);
    expect(clarified).toMatch(/^# Research Report: tides/);
    expect(asked).toEqual([expect.stringContaining('could have multiple interpretations')]);
    expect(cancelled).toMatchObject({ ok: false, code: 'TOOL_CANCELLED' });
  });
});

describe('log messages', () => {
  it("reach the call's onLog with their level in both eras (at the level toolshed asks for), and explain", async () => {
    const host = plain;
    for (const tool of ['chatty', 'l_chatty']) {
      const lines: Array<[string, LogLevel | undefined]> = [];
      expect(await host.dispatch(tool, {}, { onLog: (message, level) => lines.push([message, level]) })).toBe('done');
      expect(lines).toEqual([['weather: the barometer is falling', 'warning']]);
    }
    expect(server(host.explain(), 'm').logs).toEqual([
      expect.objectContaining({ level: 'warning', logger: 'weather', message: 'the barometer is falling' }),
    ]);
  });

  it("go to the host's log event, with level and logger, when they arrive outside a call", async () => {
    const host = plain;
    const entries: unknown[] = [];
    const onLog = (entry: unknown) => void entries.push(entry);
    host.on('log', onLog);
    try {
      expect(await host.dispatch('l_announce', {})).toBe('announced');
      await until(host, () => entries.some((e) => (e as { level?: string }).level === 'notice'), 'the notice');
      expect(entries).toContainEqual({
        plugin: 'mcp:l',
        message: 'the tide turns',
        level: 'notice',
        logger: 'almanac',
      });
    } finally {
      host.off('log', onLog);
    }
  });
});

describe('elicitation', () => {
  it("goes to the call's onElicitation first, in both eras, with the server and tool that asked", async () => {
    const host = answering;
    const asked: ElicitRequest[] = [];
    const onElicitation = async (request: ElicitRequest) => {
      asked.push(request);
      return { action: 'accept' as const, content: { name: 'Ada' } };
    };
    expect(await host.dispatch('greet', {}, { onElicitation })).toBe('hello Ada');
    expect(await host.dispatch('l_greet', {}, { onElicitation })).toBe('hello Ada');
    expect(asked.map((r) => [r.server, r.tool, r.message])).toEqual([
      ['m', 'greet', 'Your name?'],
      ['l', 'l_greet', 'Your name?'],
    ]);
    expect(asked[1]!.requestedSchema).toMatchObject({ type: 'object', properties: { name: { type: 'string' } } });
  });

  it("goes to the host's onElicitation when the call has none", async () => {
    const host = answering;
    expect(await host.dispatch('greet', {})).toBe('hello host for greet');
    expect(await host.dispatch('l_greet', {})).toBe('hello host for l_greet');
  });

  it('is declined with the reason in explain when no one can answer', async () => {
    const host = plain;
    expect(await host.dispatch('greet', {})).toBe('no name given');
    expect(await host.dispatch('l_greet', {})).toBe('no name given (decline)');
    expect(server(host.explain(), 'l').logs).toContainEqual(
      expect.objectContaining({
        level: 'warning',
        message:
          'toolshed declined an elicitation request of the MCP server l: no one can answer it (no onElicitation for the call or the host)',
      }),
    );
  });
});

describe('roots and sampling', () => {
  it('offers the workspace root as the MCP roots; sampling is not offered without onSampling', async () => {
    const host = everything;
    expect(server(host.explain(), 'everything').offered).toEqual(['elicitation', 'roots']);
    expect(host.explain().tools.map((t) => t.name)).not.toContain('trigger-sampling-request');
    expect(await host.dispatch('get-roots-list', {})).toContain(pathToFileURL(PROJECT).href);
  });

  // server-everything lists trigger-sampling-request only to a client that offers sampling: the
  // shared host accepted its listing without it, so to a host of the same server with onSampling
  // the tool is new since that accepted listing, and held until accepted.
  it("holds the tools a server lists once onSampling is passed, when its tools were accepted without it, until accepted; then runs the server's sampling request through onSampling", async () => {
    const name = 'everything';
    expect(everything.explain().tools.map((t) => t.name)).not.toContain('trigger-sampling-request');
    const prompts: unknown[] = [];
    const host = await open(
      { [name]: { command: 'node', args: [serverScript('everything')] } },
      {
        onSampling: async (request) => {
          prompts.push(request.params.messages);
          return { model: 'scripted', role: 'assistant', content: { type: 'text', text: 'a scripted answer' } };
        },
      },
    );
    expect(server(host.explain(), name).offered).toEqual(['elicitation', 'roots', 'sampling']);
    const held = host.explain().tools.find((t) => t.name === 'trigger-sampling-request');
    expect(held).toMatchObject({ exposed: false, availability: { ok: false, kind: 'definition' } });
    expect(held?.reason).toBe(
      `new since its server's tools were accepted (toolshed accept ${name} trigger-sampling-request shows it and accepts it)`,
    );
    expect(await host.acceptDefinitions({ server: name, tools: ['trigger-sampling-request'] })).toEqual([
      expect.objectContaining({ tool: 'trigger-sampling-request', kind: 'added' }),
    ]);
    expect(await host.dispatch('trigger-sampling-request', { prompt: 'say something' })).toContain('a scripted answer');
    expect(JSON.stringify(prompts)).toContain('say something');
  });
});
