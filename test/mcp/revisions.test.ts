/**
 * `toolshed serve` at MCP 2026-07-28 and the 2025 revisions, with the SDK's
 * v2 client: a client pinned to 2026-07-28 connects over stdio and over
 * Streamable HTTP, lists, calls, gets error envelopes, is asked for approval
 * through an `input_required` round, hears list changes on its
 * `subscriptions/listen` stream and the call's log lines; a 2025-era client
 * of the same package still connects the old way. Each stdio connection is a
 * session of its own. A 2025-11-25 requester runs a long-running tool as a task.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  toolDeclarationFromMcpTool,
} from '@modelcontextprotocol/ext-tasks/client';
import { Client, LOG_LEVEL_META_KEY } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { serveHttp, type HttpEndpoint } from 'toolshed/mcp';
import { fixtureOptions, suiteHome } from '../helpers.js';
import { BIN, kitchenProject, signal, textOf } from './setup.js';

const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };

/** Long-running tools (long_echo) for the task test, served with the rest. */
const LONG_RUNNER = fileURLToPath(new URL('./fixtures/long-runner', import.meta.url));
const work = kitchenProject('toolshed-mcp-revisions-', ['notes', 'catalog', LONG_RUNNER], {
  defer: ['slack_*', 'github_*'],
  approve: ['delete_note'],
  limits: { threads: 2 },
});
const { config } = work;

const open: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(open.map((o) => o.close()));
  work.cleanup();
});

/** A v2 client that spawns `toolshed serve` over stdio. */
async function stdioClient(options: ConstructorParameters<typeof Client>[1] = MODERN): Promise<Client> {
  const client = new Client({ name: 'revisions-test', version: '1.0.0' }, options);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--config', config],
      cwd: work.dir,
      env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    }),
  );
  open.push(client);
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

/**
 * One 2025-era stdio client (initialize, no version pinned: it asks for 2025-11-25, the latest 2025
 * revision) for the tests that only call through it, started on first use.
 */
let legacyClient: Promise<Client> | undefined;
const legacy = () => (legacyClient ??= stdioClient({}));

describe('serve over stdio at 2026-07-28', () => {
  // Two pinned clients, each a serve process of its own, shared by the tests below: a can be asked
  // (elicitation), b cannot; a first lists a session untouched by tool_search (the test of sessions
  // comes after it).
  let a: Client;
  let b: Client;
  beforeAll(async () => {
    [a, b] = await Promise.all([
      stdioClient({ ...MODERN, capabilities: { elicitation: { form: {} } } }),
      stdioClient(),
    ]);
  });

  it('negotiates 2026-07-28 with a pinned client, lists, calls, and answers an error envelope', async () => {
    const client = a;
    expect(client.getProtocolEra()).toBe('modern');
    const tools = await names(client);
    expect(tools).toEqual(expect.arrayContaining(['echo', 'read_note', 'tool_search']));
    expect(tools).not.toContain('slack_send_message');
    expect(JSON.parse(textOf(await client.callTool({ name: 'echo', arguments: { said: 'hi' } })))).toEqual({
      said: 'hi',
    });
    const failed = await client.callTool({ name: 'throws', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(JSON.parse(textOf(failed))).toMatchObject({
      code: 'TOOL_FAILED',
      error: expect.stringContaining('the kettle is empty'),
    });
  });

  it('keeps serving a 2025-era client of the same SDK (initialize)', async () => {
    const client = await legacy();
    expect(client.getProtocolEra()).toBe('legacy');
    expect(textOf(await client.callTool({ name: 'text', arguments: {} }))).toBe('plain text');
  });

  it('asks for approval through an input_required round, and refuses a client that cannot ask', async () => {
    const asked: string[] = [];
    const asking = a;
    asking.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept', content: { approve: true } };
    });
    expect(asking.getProtocolEra()).toBe('modern');
    expect(textOf(await asking.callTool({ name: 'delete_note', arguments: { id: 'm' } }))).toBe('deleted m');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('delete_note');

    // b asks for no elicitation.
    const mute = b;
    const refused = await mute.callTool({ name: 'delete_note', arguments: { id: 'm' } });
    expect(refused.isError).toBe(true);
    expect(JSON.parse(textOf(refused))).toMatchObject({
      code: 'APPROVAL_DENIED',
      error: expect.stringContaining('does not support elicitation'),
    });
  });

  it("gives each connection its own session: one client's tool_search loads nothing into another's list", async () => {
    const changed = signal();
    a.setNotificationHandler('notifications/tools/list_changed', () => changed.resolve());
    const subscription = await a.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });
    const found = JSON.parse(
      textOf(await a.callTool({ name: 'tool_search', arguments: { query: 'post to a slack channel', limit: 1 } })),
    );
    expect(found.tools.map((t: { name: string }) => t.name)).toEqual(['slack_send_message']);
    // The list change reaches a's subscriptions/listen stream.
    await changed.promise;
    expect(await names(a)).toContain('slack_send_message');
    expect(await names(b)).not.toContain('slack_send_message');
    await subscription.close();
  });

  it("sends the call's log lines as notifications/message when the client asks for them", async () => {
    const client = a;
    const lines: Array<{ level: string; data: unknown; logger?: string }> = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      lines.push(notification.params as { level: string; data: unknown; logger?: string });
    });
    // A 2026-07-28 request asks for log lines with the logLevel key of its _meta envelope.
    await client.callTool({ name: 'chatty', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'debug' } });
    expect(lines).toContainEqual(expect.objectContaining({ level: 'info', data: 'starting', logger: 'chatty' }));
  });
});

