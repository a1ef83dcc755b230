/**
 * MCP tasks (2025-11-25) on an SDK v2 server: a long-running tool called as a task runs apart
 * from its request, through a real toolshed host (a fixture plugin in a worker), and a real v2
 * client drives it two ways: the ext-tasks requester and raw task requests. Each test session
 * has its own TaskScope, as each MCP session of `toolshed serve` does.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  toolDeclarationFromMcpTool,
} from '@modelcontextprotocol/ext-tasks/client';
import {
  CallToolResultV1Schema,
  CancelTaskResultV1Schema,
  CreateTaskResultV1Schema,
  GetTaskResultV1Schema,
  ListTasksResultV1Schema,
  TaskStatusNotificationV1Schema,
  type TaskV1,
} from '@modelcontextprotocol/ext-tasks/core/v1';
import {
  type CallToolRequestParams,
  type CallToolResult,
  createMcpHandler,
  InMemoryTransport,
  type Tool,
} from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import {
  installTasks,
  listedTools,
  TaskScope,
  type TaskRunContext,
  TaskServer,
  type TaskScopeOptions,
} from '#internal/core/mcp-server/protocol/tasks.js';
import type { McpTool } from '#internal/core/providers/types.js';
import { tempDir, withHost } from '../helpers.js';

const work = tempDir('toolshed-mcp-tasks-');
const LONG_RUNNER = fileURLToPath(new URL('./fixtures/long-runner', import.meta.url));
let host: ToolHost;

beforeAll(async () => {
  host = await createToolHost({
    cwd: work.dir,
    env: { PATH: process.env.PATH },
    config: {
      builtins: false,
      cache: { enabled: false },
      plugins: [{ package: LONG_RUNNER, trust: 'trusted' }],
      limits: { threads: 2, timeoutMs: 120_000 },
    },
  });
});
afterAll(async () => {
  await host?.close();
  work.cleanup();
});

/** One MCP session: a v2 server with tasks over its own scope, connected in memory to a v2 client (2025 era). */
interface Session {
  client: Client;
  scope: TaskScope;
  statuses: TaskV1[];
  progress: Array<{ progressToken: string | number; progress: number; total?: number }>;
  close(): Promise<void>;
}
const open: Session[] = [];
afterAll(async () => {
  await Promise.all(open.map((session) => session.close()));
});

/** The MCP result of one host call, as `toolshed serve` answers it. */
async function runOnHost(
  sessionId: string,
  params: CallToolRequestParams,
  context: Pick<TaskRunContext, 'signal' | 'onProgress'>,
): Promise<CallToolResult> {
  const outcome = await host.call(params.name, params.arguments ?? {}, {
    signal: context.signal,
    sessionId,
    ...(context.onProgress ? { onProgress: context.onProgress } : {}),
  });
  if (outcome.ok) return { content: [{ type: 'text', text: outcome.text }] };
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify({ error: outcome.message, code: outcome.code }) }],
  };
}

/** Runs a call made as a task; the default runs it on the host as a plain call would run. */
type TaskRun = (
  server: TaskServer,
  sessionId: string,
  params: CallToolRequestParams,
  context: TaskRunContext,
) => Promise<CallToolResult>;

