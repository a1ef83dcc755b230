import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost, type ToolHostOptions } from 'toolshed';
import { fixture, tempDir, withHost } from '../helpers.js';

const CODE_PLUGIN = fileURLToPath(new URL('../../plugins/code-execution', import.meta.url));
let work: { dir: string; cleanup(): void };
/** The host with the default options, shared by the tests that need no other (started by the first). */
let defaultHost: Promise<ToolHost> | undefined;

// One folder for every test: they read a.txt, b.txt and c.txt, and only one writes (calls.log).
beforeAll(() => {
  work = tempDir();
  for (const name of ['a', 'b', 'c']) writeFileSync(path.join(work.dir, `${name}.txt`), `content of ${name}\n`);
});
afterAll(async () => {
  if (defaultHost) await (await defaultHost).close();
  work.cleanup();
});

function options(config: Record<string, unknown> = {}, env: Record<string, string> = {}): ToolHostOptions {
  return {
    cwd: work.dir,
    env: { PATH: process.env.PATH, ...env },
    config: {
      builtins: false,
      plugins: [
        { package: CODE_PLUGIN, trust: 'trusted' },
        { package: fixture('plugins', 'codefix'), trust: 'trusted' },
      ],
      ...config,
    },
  };
}

type Def = { name: string; description: string };
const description = async (host: { definitions(o: { format: 'mcp' }): Promise<unknown[]> }) =>
  ((await host.definitions({ format: 'mcp' })) as Def[]).find((d) => d.name === 'execute_code')?.description ?? '';
