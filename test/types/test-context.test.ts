import { describe, expect, expectTypeOf, it } from 'vitest';
import { createTestContext, type ToolContext } from 'toolshed/plugin';

describe('createTestContext', () => {
  it('is a ToolContext whose fakes record what a handler did', async () => {
    const ctx = createTestContext({
      env: { KEY: 'k' },
      cwd: '/work',
      sessionId: 's',
      callTool: (name, args) => ({ name, args }),
    });
    expectTypeOf(ctx).toMatchTypeOf<ToolContext>();
    ctx.log('one');
    ctx.progress(1, 3);
    ctx.progress(2);
    expect(await ctx.callTool('other', { a: 1 })).toEqual({ name: 'other', args: { a: 1 } });
    expect(ctx).toMatchObject({
      env: { KEY: 'k' },
      cwd: '/work',
      sessionId: 's',
      logs: ['one'],
      progressEvents: [{ done: 1, total: 3 }, { done: 2 }],
      toolCalls: [{ name: 'other', args: { a: 1 } }],
    });
    expect((await ctx.sandboxTools()).tools).toEqual([]);
  });

  it('aborts its signal on abort(), and says so when callTool has no fake', async () => {
    const ctx = createTestContext();
    expect(ctx.signal.aborted).toBe(false);
    ctx.abort(new Error('cancelled'));
    expect(ctx.signal.aborted).toBe(true);
    expect(() => ctx.signal.throwIfAborted()).toThrow('cancelled');
    await expect(ctx.callTool('x')).rejects.toThrow(
      "ctx.callTool('x') was called, but the test context has no callTool fake",
    );
  });
});