/** A server as `toolshed serve` builds one per session: tools from the host, tasks over `scope`. */
function taskServer(
  sessionId: string,
  scope: TaskScope,
  run: TaskRun = (_server, id, params, context) => runOnHost(id, params, context),
): TaskServer {
  const server = new TaskServer(
    { name: 'toolshed-test', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  const listed = async () => listedTools((await host.definitions({ format: 'mcp', sessionId })) as McpTool[], server);
  installTasks(server, {
    scope,
    run: (params, context) => run(server, sessionId, params, context),
    allows: async (name) => (await listed()).some((tool) => tool.name === name && tool.execution !== undefined),
  });
  server.setRequestHandler('tools/list', async () => ({ tools: (await listed()) as Tool[] }));
  server.setRequestHandler('tools/call', (request, ctx) =>
    runOnHost(sessionId, request.params, { signal: ctx.mcpReq.signal }),
  );
  return server;
}

async function session(
  sessionId: string,
  options: TaskScopeOptions = {},
  run?: TaskRun,
  client = new Client({ name: 'tasks-test', version: '1.0.0' }),
): Promise<Session> {
  const scope = new TaskScope({ pollIntervalMs: 50, ...options });
  const server = taskServer(sessionId, scope, run);
  const statuses: TaskV1[] = [];
  const progress: Session['progress'] = [];
  client.setNotificationHandler(
    'notifications/tasks/status',
    { params: TaskStatusNotificationV1Schema.shape.params },
    (task) => void statuses.push(task),
  );
  // Progress outlives the tools/call request that made the task: read it here, not per request.
  client.setNotificationHandler('notifications/progress', (notification) => void progress.push(notification.params));
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  const opened: Session = {
    client,
    scope,
    statuses,
    progress,
    close: async () => {
      scope.close();
      await client.close();
      await server.close();
    },
  };
  open.push(opened);
  return opened;
}

/** Starts `name` as a task with raw tools/call and returns the created task. */
async function startTask(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  extra: { ttl?: number; progressToken?: string; timeout?: number } = {},
): Promise<TaskV1> {
  const params = {
    name,
    arguments: args,
    task: extra.ttl === undefined ? {} : { ttl: extra.ttl },
    ...(extra.progressToken ? { _meta: { progressToken: extra.progressToken } } : {}),
  };
  const created = await client.request(
    { method: 'tools/call', params },
    CreateTaskResultV1Schema,
    extra.timeout ? { timeout: extra.timeout } : {},
  );
  return created.task;
}

async function getTask(client: Client, taskId: string): Promise<TaskV1> {
  return client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultV1Schema);
}

async function taskResult(client: Client, taskId: string) {
  return client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultV1Schema);
}

/** The JSON-RPC error code a request was refused with. */
async function refusal(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  const error = await request.then(
    () => undefined,
    (thrown: { code: number; message: string }) => thrown,
  );
  expect(error, 'the request should have been refused').toBeDefined();
  return { code: error!.code, message: error!.message };
}

function text(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((part) => part.text ?? '').join('');
}

