import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallOutcome } from 'toolshed';
import { runCode, type ToolCallContext } from '#internal/sandbox/code/runtime.js';
import { teardownFailureCount } from '#internal/sandbox/code/session.js';
import { FILE_TOOLS, LIMITS, Workspace } from './helpers.js';

let workspace: Workspace;

beforeAll(async () => {
  workspace = await Workspace.create({ 'a.txt': 'alpha', 'b.txt': 'beta' });
});

afterAll(async () => {
  await workspace.dispose();
});

describe('runtime teardown', () => {
  it('frees every runtime it creates, whichever way the script ends', async () => {
    // A call that never answers leaves a QuickJS promise (and its resolvers) pending at the deadline.
    const hangOnB = (name: string, args: unknown, context: ToolCallContext): Promise<CallOutcome> =>
      (args as { path?: string }).path === 'b.txt' ? new Promise(() => {}) : workspace.callTool(name, args, context);
    const scripts: Array<[string, Partial<typeof LIMITS>]> = [
      ['return 1;', {}],
      ["console.log('x'); return (await tools.read_file({ path: 'a.txt' })).length;", {}],
      [
        "for (let i = 0; i < 3; i++) { try { await tools.read_file({ path: 'a.txt' }); } catch (e) {} }",
        { maxToolCalls: 1 },
      ],
      ['try { await tools.nope({}); } catch (e) { return e.code; }', {}],
      ["await tools.read_file({ path: 'missing.txt' });", {}],
      ['const = ;', {}],
      ["tools.read_file({ path: 'b.txt' }); await tools.read_file({ path: 'b.txt' });", { timeoutMs: 200 }],
      ['for (;;) {}', { timeoutMs: 200 }],
      ['await new Promise(() => {});', {}],
    ];
    const before = teardownFailureCount();
    for (const [code, limits] of scripts) {
      const outcome = await runCode({ ...LIMITS, ...limits, code, tools: FILE_TOOLS, callTool: hangOnB });
      expect(['ok', 'error', 'timeout']).toContain(outcome.status);
    }
    expect(teardownFailureCount()).toBe(before);
  });

  it('runs concurrent scripts in separate runtimes', async () => {
    const outcomes = await Promise.all(
      [0, 1, 2, 3].map((index) =>
        runCode({
          ...LIMITS,
          tools: FILE_TOOLS,
          callTool: workspace.callTool,
          code: `globalThis.mine = ${index};
            const text = await tools.read_file({ path: ${index % 2 === 0 ? "'a.txt'" : "'b.txt'"} });
            const filler = []; for (let i = 0; i < 2000; i++) filler.push({ i });
            return [mine, text, filler.length];`,
        }),
      ),
    );
    expect(outcomes.map((outcome) => outcome.result)).toEqual([
      [0, 'alpha', 2000],
      [1, 'beta', 2000],
      [2, 'alpha', 2000],
      [3, 'beta', 2000],
    ]);
  });
});