describe('serve over Streamable HTTP at 2026-07-28', () => {
  let host: ToolHost;
  let endpoint: HttpEndpoint;
  const connect = async (options: ConstructorParameters<typeof Client>[1] = MODERN) => {
    const client = new Client({ name: 'revisions-http', version: '1.0.0' }, options);
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
    open.push(client);
    return client;
  };

  it('serves a pinned client and a 2025-era client on the same endpoint', async () => {
    host = await createToolHost(
      fixtureOptions(['kitchen', 'notes', 'probe'], {
        config: { approve: ['delete_note'], disable: ['loop', 'oom', 'exit'], checks: { ttlMs: 600_000, graceMs: 0 } },
      }),
    );
    endpoint = await serveHttp(host, { host: '127.0.0.1', port: 0 });
    open.push(endpoint, host);
    const modern = await connect();
    const legacy = await connect({});
    expect(modern.getProtocolEra()).toBe('modern');
    expect(legacy.getProtocolEra()).toBe('legacy');
    for (const client of [modern, legacy]) {
      expect(await names(client)).toContain('echo');
      expect(textOf(await client.callTool({ name: 'text', arguments: {} }))).toBe('plain text');
      expect(JSON.parse(textOf(await client.callTool({ name: 'typed', arguments: { n: 'not a number' } }))).code).toBe(
        'INVALID_ARGUMENTS',
      );
    }
    // The 2025-era client got a session; the modern one needs none.
    expect(endpoint.sessions).toBe(1);
  });

  it('holds a call for approval across input_required rounds and runs it once approved', async () => {
    const asked: string[] = [];
    const client = await connect({ ...MODERN, capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: 'accept', content: { approve: true } };
    });
    expect(textOf(await client.callTool({ name: 'delete_note', arguments: { id: 'w' } }))).toBe('deleted w');
    expect(asked).toHaveLength(1);
    const declining = await connect({ ...MODERN, capabilities: { elicitation: { form: {} } } });
    declining.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    expect(JSON.parse(textOf(await declining.callTool({ name: 'delete_note', arguments: { id: 'w' } })))).toEqual({
      code: 'APPROVAL_DENIED',
      error: 'delete_note was not approved: the user declined; it did not run',
    });
  });

  it('publishes a change of the exposed tools to a subscribed 2026-07-28 client', async () => {
    const client = await connect();
    const changed = signal();
    client.setNotificationHandler('notifications/tools/list_changed', () => changed.resolve());
    await client.listen({ toolsListChanged: true });
    expect(await names(client)).toContain('own_check');
    // The probe plugin's check reads own.mode in the host's folder: make it fail, and re-evaluate.
    writeFileSync(path.join(host.config.root, 'own.mode'), 'reason');
    host.invalidateChecks();
    await host.refresh();
    await changed.promise;
    expect(await names(client)).not.toContain('own_check');
  });
});

