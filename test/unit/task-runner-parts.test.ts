/**
 * The parts of a realm's task runner, without a worker or a child: the imported plugins, the
 * tasks' scopes, the running calls and the replies.
 */
import { describe, expect, it } from 'vitest';
import { PluginModules } from '#internal/sandbox/worker/plugin-modules.js';
import { TaskScopes, frozenRoots } from '#internal/sandbox/worker/task-scope.js';
import { CallStop, RunningCalls, raced } from '#internal/sandbox/worker/running-calls.js';
import { checkVerdict, failedReply, handlerText } from '#internal/sandbox/worker/task-replies.js';
import type { CheckTask, HandlerTask } from '#internal/boundary/protocol.js';

const handlerTask = (over: Partial<HandlerTask> = {}): HandlerTask =>
  ({
    kind: 'handler',
    entry: 'file:///p.js',
    tool: 'echo',
    args: {},
    callId: 'c1',
    cwd: '/w',
    timeoutMs: 1000,
    maxResultChars: 100,
    ...over,
  }) as HandlerTask;

describe('PluginModules', () => {
  const plugin = { apiVersion: 1, tools: [{ name: 'echo', handler: () => 'hi' }] };

  it('imports an entry once, and knows it as loaded once the import finished', async () => {
    let imports = 0;
    const modules = new PluginModules(undefined, async () => {
      imports++;
      return { default: plugin };
    });
    expect(modules.loaded('e')).toBeUndefined();
    const [a, b] = await Promise.all([modules.load('e'), modules.load('e')]);
    expect(a).toBe(plugin);
    expect(b).toBe(plugin);
    expect(imports).toBe(1);
    expect(modules.loaded('e')).toBe(plugin);
    expect(modules.handlerOf(handlerTask({ entry: 'e' }), plugin)).toBe(plugin.tools[0]!.handler);
  });

  it('refuses a changed plugin before importing it, and keeps refusing', async () => {
    let imports = 0;
    const modules = new PluginModules(
      () => ({ file: '/p/index.js', runtime: false }),
      async () => {
        imports++;
        return { default: plugin };
      },
    );
    await expect(modules.load('e')).rejects.toMatchObject({ code: 'PLUGIN_CHANGED' });
    await expect(modules.load('e')).rejects.toMatchObject({ code: 'PLUGIN_CHANGED' });
    expect(imports).toBe(0);
  });

  it('words a failed import and a module without a plugin object by their codes', async () => {
    const failing = new PluginModules(undefined, () => Promise.reject(new SyntaxError('bad token')));
    await expect(failing.load('e')).rejects.toMatchObject({
      code: 'PLUGIN_IMPORT_FAILED',
      message: 'importing the plugin failed: SyntaxError: bad token',
    });
    const empty = new PluginModules(undefined, async () => ({}));
    await expect(empty.load('e')).rejects.toMatchObject({ code: 'PLUGIN_INVALID' });
    expect(empty.loaded('e')).toBeUndefined();
  });
});

describe('TaskScopes', () => {
  const packed = JSON.stringify({ roots: { read: ['/r'], write: [] }, options: { a: 1 }, env: { K: 'v' } });

  it('parses a packed scope once, frozen, and hands out the same object', () => {
    const scopes = new TaskScopes();
    const scope = scopes.unpacked(packed);
    expect(scope).toEqual({ roots: { read: ['/r'], write: [] }, options: { a: 1 }, env: { K: 'v' } });
    expect(Object.isFrozen(scope.roots.read)).toBe(true);
    expect(Object.isFrozen(scope.options)).toBe(true);
    scopes.unpacked(JSON.stringify({}));
    expect(scopes.unpacked(packed)).toBe(scope);
  });

  it("reads a task's grant and protected paths from its scope or its own fields", () => {
    const scopes = new TaskScopes();
    const protect = [{ path: '/w/.git', pattern: '.git' }];
    expect(scopes.grantOf({ kind: 'manifest', entry: 'e' })).toBeUndefined();
    expect(scopes.grantOf(handlerTask({ scope: packed }))).toEqual({ K: 'v' });
    expect(scopes.grantOf(handlerTask({ env: { O: 'w' } }))).toEqual({ O: 'w' });
    expect(scopes.protectOf(handlerTask({ roots: { read: [], write: [], protect } as never }))).toEqual(protect);
    expect(scopes.protectOf(handlerTask({ scope: packed }))).toBeUndefined();
  });

  it("freezes a task's own roots in place when they hold only known keys, else copies them", () => {
    const roots = { read: ['/a'], write: ['/b'] };
    const task = { kind: 'check', roots } as unknown as CheckTask;
    expect(frozenRoots(task)).toBe(roots);
    expect(Object.isFrozen(roots)).toBe(true);
    const odd = { read: ['/a'], write: [], extra: 1 };
    const copied = frozenRoots({ kind: 'check', roots: odd } as unknown as CheckTask);
    expect(copied).toEqual({ read: ['/a'], write: [] });
    expect(Object.isFrozen(odd)).toBe(false);
  });
});

describe('RunningCalls', () => {
  it('a cancel aborts the running call once, with TOOL_CANCELLED, and reaches ctx.signal', async () => {
    const calls = new RunningCalls();
    const stop = calls.begin('c1', 60_000);
    const race = raced(stop, new Promise(() => {}));
    calls.cancel('c1');
    calls.cancel('c1');
    await expect(race).rejects.toMatchObject({ code: 'TOOL_CANCELLED' });
    expect(stop.signal.aborted).toBe(true);
    expect(stop.signal.reason).toMatchObject({ code: 'TOOL_CANCELLED' });
    calls.settled('c1', stop);
  });

  it('a settled call is no longer reached by a cancel', () => {
    const calls = new RunningCalls();
    const stop = calls.begin('c1', 60_000);
    calls.settled('c1', stop);
    calls.cancel('c1');
    expect(stop.aborted).toBe(false);
  });

  it('a stop makes its AbortController only when the signal is read', () => {
    const stop = new CallStop();
    stop.abort(new Error('late'));
    expect(stop.signal.aborted).toBe(true);
    expect((stop.signal.reason as Error).message).toBe('late');
  });
});

describe('task replies', () => {
  it('takes true, false and { ok, reason } as a verdict, and names anything else', () => {
    expect(checkVerdict(true)).toEqual({ ok: true });
    expect(checkVerdict(false)).toEqual({ ok: false, reason: 'check returned false' });
    expect(checkVerdict({ ok: false })).toEqual({ ok: false, reason: 'check failed' });
    expect(checkVerdict({ ok: true, reason: 'x' })).toEqual({ ok: true });
    expect(checkVerdict(3)).toEqual({
      ok: false,
      reason: 'check returned 3; expected true, false or { ok, reason }',
    });
  });

  it("caps a handler's text and keeps its length before", () => {
    const output = handlerText(handlerTask({ maxResultChars: 100 }), 'x'.repeat(500));
    expect(output.originalLength).toBe(500);
    expect(output.text.length).toBeLessThanOrEqual(100);
  });

  it("bounds a failed handler's message like its result, and a check's not at all", () => {
    const error = Object.assign(new Error('y'.repeat(500)), { code: 'TOOL_FAILED' });
    const handler = failedReply(handlerTask({ maxResultChars: 100 }), error, undefined);
    expect(handler.ok).toBe(false);
    expect(!handler.ok && handler.error.message.length).toBeLessThanOrEqual(100);
    const check = failedReply({ kind: 'check' } as CheckTask, error, undefined);
    expect(!check.ok && check.error.message).toBe('y'.repeat(500));
  });
});