describe('tasks over an SDK v2 server', () => {
  it('takes longRunning only as a boolean: anything else makes the plugin invalid', async () => {
    const dir = path.join(work.dir, 'not-a-boolean');
    mkdirSync(dir);
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name: 'toolshed-plugin-not-a-boolean',
        type: 'module',
        main: 'index.js',
        toolshed: { apiVersion: 1 },
      }),
    );
    writeFileSync(
      path.join(dir, 'index.js'),
      "export default { apiVersion: 1, tools: [{ name: 'vague', description: 'x', parameters: { type: 'object' }, longRunning: 'sometimes', handler: () => 'x' }] };",
    );
    await withHost(
      {
        cwd: work.dir,
        env: {},
        config: { builtins: false, cache: { enabled: false }, plugins: [{ package: dir, trust: 'trusted' }] },
      },
      async (invalid) => {
        const [plugin] = invalid.explain().plugins;
        expect(plugin!.error!.code).toBe('PLUGIN_INVALID');
        expect(plugin!.error!.message).toContain('/tools/0/longRunning');
      },
    );
  });

  it('offers tasks, and lists only long-running tools with execution.taskSupport', async () => {
    const { client } = await session('listing');
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.request({ method: 'tools/list' });
    expect(tools.find((tool) => tool.name === 'long_echo')!.execution).toEqual({ taskSupport: 'optional' });
    expect(tools.find((tool) => tool.name === 'quick')!.execution).toBeUndefined();
    // A server that offers no tasks strips the mark the mcp format carries.
    const plain = new TaskServer({ name: 'plain', version: '1.0.0' });
    const bare = listedTools((await host.definitions({ format: 'mcp' })) as McpTool[], plain);
    expect(bare.some((tool) => tool.execution)).toBe(false);
  });

  it('runs a call as a task: working, then completed with the result, its progress and status on the way', async () => {
    const { client, progress, statuses } = await session('raw');
    const task = await startTask(
      client,
      'long_echo',
      { text: 'hi', steps: 3, stepMs: 50 },
      { ttl: 60_000, progressToken: 'raw-1' },
    );
    expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 50 });
    const result = await taskResult(client, task.taskId);
    expect(text(result)).toBe('echo: hi');
    expect(result._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId: task.taskId } });
    expect(await getTask(client, task.taskId)).toMatchObject({ taskId: task.taskId, status: 'completed' });
    // The last step's progress may reach the host after the call's reply, which ends the call's relay.
    await expect
      .poll(() => progress.filter((p) => p.progressToken === 'raw-1').map((p) => p.progress))
      .toEqual(expect.arrayContaining([1, 2]));
    expect(progress.find((p) => p.progressToken === 'raw-1')).toMatchObject({ progress: 1, total: 3 });
    expect(statuses.filter((s) => s.taskId === task.taskId).map((s) => s.status)).toEqual(['completed']);
  });

  it('drives a task through the ext-tasks requester, whose request timeout is shorter than the run', async () => {
    const { client } = await session('requester');
    const { tools } = await client.request({ method: 'tools/list' });
    const declaration = toolDeclarationFromMcpTool(tools.find((tool) => tool.name === 'long_echo')!);
    const tasks = createTaskSessionFromClient(client, { endpointId: 'toolshed-tasks-test' });
    try {
      expect(tasks.capabilities).toMatchObject({ execution: true, cancellation: true, inventory: 'server-list' });
      // Each request may take 300 ms; the call takes four steps of 200 ms.
      const execution = await tasks.callTool(
        'long_echo',
        { text: 'patient', steps: 4, stepMs: 200 },
        { declaration, task: { preference: 'prefer' }, requestTimeoutMs: 300 },
      );
      expect(execution.kind).toBe('task');
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe('completed');
      expect(
        text(resultFromTaskOutcome(outcome) as CallToolResult as { content: Array<{ type: string; text?: string }> }),
      ).toBe('echo: patient');
    } finally {
      await tasks.close();
    }
  });

  it('survives a client request timeout that kills the same call made without a task', async () => {
    const { client } = await session('timeout');
    const args = { text: 'slow', steps: 4, stepMs: 200 };
    const plain = await refusal(
      client.request({ method: 'tools/call', params: { name: 'long_echo', arguments: args } }, CallToolResultV1Schema, {
        timeout: 300,
      }),
    );
    expect(plain.message).toMatch(/timed out/i);
    const task = await startTask(client, 'long_echo', args, { timeout: 300 });
    await expect.poll(async () => (await getTask(client, task.taskId)).status).toBe('completed');
    expect(text(await taskResult(client, task.taskId))).toBe('echo: slow');
  });

  it('cancels a task: the abort reaches the tool, which stops, and the task is cancelled', async () => {
    const { client, progress } = await session('cancel');
    const task = await startTask(client, 'until_cancelled', { marker: 'cancel-one' }, { progressToken: 'cancel-1' });
    // The tool reports progress once it runs: cancel a call that is really running.
    await expect.poll(() => progress.some((p) => p.progressToken === 'cancel-1')).toBe(true);
    const cancelled = await client.request(
      { method: 'tasks/cancel', params: { taskId: task.taskId } },
      CancelTaskResultV1Schema,
    );
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    await expect.poll(() => existsSync(path.join(work.dir, 'cancel-one.stopped'))).toBe(true);
    expect((await getTask(client, task.taskId)).status).toBe('cancelled');
    expect((await refusal(taskResult(client, task.taskId))).message).toContain('cancelled');
    expect(
      (
        await refusal(
          client.request({ method: 'tasks/cancel', params: { taskId: task.taskId } }, CancelTaskResultV1Schema),
        )
      ).code,
    ).toBe(-32602);
  });

  it('fails a task whose tool throws, and serves the error result', async () => {
    const { client } = await session('fails');
    const task = await startTask(client, 'long_fail', {});
    const result = await taskResult(client, task.taskId);
    expect(result.isError).toBe(true);
    expect(JSON.parse(text(result))).toMatchObject({ code: 'TOOL_FAILED' });
    expect((await getTask(client, task.taskId)).status).toBe('failed');
  });

  it('refuses a task for a tool that is not long-running, and still runs plain calls', async () => {
    const { client } = await session('forbidden');
    expect((await refusal(startTask(client, 'quick', {}))).code).toBe(-32601);
    const plain = await client.request({
      method: 'tools/call',
      params: { name: 'long_echo', arguments: { text: 'direct', steps: 1, stepMs: 0 } },
    });
    expect(text(plain as { content: Array<{ type: string; text?: string }> })).toBe('echo: direct');
  });

  it('drops a finished result after its ttl, and cancels a task still running at its ttl', async () => {
    const { client } = await session('ttl');
    const done = await startTask(client, 'long_echo', { text: 'brief', steps: 1, stepMs: 0 }, { ttl: 300 });
    expect(text(await taskResult(client, done.taskId))).toBe('echo: brief');
    await expect.poll(async () => (await refusal(getTask(client, done.taskId))).code).toBe(-32602);
    const running = await startTask(client, 'until_cancelled', { marker: 'ttl-one' }, { ttl: 300 });
    await expect.poll(() => existsSync(path.join(work.dir, 'ttl-one.stopped'))).toBe(true);
    expect((await refusal(getTask(client, running.taskId))).code).toBe(-32602);
  });

  it('keeps each session to its own tasks: another session can neither see, get nor cancel them', async () => {
    const a = await session('isolation-a');
    const b = await session('isolation-b');
    const task = await startTask(a.client, 'until_cancelled', { marker: 'isolated' });
    expect((await refusal(getTask(b.client, task.taskId))).code).toBe(-32602);
    expect(
      (
        await refusal(
          b.client.request({ method: 'tasks/cancel', params: { taskId: task.taskId } }, CancelTaskResultV1Schema),
        )
      ).code,
    ).toBe(-32602);
    expect((await b.client.request({ method: 'tasks/list' }, ListTasksResultV1Schema)).tasks).toEqual([]);
    expect((await getTask(a.client, task.taskId)).status).toBe('working');
    await a.client.request({ method: 'tasks/cancel', params: { taskId: task.taskId } }, CancelTaskResultV1Schema);
  });

  it('lists tasks a page at a time', async () => {
    const { client } = await session('list', { pageSize: 2 });
    const ids: string[] = [];
    for (const text of ['one', 'two', 'three'])
      ids.push((await startTask(client, 'long_echo', { text, steps: 1, stepMs: 0 })).taskId);
    const first = await client.request({ method: 'tasks/list' }, ListTasksResultV1Schema);
    expect(first.tasks.map((t) => t.taskId)).toEqual(ids.slice(0, 2));
    expect(first.nextCursor).toBeDefined();
    const second = await client.request(
      { method: 'tasks/list', params: { cursor: first.nextCursor! } },
      ListTasksResultV1Schema,
    );
    expect(second.tasks.map((t) => t.taskId)).toEqual(ids.slice(2));
    expect(second.nextCursor).toBeUndefined();
    expect(
      (
        await refusal(
          client.request({ method: 'tasks/list', params: { cursor: 'not-a-cursor' } }, ListTasksResultV1Schema),
        )
      ).code,
    ).toBe(-32602);
  });

  it('refuses a task beyond the session limit while every task works, and makes room by dropping a finished one', async () => {
    const { client } = await session('limit', { maxTasks: 2 });
    const first = await startTask(client, 'until_cancelled', { marker: 'limit-one' });
    await startTask(client, 'until_cancelled', { marker: 'limit-two' });
    const refused = await refusal(startTask(client, 'long_echo', { text: 'third', steps: 1, stepMs: 0 }));
    expect(refused.code).toBe(-32600);
    expect(refused.message).toContain('2 tasks (the limit)');
    await client.request({ method: 'tasks/cancel', params: { taskId: first.taskId } }, CancelTaskResultV1Schema);
    const third = await startTask(client, 'long_echo', { text: 'third', steps: 1, stepMs: 0 });
    expect(text(await taskResult(client, third.taskId))).toBe('echo: third');
    expect((await refusal(getTask(client, first.taskId))).code).toBe(-32602);
  });

  it('marks a task input_required while its call waits on the client, and the request names the task', async () => {
    const asks: Array<{ meta: unknown; status: string }> = [];
    const client = new Client({ name: 'answers', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async (request) => {
      const taskId = (request.params._meta as Record<string, { taskId: string }> | undefined)?.[
        'io.modelcontextprotocol/related-task'
      ]?.taskId;
      asks.push({
        meta: request.params._meta,
        status: taskId ? (await getTask(client, taskId)).status : 'no task named',
      });
      return { action: 'accept', content: { approve: true } };
    });
    // As serve's approval does for a call made as a task: ask the client, inside awaitInput, naming the task.
    const approveFirst: TaskRun = async (server, sessionId, params, context) => {
      const answer = await context.awaitInput(() =>
        server.elicitInput({
          mode: 'form',
          message: `Run ${params.name}?`,
          requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } } },
          _meta: context.relatedTaskMeta,
        }),
      );
      if (answer.action !== 'accept') return { isError: true, content: [{ type: 'text', text: 'not approved' }] };
      return runOnHost(sessionId, params, context);
    };
    const current = await session('input', {}, approveFirst, client);
    const task = await startTask(client, 'long_echo', { text: 'approved', steps: 1, stepMs: 0 });
    expect(text(await taskResult(client, task.taskId))).toBe('echo: approved');
    expect(asks).toEqual([
      { meta: { 'io.modelcontextprotocol/related-task': { taskId: task.taskId } }, status: 'input_required' },
    ]);
    expect(current.statuses.filter((s) => s.taskId === task.taskId).map((s) => s.status)).toEqual([
      'input_required',
      'working',
      'completed',
    ]);
  });

  it('offers no tasks on MCP 2026-07-28: no capability, no execution mark, task methods not found, params.task ignored', async () => {
    const scope = new TaskScope();
    const handler = createMcpHandler(() => taskServer('modern', scope), { legacy: 'reject' });
    const client = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    // In process: the handler answers web Requests, so no port is opened.
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getServerCapabilities()?.tasks).toBeUndefined();
      const { tools } = await client.request({ method: 'tools/list' });
      expect(tools.find((tool) => tool.name === 'long_echo')!.execution).toBeUndefined();
      expect((await refusal(getTask(client, 'any'))).code).toBe(-32601);
      const result = await client.request({
        method: 'tools/call',
        params: {
          name: 'long_echo',
          arguments: { text: 'modern', steps: 1, stepMs: 0 },
          task: {},
        } as CallToolRequestParams,
      });
      expect(text(result as { content: Array<{ type: string; text?: string }> })).toBe('echo: modern');
      expect(scope.size).toBe(0);
    } finally {
      await client.close();
      await handler.close();
      scope.close();
    }
  });

  it('cancels working tasks and drops every result when the session closes', async () => {
    const { client, scope } = await session('closing');
    const done = await startTask(client, 'long_echo', { text: 'kept?', steps: 1, stepMs: 0 });
    await taskResult(client, done.taskId);
    const running = await startTask(client, 'until_cancelled', { marker: 'closed-session' });
    const waiting = refusal(taskResult(client, running.taskId));
    scope.close();
    await expect.poll(() => existsSync(path.join(work.dir, 'closed-session.stopped'))).toBe(true);
    expect((await waiting).message).toContain('session closed');
    expect(scope.size).toBe(0);
    expect((await refusal(getTask(client, done.taskId))).code).toBe(-32602);
    expect((await refusal(startTask(client, 'long_echo', { text: 'late', steps: 1, stepMs: 0 }))).code).toBe(-32600);
  });
});
