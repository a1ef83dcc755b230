/**
 * toolshed/openai-agents against the real OpenAI Agents SDK: an Agent runs one
 * turn against a scripted OpenAI-compatible server on loopback (the SDK's own
 * Chat Completions model and the openai client), calling a tool that succeeds,
 * one that fails and one with a strict-mode null. The SDK must send strict
 * schemas where they hold, record the failed tool as failed, and give the
 * model the envelope.
 *
 * The suite imports `@openai/agents` by name, as the adapter does; each
 * `openai-agents*.test.ts` runs it against one installed version.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  Agent,
  OpenAIChatCompletionsModel,
  run,
  setTraceProcessors,
  setTracingDisabled,
  type Span,
  type TracingProcessor,
} from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolCall, type ToolHost } from 'toolshed';
import { liveOpenAiAgentsTools, openAiAgentsTools } from 'toolshed/openai-agents';
import { fixtureOptions, tempDir } from '../helpers.js';
import { startScriptedServer, toolCall, type ScriptedServer } from './scripted-openai.js';

/** Keeps the SDK's finished spans in memory instead of exporting them anywhere. */
class MemoryProcessor implements TracingProcessor {
  spans: Span<never>[] = [];
  async onTraceStart() {}
  async onTraceEnd() {}
  async onSpanStart() {}
  async onSpanEnd(span: Span<never>) {
    this.spans.push(span);
  }
  async shutdown() {}
  async forceFlush() {}
}

/**
 * One installed copy of the Agents SDK: the name it is installed under, its module and its minor (each 0.x minor is a
 * major).
 */
export interface AgentsCopy {
  installedAs: string;
  module: { run: unknown };
  minor: string;
}

