/**
 * toolshed/langchain against the real LangChain: createAgent (langchain) runs
 * one agent turn with the framework's own FakeToolCallingModel, which asks for
 * a tool that succeeds and one that fails, then answers. The tool messages the
 * agent produced must carry the result and, for the failure, status 'error'
 * with the envelope as content.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { createAgent, FakeToolCallingModel } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolCall, type ToolHost } from 'toolshed';
import { langchainTools, liveLangchainTools, ToolshedToolError } from 'toolshed/langchain';
import { fixtureOptions, tempDir } from '../helpers.js';

let host: ToolHost;
beforeAll(async () => {
  host = await createToolHost(fixtureOptions(['notes']));
});
afterAll(() => host.close());

const toolMessages = (messages: BaseMessage[]) =>
  messages
    .filter((m): m is ToolMessage => ToolMessage.isInstance(m))
    .map((m) => ({ id: m.tool_call_id, status: m.status, content: m.content }));

/** The fake model, recording the tool names it is bound to on every model call. */
class RecordingModel extends FakeToolCallingModel {
  static bound: string[][] = [];
  override bindTools(tools: Array<{ name: string }>) {
    RecordingModel.bound.push(tools.map((t) => t.name));
    return super.bindTools(tools as never);
  }
}

describe('langchainTools', () => {
  it('runs an agent turn: the result and the failure (status error, envelope content) reach the model', async () => {
    const seen: ToolCall[] = [];
    const stop = host.use({ beforeCall: (call) => void seen.push(structuredClone(call)) });
    let result;
    try {
      const model = new FakeToolCallingModel({
        toolCalls: [
          [
            { name: 'read_note', args: { id: 'a' }, id: 'call_1' },
            { name: 'fail_note', args: {}, id: 'call_2' },
          ],
          [],
        ],
      });
      const agent = createAgent({ model, tools: await langchainTools(host, { sessionId: 'lc-1' }) });
      result = await agent.invoke({ messages: [{ role: 'user', content: 'read note a' }] });
    } finally {
      stop();
    }
    expect(toolMessages(result.messages)).toEqual([
      { id: 'call_1', status: 'success', content: 'note a (session lc-1)' },
      { id: 'call_2', status: 'error', content: '{"error":"the note store is offline","code":"TOOL_FAILED"}' },
    ]);
    // The model's final turn read both tool messages (the fake model echoes what it was sent).
    const last = result.messages[result.messages.length - 1]!;
    expect(String(last.content)).toContain('the note store is offline');
    expect(String(last.content)).toContain('note a (session lc-1)');
    expect(seen.map((c) => [c.tool, c.callId, c.sessionId])).toEqual([
      ['read_note', 'call_1', 'lc-1'],
      ['fail_note', 'call_2', 'lc-1'],
    ]);
  });

  it('throws a ToolshedToolError when invoked with plain arguments', async () => {
    const [fail] = (await langchainTools(host)).filter((t) => t.name === 'fail_note');
    const error = await fail!.invoke({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolshedToolError);
    expect(error).toMatchObject({
      code: 'TOOL_FAILED',
      message: '{"error":"the note store is offline","code":"TOOL_FAILED"}',
    });
  });
});

describe('langchainTools and cancelling', () => {
  it("passes the agent's abort signal through to dispatch: a running call is cancelled", async () => {
    const kitchen = await createToolHost(fixtureOptions(['kitchen']));
    const controller = new AbortController();
    const outcomes: Array<[string, string | undefined, string]> = [];
    kitchen.use({
      beforeCall: (call) => {
        if (call.tool === 'slow') setTimeout(() => controller.abort(), 20);
      },
      afterCall: (call, result) => void outcomes.push([call.tool, call.callId, result.code]),
    });
    try {
      const model = new FakeToolCallingModel({
        toolCalls: [[{ name: 'slow', args: { ms: 30_000 }, id: 'call_s' }], []],
      });
      const agent = createAgent({ model, tools: (await langchainTools(kitchen)).filter((t) => t.name === 'slow') });
      // LangChain ends the run at once on abort; the call ends when its worker gives it up (slow ignores ctx.signal).
      await agent
        .invoke({ messages: [{ role: 'user', content: 'wait' }] }, { signal: controller.signal })
        .catch(() => {});
      await expect.poll(() => outcomes, { timeout: 10_000 }).toEqual([['slow', 'call_s', 'TOOL_CANCELLED']]);
    } finally {
      await kitchen.close();
    }
  });
});

describe('liveLangchainTools', () => {
  it("serves createAgent the host's current tools at every model call through its middleware", async () => {
    const work = tempDir();
    const probing = await createToolHost(
      fixtureOptions(['probe'], { cwd: work.dir, config: { enable: ['probe'], checks: { graceMs: 0 } } }),
    );
    try {
      const live = await liveLangchainTools(probing);
      RecordingModel.bound = [];
      const model = new RecordingModel({ toolCalls: [[{ name: 'own_check', args: {}, id: 'call_1' }], []] });
      const flip = probing.use({
        afterCall: (call) => {
          // The backend of own_check goes away right after its first call.
          if (call.tool === 'own_check') {
            writeFileSync(path.join(work.dir, 'own.mode'), 'false');
            probing.invalidateChecks();
          }
        },
      });
      const agent = createAgent({ model, middleware: [await live.middleware()] });
      const result = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] });
      flip();
      expect(toolMessages(result.messages)).toEqual([{ id: 'call_1', status: 'success', content: 'own' }]);
      expect(RecordingModel.bound).toHaveLength(2);
      expect(RecordingModel.bound[0]).toContain('own_check');
      expect(RecordingModel.bound[1]).not.toContain('own_check');
      expect(RecordingModel.bound[1]).toContain('mentions_own');
      live.close();
    } finally {
      await probing.close();
      work.cleanup();
    }
  });
});
