import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createToolHost,
  type AnthropicTool,
  type ApprovalRequest,
  type McpTool,
  type OpenAITool,
  type ToolHost,
} from 'toolshed';
import { fixtureOptions } from '../helpers.js';

const parse = (text: string) => JSON.parse(text) as { error: string; code: string };
const completed = (h: ToolHost) => h.explain().plugins.find((p) => p.name === 'toolshed-plugin-notes')!.pool!.completed;

describe('annotations', () => {
  it('pass through to the mcp format, the one that carries them, and nowhere else', async () => {
    const host = await createToolHost(fixtureOptions(['notes']));
    try {
      const mcp = await host.definitions({ format: 'mcp' });
      const byName = Object.fromEntries(mcp.map((t: McpTool) => [t.name, t]));
      expect(byName.read_note!.annotations).toEqual({
        title: 'Read a note',
        readOnlyHint: true,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(byName.delete_note!.annotations).toEqual({ destructiveHint: true });
      const openai: OpenAITool[] = await host.definitions({ format: 'openai' });
      const anthropic: AnthropicTool[] = await host.definitions({ format: 'anthropic' });
      expect(
        JSON.stringify([
          openai,
          anthropic,
          await host.definitions({ format: 'gemini' }),
          await host.definitions({ format: 'responses' }),
        ]),
      ).not.toContain('Hint');
    } finally {
      await host.close();
    }
  });

  it('are absent from a tool that declares none', async () => {
    const host = await createToolHost(fixtureOptions(['kitchen']));
    try {
      expect((await host.definitions({ format: 'mcp' })).find((t) => t.name === 'echo')).not.toHaveProperty(
        'annotations',
      );
    } finally {
      await host.close();
    }
  });
});

describe('approve', () => {
  let host: ToolHost;
  let asked: ApprovalRequest[];
  let answer: (request: ApprovalRequest) => unknown;
  beforeAll(async () => {
    host = await createToolHost(
      fixtureOptions(['notes'], {
        config: { approve: { tools: ['delete_note', 'read_note'], timeoutMs: 300 } },
        onApproval: (request) => {
          asked.push(request);
          return answer(request) as never;
        },
      }),
    );
  });
  afterAll(() => host.close());
  const reset = (fn: (request: ApprovalRequest) => unknown) => {
    asked = [];
    answer = fn;
  };

  it('asks the approver before the call runs, with the call and why', async () => {
    reset(() => true);
    expect(await host.dispatch('delete_note', '{"id":"a"}', { sessionId: 's', callId: 'c1' })).toBe('deleted a');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      tool: 'delete_note',
      args: { id: 'a' },
      sessionId: 's',
      callId: 'c1',
      reason: 'listed',
      timeoutMs: 300,
      plugin: 'toolshed-plugin-notes',
      annotations: { destructiveHint: true },
    });
    expect(asked[0]!.signal).toBeInstanceOf(AbortSignal);
    // A tool not listed is not asked about.
    expect(await host.dispatch('list_notes', {})).toBe('{"ids":["a","b","c"]}');
    expect(asked).toHaveLength(1);
  });

  it('refuses with APPROVAL_DENIED and the reason when the answer is no; the tool does not run', async () => {
    const before = completed(host);
    reset(() => ({ approved: false, reason: 'not today' }));
    expect(parse(await host.dispatch('delete_note', { id: 'a' }))).toEqual({
      code: 'APPROVAL_DENIED',
      error: 'delete_note was not approved: not today; it did not run',
    });
    reset(() => false);
    expect(parse(await host.dispatch('delete_note', { id: 'a' })).code).toBe('APPROVAL_DENIED');
    reset(() => {
      throw new Error('approval service down');
    });
    expect(parse(await host.dispatch('delete_note', { id: 'a' })).error).toContain(
      'the approver failed: approval service down',
    );
    expect(completed(host)).toBe(before);
  });

  it('refuses with APPROVAL_TIMEOUT when no answer comes in approve.timeoutMs, and aborts the question', async () => {
    let signal: AbortSignal | undefined;
    reset((request) => {
      signal = request.signal;
      return new Promise(() => {});
    });
    expect(parse(await host.dispatch('delete_note', { id: 'a' }))).toEqual({
      code: 'APPROVAL_TIMEOUT',
      error: 'delete_note was not approved within 300 ms (approve.timeoutMs); it did not run',
    });
    expect(signal?.aborted).toBe(true);
  });

  it('ends the wait with TOOL_CANCELLED when the caller cancels', async () => {
    const controller = new AbortController();
    reset(() => {
      setTimeout(() => controller.abort(), 20);
      return new Promise(() => {});
    });
    expect(parse(await host.dispatch('delete_note', { id: 'a' }, { signal: controller.signal })).code).toBe(
      'TOOL_CANCELLED',
    );
  });

  it('shows in explain which tools need approval and why, with their annotations', async () => {
    const tools = Object.fromEntries(host.explain().tools.map((t) => [t.name, t]));
    expect(tools.delete_note).toMatchObject({ approval: 'listed', annotations: { destructiveHint: true } });
    expect(tools.list_notes!.approval).toBeUndefined();
  });

  it("takes a call's own approver first, and a view's before the host's", async () => {
    reset(() => false);
    expect(await host.dispatch('delete_note', { id: 'a' }, { onApproval: () => true })).toBe('deleted a');
    const view = host.view({ enable: ['notes', 'notes-admin'], onApproval: () => true });
    try {
      expect(await view.dispatch('delete_note', { id: 'b' })).toBe('deleted b');
      expect(parse(await host.dispatch('delete_note', { id: 'c' })).code).toBe('APPROVAL_DENIED');
    } finally {
      await view.close();
    }
  });

  it('asks about the arguments the hooks left, and about nested calls with their caller', async () => {
    reset(() => true);
    const stop = host.use({
      beforeCall: (call) => (call.tool === 'delete_note' ? { args: { id: 'rewritten' } } : undefined),
    });
    try {
      expect(await host.dispatch('delete_note', { id: 'a' })).toBe('deleted rewritten');
    } finally {
      stop();
    }
    expect(asked[0]!.args).toEqual({ id: 'rewritten' });
    reset(() => true);
    expect(await host.dispatch('summarize_note', { id: 'n' })).toBe('summary of: note n');
    expect(asked.map((r) => [r.tool, r.caller?.tool])).toEqual([['read_note', 'summarize_note']]);
  });
});

