import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallOutcome } from 'toolshed';
import { runCode, type CodeResult, type CodeToolSpec, type ToolCallContext } from '#internal/sandbox/code/runtime.js';
import { FILE_TOOLS, LIMITS, Workspace } from './helpers.js';

let workspace: Workspace;

beforeAll(async () => {
  workspace = await Workspace.create({ 'a.txt': 'alpha' });
});

afterAll(async () => {
  await workspace.dispose();
});

function run(code: string, limits: Partial<typeof LIMITS> = {}): Promise<CodeResult> {
  return runCode({ ...LIMITS, ...limits, code, tools: FILE_TOOLS, callTool: workspace.callTool });
}

/** A later run in the same thread still works, with tools. */
async function expectHealthy(): Promise<void> {
  const next = await run(`return (await tools.read_file({ path: 'a.txt' })) + ' ' + (6 * 7);`);
  expect(next).toMatchObject({ status: 'ok', result: 'alpha 42' });
}

describe('time limit', () => {
  it('stops an infinite loop with status timeout, then runs the next script', async () => {
    const outcome = await run('while (true) {}', { timeoutMs: 300 });
    expect(outcome.status).toBe('timeout');
    expect(outcome.error).toMatchObject({ name: 'TimeoutError', code: 'SANDBOX_TIMEOUT' });
    expect(outcome.error?.message).toContain('300 ms');
    await expectHealthy();
  });

  it('stops a loop running in a promise job after an await', async () => {
    const outcome = await run(`await tools.read_file({ path: 'a.txt' }); for (;;) {}`, { timeoutMs: 300 });
    expect(outcome.status).toBe('timeout');
    expect(outcome.toolCalls).toBe(1);
    await expectHealthy();
  });

  it('stops a script waiting on a tool call that outlives the deadline, and aborts that call', async () => {
    const seen: AbortSignal[] = [];
    const hang = (_name: string, _args: unknown, context: ToolCallContext): Promise<CallOutcome> => {
      seen.push(context.signal);
      return new Promise(() => {});
    };
    const outcome = await runCode({
      ...LIMITS,
      timeoutMs: 300,
      code: `await tools.read_file({ path: 'a.txt' }); return 'finished';`,
      tools: FILE_TOOLS,
      callTool: hang,
    });
    expect(outcome.status).toBe('timeout');
    expect(outcome.error?.message).toContain('tool call was still pending');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.aborted).toBe(true);
    await expectHealthy();
  });
});

describe('abort signal', () => {
  it('ends a run whose tool call is in flight and aborts that call', async () => {
    const controller = new AbortController();
    const seen: AbortSignal[] = [];
    const callTool = (_name: string, _args: unknown, context: ToolCallContext): Promise<CallOutcome> => {
      seen.push(context.signal);
      controller.abort(new Error('user cancelled'));
      return new Promise(() => {});
    };
    const outcome = await runCode({
      ...LIMITS,
      code: `await tools.read_file({ path: 'a.txt' });`,
      tools: FILE_TOOLS,
      callTool,
      signal: controller.signal,
    });
    expect(outcome.status).toBe('error');
    expect(outcome.error).toMatchObject({ name: 'AbortError', code: 'SANDBOX_ABORTED' });
    expect(outcome.error?.message).toContain('user cancelled');
    expect(seen[0]?.aborted).toBe(true);
  });

  it('counts a host abort for a timeout as a timeout', async () => {
    const callTool = (): Promise<CallOutcome> => new Promise(() => {});
    const outcome = await runCode({
      ...LIMITS,
      code: `await tools.read_file({ path: 'a.txt' });`,
      tools: FILE_TOOLS,
      callTool,
      signal: AbortSignal.timeout(100),
    });
    expect(outcome).toMatchObject({ status: 'timeout', error: { code: 'SANDBOX_TIMEOUT' } });
  });

  it('does not start a run whose signal is already aborted', async () => {
    const outcome = await runCode({
      ...LIMITS,
      code: `await tools.read_file({ path: 'a.txt' });`,
      tools: FILE_TOOLS,
      callTool: workspace.callTool,
      signal: AbortSignal.abort(),
    });
    expect(outcome).toMatchObject({ status: 'error', toolCalls: 0, error: { code: 'SANDBOX_ABORTED' } });
  });
});