describe('tasks over serve (2025-11-25)', () => {
  it('runs a long-running tool as a task for a requester that asks for one, over stdio', async () => {
    // The 2025-era client asks for 2025-11-25, the revision with tasks.
    const client = await legacy();
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    const long = tools.find((tool) => tool.name === 'long_echo')!;
    expect(long.execution).toEqual({ taskSupport: 'optional' });
    const tasks = createTaskSessionFromClient(client, { endpointId: 'toolshed-serve-tasks' });
    try {
      // Each request may take 300 ms; the call takes four steps of 200 ms: only a task survives that.
      const execution = await tasks.callTool(
        'long_echo',
        { text: 'over serve', steps: 4, stepMs: 200 },
        { declaration: toolDeclarationFromMcpTool(long), task: { preference: 'prefer' }, requestTimeoutMs: 300 },
      );
      expect(execution.kind).toBe('task');
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe('completed');
      expect(textOf(resultFromTaskOutcome(outcome))).toBe('echo: over serve');
    } finally {
      await tasks.close();
    }
  });
});

describe('the 2025 revisions a client may ask for', () => {
  // Each a serve process of its own (one stdio connection each), started at once; 2025-11-25, the
  // version an unpinned 2025-era client asks for, through the shared one.
  it.concurrent.for(['2025-11-25', '2025-06-18', '2025-03-26'])(
    'answers an initialize at %s with that revision, and serves it',
    async (version, { expect }) => {
      const client =
        version === '2025-11-25' ? await legacy() : await stdioClient({ supportedProtocolVersions: [version] });
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      expect(textOf(await client.callTool({ name: 'text', arguments: {} }))).toBe('plain text');
    },
  );

  it("sends a 2025-era client the call's log lines at the level it set", async () => {
    const client = await legacy();
    const lines: Array<{ level: string; data: unknown }> = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      lines.push(notification.params as { level: string; data: unknown });
    });
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'chatty', arguments: {} });
    expect(lines).toEqual([]);
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'chatty', arguments: {} });
    expect(lines).toContainEqual(expect.objectContaining({ level: 'info', data: 'starting' }));
  });
});

describe("a hosted MCP server's elicitation, through serve", () => {
  it('reaches the user of the client whose call caused it, named with the server that asks, in both eras', async () => {
    const hosted = path.join(work.dir, 'hosted.config.json');
    const modern = fileURLToPath(new URL('../fixtures/mcp-servers/modern/server.mjs', import.meta.url));
    writeFileSync(
      hosted,
      JSON.stringify({
        builtins: false,
        cache: { enabled: false },
        mcpServers: { weather: { command: 'node', args: [modern], prefix: false } },
      }),
    );
    // Both eras at once, each through a serve process of its own.
    const era = async (options: ConstructorParameters<typeof Client>[1]) => {
      const asked: string[] = [];
      const client = new Client(
        { name: 'revisions-forward', version: '1.0.0' },
        { ...options, capabilities: { elicitation: { form: {} } } },
      );
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push((request.params as { message: string }).message);
        return { action: 'accept', content: { name: 'Ada' } };
      });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, 'serve', '--config', hosted],
          cwd: work.dir,
          env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
          stderr: 'pipe',
        }),
      );
      open.push(client);
      await expect.poll(async () => names(client), { timeout: 30_000 }).toContain('greet');
      expect(textOf(await client.callTool({ name: 'greet', arguments: {} }))).toBe('hello Ada');
      expect(asked).toEqual(['weather (through greet) asks: Your name?']);
    };
    await Promise.all([era(MODERN), era({})]);
  });
});
