/**
 * Traces with the real OpenTelemetry SDK (sdk-trace-base's in-memory exporter,
 * the async-hooks context manager, the W3C propagator): a span per dispatch
 * with the worker run as its child, a span per availability check, and a span
 * per MCP request that the dispatch span of a tools/call hangs from.
 */
import { createHash } from 'node:crypto';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { createMcpServer, serveHttp } from 'toolshed/mcp';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { aiSdkTools } from 'toolshed/ai-sdk';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { fixture, fixtureOptions } from '../helpers.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let host: ToolHost;

beforeAll(async () => {
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  host = await createToolHost(fixtureOptions(['notes']));
});
afterAll(async () => {
  await host.close();
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

const spans = () => exporter.getFinishedSpans();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const named = (name: string) => spans().filter((s) => s.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('availability checks', () => {
  it('record one span per probe, with the tool, plugin and verdict', async () => {
    // Startup probed sync_notes, the one tool with a check, once.
    expect(
      spans()
        .filter((s) => s.name.startsWith('toolshed.check '))
        .map((s) => s.name),
    ).toEqual(['toolshed.check sync_notes']);
    const [check] = named('toolshed.check sync_notes');
    expect(check!.attributes).toMatchObject({
      'gen_ai.tool.name': 'sync_notes',
      'toolshed.plugin': 'toolshed-plugin-notes',
      'toolshed.tier': 'thread',
      'toolshed.check.ok': true,
    });
    // A cached verdict is no probe and no span; a probe after the cache is dropped is one more.
    exporter.reset();
    await host.definitions({ format: 'mcp' });
    expect(named('toolshed.check sync_notes')).toHaveLength(0);
    host.invalidateChecks();
    await host.definitions({ format: 'mcp' });
    expect(named('toolshed.check sync_notes')).toHaveLength(1);
  });
});

describe('dispatch', () => {
  beforeEach(() => exporter.reset());

  it('records execute_tool with the GenAI attributes, the outcome and the result size, and the worker as a child', async () => {
    const text = await host.dispatch('read_note', { id: 'a' }, { callId: 'call_7', sessionId: 'chat-1' });
    const [call] = named('execute_tool read_note');
    const [worker] = named('toolshed.worker read_note');
    expect(named('execute_tool read_note')).toHaveLength(1);
    expect(call!.kind).toBe(SpanKind.INTERNAL);
    expect(call!.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_note',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.id': 'call_7',
      'gen_ai.tool.description': 'Reads one note by id.',
      'gen_ai.conversation.id': 'chat-1',
      'toolshed.call.depth': 0,
      'toolshed.plugin': 'toolshed-plugin-notes',
      'toolshed.tier': 'thread',
      'toolshed.outcome.code': 'OK',
      'toolshed.result.size': text.length,
      'toolshed.arguments.sha256': sha256('{"id":"a"}'),
      'toolshed.result.sha256': sha256(text),
    });
    expect(call!.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(parentOf(worker!)).toBe(call!.spanContext().spanId);
    expect(worker!.attributes).toMatchObject({ 'toolshed.plugin': 'toolshed-plugin-notes', 'toolshed.tier': 'thread' });
  });

  it('marks a failed call with its code as error.type and an error status', async () => {
    await host.dispatch('fail_note', {});
    const [call] = named('execute_tool fail_note');
    expect(call!.attributes).toMatchObject({ 'error.type': 'TOOL_FAILED', 'toolshed.outcome.code': 'TOOL_FAILED' });
    expect(call!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the note store is offline' });
    await host.dispatch('no_such_tool', {});
    expect(named('execute_tool no_such_tool')[0]!.attributes).toMatchObject({ 'error.type': 'UNKNOWN_TOOL' });
  });

  it("hangs from the caller's active span, and a nested call hangs from its caller's worker span", async () => {
    const agent = trace.getTracer('test-agent');
    await agent.startActiveSpan('agent turn', async (turn) => {
      await host.dispatch('summarize_note', { id: 'n' });
      turn.end();
    });
    const [turn] = named('agent turn');
    const [outer] = named('execute_tool summarize_note');
    const [outerWorker] = named('toolshed.worker summarize_note');
    const [inner] = named('execute_tool read_note');
    expect(parentOf(outer!)).toBe(turn!.spanContext().spanId);
    expect(parentOf(inner!)).toBe(outerWorker!.spanContext().spanId);
    expect(inner!.attributes).toMatchObject({ 'toolshed.call.depth': 1, 'toolshed.caller.tool': 'summarize_note' });
    expect(new Set(spans().map((s) => s.spanContext().traceId)).size).toBe(1);
  });
});

describe('an untrusted plugin (process tier)', () => {
  beforeEach(() => exporter.reset());

  it('records its dispatch, its worker time in the child process and its checks with tier process', async () => {
    const untrusted = await createToolHost({
      ...fixtureOptions([]),
      config: {
        builtins: false,
        cache: { enabled: false },
        plugins: [{ package: fixture('plugins', 'notes'), trust: 'untrusted' }],
      },
    });
    try {
      expect(await untrusted.dispatch('read_note', { id: 'p' }, { callId: 'call_p' })).toBe('note p');
    } finally {
      await untrusted.close();
    }
    const [check] = named('toolshed.check sync_notes');
    expect(check!.attributes).toMatchObject({ 'toolshed.tier': 'process', 'toolshed.check.ok': true });
    const [call] = named('execute_tool read_note');
    const [worker] = named('toolshed.worker read_note');
    expect(call!.attributes).toMatchObject({
      'gen_ai.tool.call.id': 'call_p',
      'toolshed.tier': 'process',
      'toolshed.outcome.code': 'OK',
      'toolshed.result.size': 6,
    });
    expect(parentOf(worker!)).toBe(call!.spanContext().spanId);
    expect(worker!.attributes).toMatchObject({ 'toolshed.tier': 'process' });
  });
});

describe('with hooks and frameworks', () => {
  beforeEach(() => exporter.reset());

  it('lets an afterCall hook annotate the dispatch span (it is the active span there)', async () => {
    const stop = host.use({
      afterCall: (call, result) =>
        void trace.getActiveSpan()?.setAttribute('app.result.code', `${call.tool}:${result.code}`),
    });
    try {
      await host.dispatch('read_note', { id: 'a' });
    } finally {
      stop();
    }
    expect(named('execute_tool read_note')[0]!.attributes['app.result.code']).toBe('read_note:OK');
  });

  it("hangs from the AI SDK's own ai.toolCall span when its telemetry is on", async () => {
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () =>
        step++ === 0
          ? {
              content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_note', input: '{"id":"a"}' }],
              finishReason: { unified: 'tool-calls', raw: undefined },
              usage,
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: 'done' }],
              finishReason: { unified: 'stop', raw: undefined },
              usage,
              warnings: [],
            },
    });
    await generateText({
      model,
      tools: await aiSdkTools(host),
      stopWhen: stepCountIs(3),
      prompt: 'x',
      experimental_telemetry: { isEnabled: true },
    });
    const [toolCall] = named('ai.toolCall');
    expect(parentOf(named('execute_tool read_note')[0]!)).toBe(toolCall!.spanContext().spanId);
  });
});