describe('memory limit', () => {
  // Generous deadlines: these tests are about running out of memory, not about time.
  const bombLimits = { memoryMb: 16, timeoutMs: 30_000 };

  it('turns an object bomb into a clean out-of-memory error, then runs the next script', async () => {
    const outcome = await run(
      'const hoard = []; for (;;) hoard.push(new Array(256).fill({ index: hoard.length }));',
      bombLimits,
    );
    expect(outcome.status).toBe('error');
    expect(outcome.error).toMatchObject({ name: 'OutOfMemoryError', code: 'SANDBOX_OUT_OF_MEMORY' });
    expect(outcome.error?.message).toContain('16 MB');
    await expectHealthy();
  });

  it('reports out of memory inside a promise job too', async () => {
    const outcome = await run(
      `await tools.read_file({ path: 'a.txt' });
      let list = null; for (;;) list = { next: list, data: [1, 2, 3, 4] };`,
      bombLimits,
    );
    expect(outcome).toMatchObject({ status: 'error', toolCalls: 1, error: { code: 'SANDBOX_OUT_OF_MEMORY' } });
    await expectHealthy();
  });

  it('caps large allocations by size, not by count', async () => {
    // Each string is 1 MiB. QuickJS's own limit would only count allocations (about 8 bytes
    // each in this build) and let ~2,000 through; the capped heap stops them after about 16.
    const outcome = await run(
      `await 0;
      const hoard = [];
      try { for (;;) hoard.push('x'.repeat(1 << 20) + hoard.length); }
      catch (error) { const count = hoard.length; hoard.length = 0; return [String(error), count]; }`,
      bombLimits,
    );
    expect(outcome.status).toBe('ok');
    const [error, count] = outcome.result as [string, number];
    expect(error).toBe('InternalError: out of memory');
    expect(count).toBeGreaterThan(4);
    expect(count).toBeLessThan(32);
    await expectHealthy();
  });

  it('reports unbounded recursion as a stack overflow inside the script', async () => {
    const outcome = await run('function down(n) { return down(n + 1) + 1; }\nreturn down(0);');
    expect(outcome.status).toBe('error');
    expect(outcome.error).toMatchObject({ name: 'InternalError', message: 'stack overflow' });
    expect(outcome.error?.stack).toContain('script.js:1');
    await expectHealthy();
  });

  it('survives code nested deeply enough to exhaust the native stack', async () => {
    const outcome = await run(`return ${'('.repeat(100_000)}1${')'.repeat(100_000)};`);
    expect(outcome.status).toBe('error');
    await expectHealthy();
  });
});

describe('tool call budget', () => {
  it('refuses the 51st call inside the script without dispatching it', async () => {
    let dispatched = 0;
    const counting = async (name: string, args: unknown, context: ToolCallContext): Promise<CallOutcome> => {
      dispatched += 1;
      return workspace.callTool(name, args, context);
    };
    const tools: CodeToolSpec[] = FILE_TOOLS;
    const outcome = await runCode({
      ...LIMITS,
      maxToolCalls: 50,
      tools,
      callTool: counting,
      code: `const results = [];
        for (let i = 1; i <= 51; i++) {
          try { await tools.read_file({ path: 'a.txt' }); results.push('ok'); }
          catch (error) { results.push(error.code + ': ' + error.message); }
        }
        return { ok: results.filter((r) => r === 'ok').length, last: results[50] };`,
    });
    expect(outcome.status).toBe('ok');
    expect(dispatched).toBe(50);
    expect(outcome.toolCalls).toBe(50);
    const result = outcome.result as { ok: number; last: string };
    expect(result.ok).toBe(50);
    expect(result.last).toMatch(/^TOOL_BUDGET_EXCEEDED: .*at most 50 tool calls/);
  });

  it('refuses calls made concurrently past the budget', async () => {
    let dispatched = 0;
    const counting = async (name: string, args: unknown, context: ToolCallContext): Promise<CallOutcome> => {
      dispatched += 1;
      return workspace.callTool(name, args, context);
    };
    const outcome = await runCode({
      ...LIMITS,
      maxToolCalls: 3,
      tools: FILE_TOOLS,
      callTool: counting,
      code: `const settled = await Promise.allSettled([1, 2, 3, 4, 5].map(() => tools.read_file({ path: 'a.txt' })));
        return settled.map((s) => s.status === 'fulfilled' ? s.value : s.reason.code);`,
    });
    expect(outcome.result).toEqual(['alpha', 'alpha', 'alpha', 'TOOL_BUDGET_EXCEEDED', 'TOOL_BUDGET_EXCEEDED']);
    expect(dispatched).toBe(3);
  });
});

describe('output cap', () => {
  it('keeps the head and the tail with a marker in between', async () => {
    const outcome = await run('for (let i = 0; i < 2000; i++) console.log("line " + i); return "done";', {
      maxOutputChars: 500,
    });
    expect(outcome.status).toBe('ok');
    expect(outcome.output.length).toBeLessThanOrEqual(500);
    expect(outcome.output.startsWith('line 0\nline 1\n')).toBe(true);
    expect(outcome.output.endsWith('line 1998\nline 1999')).toBe(true);
    expect(outcome.output).toMatch(/\[\.\.\. \d+ characters omitted: output is capped at 500 characters \.\.\.\]/);
  });

  it('leaves output under the cap untouched', async () => {
    const outcome = await run('console.log("one"); console.log("two", 2); return null;', { maxOutputChars: 500 });
    expect(outcome.output).toBe('one\ntwo 2');
  });
});

describe('options', () => {
  it('rejects invalid limits before starting anything', async () => {
    await expect(run('return 1', { timeoutMs: 0 })).rejects.toThrow(TypeError);
    await expect(run('return 1', { maxToolCalls: 1.5 })).rejects.toThrow(/maxToolCalls/);
  });
});