const declared = (text: string) => [...text.matchAll(/^ {2}(?:\/\*\*.*\*\/ )?(\w+)\(args/gm)].map((m) => m[1]);
/** Runs `fn` on the file's host with the default options. */
const withDefaultHost = async <T>(fn: (host: ToolHost) => Promise<T>): Promise<T> =>
  fn(await (defaultHost ??= createToolHost(options())));
const run = async (host: { dispatch(n: string, a: unknown): Promise<string> }, code: string) =>
  JSON.parse(await host.dispatch('execute_code', { code }));

describe('execute_code: the schema is rebuilt from the sandbox exports', () => {
  it('lists exactly the sandbox-flagged exposed tools, with their declarations and limits', async () => {
    await withDefaultHost(async (host) => {
      const text = await description(host);
      expect(declared(text)).toEqual(['count', 'fail', 'read_text']);
      expect(text).toContain('read_text(args: { /** relative path */ path: string }): Promise<unknown>;');
      expect(text).not.toContain('secret');
      expect(text).toContain('at most 50 per run');
    });
  });

  it('follows availability: a tool hidden for a missing key is not exported, and appears once the key is set', async () => {
    await withDefaultHost(async (host) => expect(declared(await description(host))).not.toContain('keyed'));
    await withHost(options({}, { CODEFIX_KEY: 'k' }), async (host) => {
      const text = await description(host);
      expect(declared(text)).toContain('keyed');
      expect(text).toContain('mode?: "a" | "b"');
    });
  });

  it('uses codeExecution.tools when given, intersected with what is exposed', async () => {
    await withHost(options({ codeExecution: { tools: ['read_text', 'secret', 'keyed'] } }), async (host) => {
      expect(declared(await description(host))).toEqual(['read_text', 'secret']);
    });
  });

  it('lists no functions when the intersection is empty, never all tools', async () => {
    await withHost(options({ codeExecution: { tools: [] } }), async (host) => {
      const text = await description(host);
      expect(declared(text)).toEqual([]);
      expect(await run(host, 'return Object.keys(tools)')).toMatchObject({ status: 'ok', result: [] });
    });
  });

  it('disabling a tool removes it from the sandbox and the description; calling it fails clearly', async () => {
    await withHost(options({ disable: ['read_text'] }), async (host) => {
      expect(declared(await description(host))).toEqual(['count', 'fail']);
      const out = await run(
        host,
        "try { await tools.read_text({ path: 'a.txt' }); } catch (e) { return { code: e.code, message: e.message }; }",
      );
      expect(out.status).toBe('ok');
      expect(out.result.message).toMatch(/read_text/);
    });
  });
});

describe('execute_code: running scripts through the host', () => {
  it('reads three files through tools and combines them', async () => {
    await withDefaultHost(async (host) => {
      const out = await run(
        host,
        "const parts = []; for (const f of ['a.txt', 'b.txt', 'c.txt']) parts.push((await tools.read_text({ path: f })).trim()); console.log('done'); return parts.join(' + ');",
      );
      expect(out).toMatchObject({
        status: 'ok',
        result: 'content of a + content of b + content of c',
        output: 'done',
        toolCalls: 3,
      });
    });
  });

  it('surfaces tool errors in the script with their envelope code', async () => {
    await withDefaultHost(async (host) => {
      const out = await run(
        host,
        'const codes = []; for (const call of [() => tools.fail({}), () => tools.read_text({ path: 5 })]) { try { await call(); } catch (e) { codes.push(e.code); } } return codes;',
      );
      expect(out.result).toEqual(['TOOL_FAILED', 'INVALID_ARGUMENTS']);
    });
  });

  it('refuses the 51st call with the default budget without dispatching it', async () => {
    await withDefaultHost(async (host) => {
      const out = await run(
        host,
        'let n = 0; try { for (let i = 0; i < 60; i++) { await tools.count({}); n++; } } catch (e) { return { n, code: e.code }; }',
      );
      expect(out.result).toEqual({ n: 50, code: 'TOOL_BUDGET_EXCEEDED' });
      expect(readFileSync(path.join(work.dir, 'calls.log'), 'utf8')).toHaveLength(50);
    });
  });

  it('times out an infinite loop, and the next run works', async () => {
    // The limit holds for the next run too, and the deadline counts from before the runtime
    // starts: after a timeout that is a fresh QuickJS instance, which a loaded machine can make
    // take a good part of 300 ms. The loop runs into the limit whatever it is.
    await withHost(options({ codeExecution: { timeoutMs: 2_000 } }), async (host) => {
      expect((await run(host, 'for (;;) {}')).status).toBe('timeout');
      expect(await run(host, 'return 1 + 1')).toMatchObject({ status: 'ok', result: 2 });
    });
  });

  it('has no Node APIs inside the sandbox', async () => {
    await withDefaultHost(async (host) => {
      const out = await run(
        host,
        "return [typeof process, typeof require, typeof Function('return this')().process, await import('fs').then(() => 'imported', () => 'refused')]",
      );
      expect(out.result).toEqual(['undefined', 'undefined', 'undefined', 'refused']);
    });
  });
});

describe('execute_code when the sandbox cannot start', () => {
  it('the rewriter hides the tool with the reason instead of describing functions it cannot offer', async () => {
    const { codeExecutionRewriter } = await import('#internal/core/expose/code-execution.js');
    const rewriter = codeExecutionRewriter(
      () =>
        ({
          codeExecution: { tools: undefined, timeoutMs: 1000, memoryMb: 16, maxToolCalls: 5, maxOutputChars: 100 },
        }) as never,
      () => Promise.reject(new Error('WebAssembly.instantiate(): out of memory')),
    );
    const outcome = await rewriter.rewrite(
      { name: 'execute_code', description: 'x', parameters: { type: 'object' } },
      { exposed: new Map(), records: new Map(), deferred: new Set() },
    );
    expect(outcome).toEqual({ hidden: 'the code sandbox cannot start: WebAssembly.instantiate(): out of memory' });
  });

  it('a schema step that hides execute_code shows in explain at layer schema, and calls are refused', async () => {
    const hide = {
      appliesTo: (record: { name: string }) => record.name === 'execute_code',
      rewrite: async () => ({ hidden: 'the code sandbox cannot start: test' }),
    };
    await withHost({ ...options(), rewriters: [hide] }, async (host) => {
      expect(host.explain().tools.find((t) => t.name === 'execute_code')).toMatchObject({
        exposed: false,
        layer: 'schema',
        reason: 'the code sandbox cannot start: test',
      });
      expect(JSON.parse(await host.dispatch('execute_code', { code: 'return 1' })).code).toBe('TOOL_NOT_EXPOSED');
    });
  });
});