describe('MCP requests in serve', () => {
  beforeEach(() => exporter.reset());

  it('records one SERVER span per request; a tools/call span is the parent of its dispatch span and takes the client trace context', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = createMcpServer(host);
    await server.connect(serverSide);
    const client = new Client({ name: 'trace-test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      await client.listTools();
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      await client.callTool({ name: 'read_note', arguments: { id: 'a' }, _meta: { traceparent } });
      await client.callTool({ name: 'fail_note', arguments: {} });
    } finally {
      await client.close();
    }
    // One SERVER span per request, in order (the initialized notification is no request).
    expect(
      spans()
        .filter((s) => s.kind === SpanKind.SERVER)
        .map((s) => s.name),
    ).toEqual(['initialize', 'tools/list', 'tools/call read_note', 'tools/call fail_note']);
    expect(named('initialize')[0]).toMatchObject({
      kind: SpanKind.SERVER,
      attributes: { 'mcp.method.name': 'initialize' },
    });
    expect(named('tools/list')[0]!.attributes).toMatchObject({
      'mcp.method.name': 'tools/list',
      'mcp.protocol.version': expect.any(String),
    });
    const [call] = named('tools/call read_note');
    expect(call!.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'read_note',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': expect.any(String),
    });
    // The client's context is the remote parent.
    expect(call!.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(parentOf(call!)).toBe('00f067aa0ba902b7');
    expect(parentOf(named('execute_tool read_note')[0]!)).toBe(call!.spanContext().spanId);
    // A failed tool is a successful JSON-RPC call whose result is an error: error.type is tool_error.
    expect(named('tools/call fail_note')[0]!.attributes).toMatchObject({ 'error.type': 'tool_error' });
  });

  it('over Streamable HTTP, records the session and the tcp transport', async () => {
    const endpoint = await serveHttp(host, { host: '127.0.0.1', port: 0 });
    const client = new Client({ name: 'trace-http', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
      await client.callTool({ name: 'read_note', arguments: { id: 'h' } });
    } finally {
      await client.close();
      await endpoint.close();
    }
    const [call] = named('tools/call read_note');
    expect(call!.attributes).toMatchObject({ 'network.transport': 'tcp', 'mcp.session.id': expect.any(String) });
    expect(parentOf(named('execute_tool read_note')[0]!)).toBe(call!.spanContext().spanId);
  });
});