describe('approve: { destructive: true }', () => {
  it("asks about every tool MCP's defaults call destructive: not read-only, destructiveHint not false (none declared counts)", async () => {
    const asked: string[] = [];
    const host = await createToolHost(
      fixtureOptions(['notes', 'kitchen'], {
        config: { approve: { destructive: true } },
        onApproval: (request) => {
          asked.push(`${request.tool}:${request.reason}`);
          return true;
        },
      }),
    );
    try {
      for (const [tool, args] of [
        ['read_note', { id: 'a' }],
        ['write_note', { id: 'a', text: 't' }],
        ['sync_notes', {}],
        ['delete_note', { id: 'a' }],
        ['text', {}],
      ] as const) {
        expect(await host.dispatch(tool, args)).not.toMatch(/^\{"error"/);
      }
      expect(asked).toEqual(['delete_note:destructive', 'text:destructive']);
    } finally {
      await host.close();
    }
  });

  it('refuses a call that needs approval when nothing can approve it, saying how to fix it', async () => {
    const host = await createToolHost(fixtureOptions(['notes'], { config: { approve: ['notes-admin'] } }));
    try {
      const out = parse(await host.dispatch('sync_notes', {}));
      expect(out.code).toBe('APPROVAL_DENIED');
      expect(out.error).toContain('set onApproval on the host');
      expect(await host.dispatch('read_note', { id: 'a' })).toBe('note a');
    } finally {
      await host.close();
    }
  });

  it('fails the host with TOOLSET_UNKNOWN for a name in approve that is neither a toolset nor a tool', async () => {
    await expect(
      createToolHost(fixtureOptions(['notes'], { config: { approve: ['delete_notes'] } })),
    ).rejects.toMatchObject({
      code: 'TOOLSET_UNKNOWN',
      message: expect.stringContaining("Did you mean 'delete_note'"),
    });
  });
});
