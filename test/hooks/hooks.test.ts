import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolCall, type ToolHost } from 'toolshed';
import { fixture, fixtureOptions, scratchDir, tempDir, toolshedMain } from '../helpers.js';

let host: ToolHost;

beforeAll(async () => {
  host = await createToolHost(fixtureOptions(['notes', 'kitchen'], { config: { limits: { maxResultChars: 1000 } } }));
});
afterAll(() => host.close());

const parse = (text: string) => JSON.parse(text) as { error: string; code: string };
const completed = (h: ToolHost, plugin: string) => h.explain().plugins.find((p) => p.name === plugin)!.pool!.completed;

describe('beforeCall', () => {
  it('sees the validated call: tool, args, session, call id, plugin, tier, annotations and an empty chain', async () => {
    const seen: ToolCall[] = [];
    const stop = host.use({ beforeCall: (call) => void seen.push(structuredClone(call)) });
    try {
      expect(await host.dispatch('read_note', '{"id":"a"}', { sessionId: 's1', callId: 'call_1' })).toBe(
        'note a (session s1)',
      );
    } finally {
      stop();
    }
    expect(seen).toEqual([
      {
        tool: 'read_note',
        args: { id: 'a' },
        sessionId: 's1',
        callId: 'call_1',
        chain: [],
        plugin: 'toolshed-plugin-notes',
        tier: 'thread',
        annotations: { title: 'Read a note', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
    ]);
  });

  it('blocks a call: the model reads TOOL_BLOCKED with the reason, and the tool never runs', async () => {
    const before = completed(host, 'toolshed-plugin-notes');
    const stop = host.use({
      beforeCall: (call) => (call.annotations.destructiveHint ? { block: 'this agent may not delete' } : undefined),
    });
    try {
      const out = parse(await host.dispatch('delete_note', { id: 'a' }));
      expect(out).toEqual({ code: 'TOOL_BLOCKED', error: 'delete_note was blocked: this agent may not delete' });
      expect(await host.dispatch('read_note', { id: 'b' })).toBe('note b');
    } finally {
      stop();
    }
    // Only read_note ran.
    expect(completed(host, 'toolshed-plugin-notes')).toBe(before + 1);
  });

  it('replaces the arguments, and the replacement is validated against the schema again', async () => {
    const stop = host.use({
      beforeCall: (call) =>
        call.tool === 'read_note' ? { args: { id: `${(call.args as { id: string }).id}-redacted` } } : undefined,
    });
    const bad = host.use({
      name: 'breaks-typed',
      beforeCall: (call) => (call.tool === 'typed' ? { args: { path: 42 } } : undefined),
    });
    try {
      expect(await host.dispatch('read_note', { id: 'x' })).toBe('note x-redacted');
      const out = parse(await host.dispatch('typed', { path: 'p', mode: 'read' }));
      expect(out.code).toBe('INVALID_ARGUMENTS');
      expect(out.error).toContain("arguments replaced by hook 'breaks-typed'");
      expect(out.error).toContain('/path must be string');
    } finally {
      stop();
      bad();
    }
  });

  it('sees the call chain of a nested ctx.callTool, without the outer call id', async () => {
    const seen: ToolCall[] = [];
    const stop = host.use({ beforeCall: (call) => void seen.push(structuredClone(call)) });
    try {
      expect(await host.dispatch('summarize_note', { id: 'n' }, { callId: 'outer' })).toBe('summary of: note n');
    } finally {
      stop();
    }
    expect(seen.map((c) => [c.tool, c.callId, c.caller, c.chain])).toEqual([
      ['summarize_note', 'outer', undefined, []],
      [
        'read_note',
        undefined,
        { tool: 'summarize_note', plugin: 'toolshed-plugin-notes', trust: 'trusted' },
        [{ tool: 'summarize_note', plugin: 'toolshed-plugin-notes', trust: 'trusted' }],
      ],
    ]);
  });
});

describe('afterCall', () => {
  it("replaces a nested call's result before the calling handler reads it", async () => {
    // Without hooks a nested call runs in its caller's worker and is mapped there; with one, its outcome goes through
    // the hook first.
    expect(await host.dispatch('summarize_note', { id: 'n' })).toBe('summary of: note n');
    const stop = host.use({ afterCall: (call) => (call.tool === 'read_note' ? 'a note the hook wrote' : undefined) });
    try {
      expect(await host.dispatch('summarize_note', { id: 'n' })).toBe('summary of: a note the hook wrote');
    } finally {
      stop();
    }
    expect(await host.dispatch('summarize_note', { id: 'n' })).toBe('summary of: note n');
  });

  it('sees the outcome, its code and the duration, for successes and failures', async () => {
    const seen: Array<{ tool: string; code: string; ok: boolean; durationMs: number }> = [];
    const stop = host.use({
      afterCall: (call, result) =>
        void seen.push({ tool: call.tool, code: result.code, ok: result.outcome.ok, durationMs: result.durationMs }),
    });
    try {
      await host.dispatch('slow', { ms: 50 });
      await host.dispatch('fail_note', {});
    } finally {
      stop();
    }
    expect(seen.map(({ tool, code, ok }) => ({ tool, code, ok }))).toEqual([
      { tool: 'slow', code: 'OK', ok: true },
      { tool: 'fail_note', code: 'TOOL_FAILED', ok: false },
    ]);
    expect(seen[0]!.durationMs).toBeGreaterThanOrEqual(45);
  });

  it('transforms the result, and the cap applies after the transform', async () => {
    const stop = host.use({ afterCall: (call) => (call.tool === 'text' ? 'y'.repeat(5000) : undefined) });
    try {
      const text = await host.dispatch('text', {});
      expect(text.length).toBeLessThanOrEqual(1000);
      expect(text).toMatch(/^y+\n\[RESULT_TRUNCATED: showing \d+ of 5000 characters\]$/);
    } finally {
      stop();
    }
  });

  it('can turn a result into a failure outcome the model reads as an envelope', async () => {
    const stop = host.use({
      afterCall: (call) =>
        call.tool === 'read_note' ? { ok: false, code: 'TOOL_BLOCKED', message: 'withheld by policy' } : undefined,
    });
    try {
      expect(parse(await host.dispatch('read_note', { id: 'a' }))).toEqual({
        code: 'TOOL_BLOCKED',
        error: 'withheld by policy',
      });
    } finally {
      stop();
    }
  });

  it('sees a blocked call with its code', async () => {
    const codes: string[] = [];
    const stopBlock = host.use({ beforeCall: () => ({ block: 'no' }) });
    const stopAfter = host.use({ afterCall: (_call, result) => void codes.push(result.code) });
    try {
      await host.dispatch('read_note', { id: 'a' });
    } finally {
      stopBlock();
      stopAfter();
    }
    expect(codes).toEqual(['TOOL_BLOCKED']);
  });
});

describe('a hook that fails', () => {
  it('fails the call with HOOK_FAILED naming the hook; the host keeps working', async () => {
    const stop = host.use({
      name: 'flaky',
      beforeCall: (call) => {
        if (call.tool === 'read_note') throw new Error('policy store unreachable');
      },
      afterCall: async (call) => {
        if (call.tool === 'list_notes') throw new Error('audit log full');
      },
    });
    try {
      expect(parse(await host.dispatch('read_note', { id: 'a' }))).toEqual({
        code: 'HOOK_FAILED',
        error: "hook 'flaky' failed before read_note: policy store unreachable",
      });
      expect(parse(await host.dispatch('list_notes', {}))).toEqual({
        code: 'HOOK_FAILED',
        error: "hook 'flaky' failed after list_notes: audit log full",
      });
      const bogus = host.use({ beforeCall: () => 42 as never });
      try {
        expect(parse(await host.dispatch('text', {})).code).toBe('HOOK_FAILED');
      } finally {
        bogus();
      }
    } finally {
      stop();
    }
    expect(await host.dispatch('read_note', { id: 'a' })).toBe('note a');
  });

  it('refuses hooks that are not functions when they are added', () => {
    expect(() => host.use({ beforeCall: 'no' as never })).toThrow(/beforeCall must be a function/);
  });
});

describe('hooks from config', () => {
  it('loads each module named in `hooks` and adds its hooks in order', async () => {
    const configured = await createToolHost(
      fixtureOptions(['notes'], { config: { hooks: [fixture('hooks', 'guard.mjs')] } }),
    );
    try {
      expect(parse(await configured.dispatch('delete_note', { id: 'a' }))).toEqual({
        code: 'TOOL_BLOCKED',
        error: 'delete_note was blocked: deleting notes is switched off here',
      });
      expect(await configured.dispatch('read_note', { id: 'a' })).toBe('note a [audited]');
    } finally {
      await configured.close();
    }
  });

  describe('named in a config file', () => {
    // The module path is relative to the config file's folder, wherever the host starts.
    const work = tempDir('toolshed-hooks-config-');
    const configFile = path.join(work.dir, 'toolshed.config.mjs');
    mkdirSync(path.join(work.dir, 'policy'));
    copyFileSync(fixture('hooks', 'guard.mjs'), path.join(work.dir, 'policy', 'guard.mjs'));
    writeFileSync(path.join(work.dir, 'package.json'), '{"name":"hooks-config","private":true}');
    // A bare name is a package, resolved from the config file's folder.
    const pkg = path.join(work.dir, 'node_modules', 'policy-hooks');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(
      path.join(pkg, 'package.json'),
      '{"name":"policy-hooks","version":"1.0.0","type":"module","exports":"./index.js"}',
    );
    writeFileSync(
      path.join(pkg, 'index.js'),
      'export default { afterCall: (call, result) => (result.outcome.ok ? `${result.outcome.text} [package]` : undefined) };\n',
    );
    const config = {
      builtins: false,
      cache: { enabled: false },
      plugins: [{ package: fixture('plugins', 'notes'), trust: 'trusted' }],
      hooks: ['./policy/guard.mjs', 'policy-hooks'],
    };
    writeFileSync(configFile, `export default ${JSON.stringify(config)};\n`);
    afterAll(() => work.cleanup());

    it('loads them for a host given the file, its folder not being the cwd', async () => {
      const configured = await createToolHost({
        cwd: scratchDir(),
        config: configFile,
        env: { PATH: process.env.PATH },
      });
      try {
        expect(parse(await configured.dispatch('delete_note', { id: 'a' })).code).toBe('TOOL_BLOCKED');
        expect(await configured.dispatch('read_note', { id: 'a' })).toBe('note a [audited] [package]');
      } finally {
        await configured.close();
      }
    });

    // The CLI's main() in this process (test/helpers.ts's toolshedMain), in the config's folder.
    it('loads them for `toolshed call`, which finds the file by searching from its cwd', async () => {
      const call = (...args: string[]) => toolshedMain(['call', ...args], { cwd: work.dir });
      expect(await call('read_note', '{"id":"a"}')).toMatchObject({ code: 0, stdout: 'note a [audited] [package]\n' });
      const blocked = await call('delete_note', '{"id":"a"}');
      expect(blocked.code).toBe(1);
      expect(JSON.parse(blocked.stdout)).toEqual({
        code: 'TOOL_BLOCKED',
        error: 'delete_note was blocked: deleting notes is switched off here',
      });
    });
  });

  it('refuses to start with a module that does not export hooks, naming it', async () => {
    const error = await createToolHost(
      fixtureOptions(['notes'], { config: { hooks: [fixture('hooks', 'not-hooks.mjs')] } }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', data: { pointer: '/hooks/0' } });
    expect((error as Error).message).toContain('not-hooks.mjs');
  });
});