/** Runs the suite against `copy`, which `@openai/agents` must resolve to (for the adapter as for this file). */
export function openAiAgentsSuite(copy: AgentsCopy) {
  let host: ToolHost;
  let server: ScriptedServer;
  const spans = new MemoryProcessor();

  beforeAll(async () => {
    setTraceProcessors([spans]);
    setTracingDisabled(false);
    host = await createToolHost(fixtureOptions(['notes', 'kitchen'], { config: { enable: ['notes', 'kitchen'] } }));
  });
  afterAll(async () => {
    setTracingDisabled(true);
    await server?.close();
    await host.close();
  });

  it(`runs against @openai/agents ${copy.minor}`, () => {
    const installed = JSON.parse(
      readFileSync(new URL(`../../node_modules/${copy.installedAs}/package.json`, import.meta.url), 'utf8'),
    ) as { version: string };
    expect(installed.version.split('.').slice(0, 2).join('.')).toBe(copy.minor);
    expect(run).toBe(copy.module.run);
  });

  const model = (baseURL: string) =>
    new OpenAIChatCompletionsModel(new OpenAI({ baseURL, apiKey: 'test' }), 'scripted');

  describe('openAiAgentsTools', () => {
    it('runs an agent turn: the result, the strict null and the failure reach the model; the failure is recorded as one', async () => {
      server = await startScriptedServer([
        {
          tool_calls: [
            toolCall('call_1', 'read_note', { id: 'a' }),
            toolCall('call_2', 'fail_note', {}),
            toolCall('call_3', 'list_notes', { limit: null }),
          ],
        },
        { content: 'done' },
      ]);
      const seen: ToolCall[] = [];
      const stop = host.use({ beforeCall: (call) => void seen.push(structuredClone(call)) });
      let result;
      try {
        const agent = new Agent({
          name: 'notes',
          instructions: 'Use the tools.',
          model: model(server.baseURL),
          tools: await openAiAgentsTools(host, { sessionId: 'thread-9' }),
        });
        result = await run(agent, 'read note a');
      } finally {
        stop();
      }
      expect(result.finalOutput).toBe('done');

      // What the model was sent next: every result in the tool messages, the failure as its envelope.
      const replies = Object.fromEntries(
        server.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]),
      );
      expect(replies).toEqual({
        call_1: 'note a (session thread-9)',
        call_2: '{"error":"the note store is offline","code":"TOOL_FAILED"}',
        call_3: '{"ids":["a","b","c"]}',
      });
      // The SDK recorded the failed call as failed (its own tool error path), and only that one.
      const failed = spans.spans.filter((s) => (s.spanData as { type: string }).type === 'function' && s.error);
      expect(failed.map((s) => (s.spanData as { name: string }).name)).toEqual(['fail_note']);
      // Dispatch got the model's call ids and the adapter's session.
      expect(seen.map((c) => [c.tool, c.callId, c.sessionId])).toEqual([
        ['read_note', 'call_1', 'thread-9'],
        ['fail_note', 'call_2', 'thread-9'],
        ['list_notes', 'call_3', 'thread-9'],
      ]);
    });

    it('sends strict schemas where strict mode can express them, and the original schema otherwise', async () => {
      const sent = server.requests[0]!.tools!;
      const byName = Object.fromEntries(sent.map((t) => [t.function.name, t.function]));
      expect(byName.read_note).toMatchObject({
        strict: true,
        parameters: { type: 'object', required: ['id'], additionalProperties: false },
      });
      expect(byName.list_notes).toMatchObject({
        strict: true,
        parameters: { required: ['limit'], properties: { limit: { type: ['integer', 'null'] } } },
      });
      // kitchen's echo takes any object: strict mode cannot say that, so it goes out non-strict and unchanged.
      expect(byName.echo).toMatchObject({ strict: false, parameters: { type: 'object' } });
      expect(sent.map((t) => t.function.name).sort()).toEqual(
        (await host.definitions({ format: 'mcp' })).map((d) => d.name).sort(),
      );
    });
  });

  describe('openAiAgentsTools and cancelling', () => {
    it("passes the run's abort signal through to dispatch: a running call is cancelled", async () => {
      const slowServer = await startScriptedServer([
        { tool_calls: [toolCall('call_s', 'slow', { ms: 30_000 })] },
        { content: 'never' },
      ]);
      const controller = new AbortController();
      const outcomes: Array<[string, string | undefined, string]> = [];
      const stop = host.use({
        beforeCall: (call) => {
          if (call.tool === 'slow') setTimeout(() => controller.abort(), 20);
        },
        afterCall: (call, result) => void outcomes.push([call.tool, call.callId, result.code]),
      });
      try {
        const agent = new Agent({
          name: 'slow',
          instructions: 'x',
          model: model(slowServer.baseURL),
          tools: await openAiAgentsTools(host),
        });
        // The SDK ends the run on abort; how it reports that is its own business. What matters here is the call.
        await run(agent, 'wait', { signal: controller.signal }).catch(() => {});
        await expect.poll(() => outcomes, { timeout: 10_000 }).toEqual([['slow', 'call_s', 'TOOL_CANCELLED']]);
      } finally {
        stop();
        await slowServer.close();
      }
    });
  });

  describe('liveOpenAiAgentsTools', () => {
    it('offers the next turn of the same run the tools as a call left them', async () => {
      const work = tempDir();
      const probing = await createToolHost(
        fixtureOptions(['probe'], { cwd: work.dir, config: { enable: ['probe'], checks: { graceMs: 0 } } }),
      );
      const scripted = await startScriptedServer([
        { tool_calls: [toolCall('call_1', 'own_check', {})] },
        { content: 'done' },
      ]);
      // The backend of own_check goes away while its call runs; nothing else asks the host to recompute.
      const flip = probing.use({
        afterCall: (call) => {
          if (call.tool === 'own_check') {
            writeFileSync(path.join(work.dir, 'own.mode'), 'false');
            probing.invalidateChecks();
          }
        },
      });
      try {
        const live = await liveOpenAiAgentsTools(probing);
        const agent = new Agent({
          name: 'probe',
          instructions: 'x',
          model: model(scripted.baseURL),
          tools: live.tools,
        });
        const result = await run(agent, 'go');
        expect(result.finalOutput).toBe('done');
        const offered = (request: number) => scripted.requests[request]!.tools?.map((t) => t.function.name) ?? [];
        expect(offered(0)).toContain('own_check');
        expect(offered(1)).not.toContain('own_check');
        expect(offered(1)).toContain('mentions_own');
        expect(scripted.requests[1]!.messages.find((m) => m.role === 'tool')!.content).toBe('own');
        live.close();
      } finally {
        flip();
        await scripted.close();
        await probing.close();
        work.cleanup();
      }
    });

    it("updates the array an Agent reads every turn when the host's exposed set changes", async () => {
      const work = tempDir();
      const probing = await createToolHost(
        fixtureOptions(['probe'], { cwd: work.dir, config: { enable: ['probe'], checks: { graceMs: 0 } } }),
      );
      try {
        const live = await liveOpenAiAgentsTools(probing);
        const agent = new Agent({ name: 'probe', instructions: 'x', tools: live.tools });
        const names = () => agent.tools.map((t) => t.name);
        expect(names()).toContain('own_check');
        writeFileSync(path.join(work.dir, 'own.mode'), 'false');
        probing.invalidateChecks();
        // Any recompute that finds a different set emits 'change'; the live array follows it.
        await probing.refresh();
        await expect.poll(names).not.toContain('own_check');
        expect(names()).toContain('mentions_own');
        live.close();
      } finally {
        await probing.close();
        work.cleanup();
      }
    });
  });
}
