/**
 * toolshed/ai-sdk against the real AI SDK: generateText runs an agent turn with
 * the SDK's own MockLanguageModelV3, which asks for two tools (one succeeds,
 * one fails) and then answers. The SDK must execute them through the host and
 * hand the model the result and the failure as the SDK's own tool result and
 * tool error, with the envelope as the error's text in every supported major.
 *
 * The suite imports `ai` by name, as the adapter does; each `ai-sdk*.test.ts`
 * runs it against one installed major.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateText, stepCountIs, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolCall, type ToolHost } from 'toolshed';
import { aiSdkTools, liveAiSdkTools, ToolshedToolError } from 'toolshed/ai-sdk';
import { fixtureOptions, tempDir } from '../helpers.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const toolCalls = (...calls: Array<[id: string, name: string, input: object]>) => ({
  content: calls.map(([toolCallId, toolName, input]) => ({
    type: 'tool-call' as const,
    toolCallId,
    toolName,
    input: JSON.stringify(input),
  })),
  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
  usage,
  warnings: [],
});
const answer = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  finishReason: { unified: 'stop' as const, raw: 'stop' },
  usage,
  warnings: [],
});
/** The tool results the model was sent in its next call, as the provider sees them. */
const toolParts = (prompt: ModelMessage[] | unknown[]) =>
  (prompt as Array<{ role: string; content: Array<{ type: string; toolCallId?: string; output?: unknown }> }>)
    .filter((m) => m.role === 'tool')
    .flatMap((m) => m.content.map((p) => ({ toolCallId: p.toolCallId, output: p.output })));

/** One installed copy of the AI SDK: the name it is installed under and its module. */
export interface AiSdkCopy {
  installedAs: string;
  module: { generateText: unknown };
  major: number;
}

/** Runs the suite against `copy`, which `ai` must resolve to (for the adapter as for this file). */
export function aiSdkSuite(copy: AiSdkCopy) {
  let host: ToolHost;
  beforeAll(async () => {
    host = await createToolHost(fixtureOptions(['notes']));
  });
  afterAll(() => host.close());

  it(`runs against AI SDK ${copy.major}`, () => {
    const installed = JSON.parse(
      readFileSync(new URL(`../../node_modules/${copy.installedAs}/package.json`, import.meta.url), 'utf8'),
    ) as { version: string };
    expect(installed.version.split('.')[0]).toBe(String(copy.major));
    expect(generateText).toBe(copy.module.generateText);
  });

  describe('aiSdkTools', () => {
    it('runs an agent turn: results and failures reach the model as the SDK tool result and tool error', async () => {
      const seen: ToolCall[] = [];
      const stop = host.use({ beforeCall: (call) => void seen.push(structuredClone(call)) });
      const model = new MockLanguageModelV3({
        doGenerate: [toolCalls(['call_1', 'read_note', { id: 'a' }], ['call_2', 'fail_note', {}]), answer('done')],
      });
      try {
        const result = await generateText({
          model,
          tools: await aiSdkTools(host, { sessionId: 'chat-7' }),
          stopWhen: stepCountIs(3),
          prompt: 'read note a',
        });
        expect(result.text).toBe('done');
        const [first] = result.steps;
        expect(first!.toolResults).toEqual([
          expect.objectContaining({ toolCallId: 'call_1', toolName: 'read_note', output: 'note a (session chat-7)' }),
        ]);
        const errors = first!.content.filter((part) => part.type === 'tool-error');
        expect(errors).toHaveLength(1);
        const error = (errors[0] as { error: unknown }).error;
        expect(error).toBeInstanceOf(ToolshedToolError);
        expect(error).toMatchObject({ code: 'TOOL_FAILED', tool: 'fail_note' });
      } finally {
        stop();
      }
      // The model's second call carried both outcomes; the failure as an error result whose text is the envelope.
      expect(toolParts(model.doGenerateCalls[1]!.prompt)).toEqual([
        { toolCallId: 'call_1', output: { type: 'text', value: 'note a (session chat-7)' } },
        {
          toolCallId: 'call_2',
          output: { type: 'error-text', value: '{"error":"the note store is offline","code":"TOOL_FAILED"}' },
        },
      ]);
      // The model was offered exactly the exposed tools, with their JSON Schemas.
      const offered = model.doGenerateCalls[0]!.tools as Array<{ name: string; inputSchema: unknown }>;
      expect(offered.map((t) => t.name)).toEqual((await host.definitions({ format: 'mcp' })).map((d) => d.name));
      expect(offered.find((t) => t.name === 'read_note')!.inputSchema).toMatchObject({
        type: 'object',
        required: ['id'],
      });
      // Dispatch got the model's call ids and the adapter's session.
      expect(seen.map((c) => [c.tool, c.callId, c.sessionId])).toEqual([
        ['read_note', 'call_1', 'chat-7'],
        ['fail_note', 'call_2', 'chat-7'],
      ]);
    });

    it("passes the step's abort signal through to the handler", async () => {
      const controller = new AbortController();
      const tools = await aiSdkTools(host);
      const running = tools.read_note!.execute!(
        { id: 'slow' },
        { toolCallId: 'c', messages: [], abortSignal: controller.signal },
      );
      controller.abort();
      // Aborted before or while it ran: either way the framework sees a failed call with TOOL_CANCELLED.
      await expect(running).rejects.toMatchObject({ code: 'TOOL_CANCELLED' });
    });
  });

  describe('aiSdkTools over a view', () => {
    it("gives a sub-agent only the view's tools, run through the view", async () => {
      const readOnly = host.view({ enable: ['read_note', 'list_notes'] });
      try {
        const tools = await aiSdkTools(readOnly, { sessionId: 'sub-1' });
        expect(Object.keys(tools).sort()).toEqual(['list_notes', 'read_note']);
        expect(await tools.read_note!.execute!({ id: 'a' }, { toolCallId: 'c', messages: [] })).toBe(
          'note a (session sub-1)',
        );
      } finally {
        await readOnly.close();
      }
    });
  });

  describe('liveAiSdkTools', () => {
    it('keeps the tool set current between the steps of one run', async () => {
      const work = tempDir();
      const probing = await createToolHost(
        fixtureOptions(['probe'], { cwd: work.dir, config: { enable: ['probe'], checks: { graceMs: 0 } } }),
      );
      try {
        const live = await liveAiSdkTools(probing);
        expect(Object.keys(live.tools)).toContain('own_check');
        let step = 0;
        const model = new MockLanguageModelV3({
          doGenerate: async () => {
            if (step++ > 0) return answer('done');
            // While the first step runs, own_check's backend goes away.
            writeFileSync(path.join(work.dir, 'own.mode'), 'false');
            probing.invalidateChecks();
            return toolCalls(['call_1', 'mentions_own', {}]);
          },
        });
        await generateText({
          model,
          tools: live.tools,
          prepareStep: live.prepareStep,
          stopWhen: stepCountIs(3),
          prompt: 'go',
        });
        const names = (call: number) =>
          (model.doGenerateCalls[call]!.tools as Array<{ name: string }>).map((t) => t.name);
        expect(names(0)).toContain('own_check');
        expect(names(1)).not.toContain('own_check');
        expect(names(1)).toContain('mentions_own');
        expect(Object.keys(live.tools)).not.toContain('own_check');
        live.close();
      } finally {
        await probing.close();
        work.cleanup();
      }
    });
  });
}
