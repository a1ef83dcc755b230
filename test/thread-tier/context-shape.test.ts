/**
 * What a handler's ctx looks like from plugin code, in a real worker: the same
 * keys in the same order, ctx.signal an own enumerable accessor that a spread
 * or a destructuring reads, and each call's signal its own (ctx.signal is one
 * getter shared by every context, over the call's own stop).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { tempDir } from '../helpers.js';

const work = tempDir('toolshed-ctx-');
let host: ToolHost;

function writePlugin(): string {
  const dir = path.join(work.dir, 'ctx-plugin');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'toolshed-plugin-ctx',
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
      toolshed: { apiVersion: 1 },
    }),
  );
  writeFileSync(
    path.join(dir, 'index.js'),
    `const obj = { type: 'object', properties: { ms: { type: 'integer' } }, additionalProperties: false };
let last;
export default {
  apiVersion: 1,
  toolsets: { ctx: { description: 'ctx' } },
  tools: [
    { name: 'ctx_shape', description: 'Reports its ctx.', parameters: obj, handler: (_args, ctx) => {
      const d = Object.getOwnPropertyDescriptor(ctx, 'signal');
      const spread = { ...ctx };
      const { signal } = ctx;
      return {
        keys: Object.keys(ctx),
        plainObject: Object.getPrototypeOf(ctx) === Object.prototype,
        descriptor: { getter: typeof d.get, enumerable: d.enumerable, configurable: d.configurable },
        spread: spread.signal === ctx.signal && spread.signal instanceof AbortSignal,
        destructured: signal === ctx.signal && signal.aborted === false,
        sessionId: ctx.sessionId ?? null,
      };
    } },
    { name: 'ctx_signal', description: 'Compares its signal with the last call\\'s.', parameters: obj, handler: async (_args, ctx) => {
      const previous = last;
      last = ctx.signal;
      return { same: previous === ctx.signal, previousAborted: previous?.aborted ?? null, aborted: ctx.signal.aborted };
    } },
    { name: 'ctx_abort', description: 'Waits for its signal to abort (timeout 200 ms).', parameters: obj, limits: { timeoutMs: 200 }, handler: (_args, ctx) => new Promise((resolve) => {
      last = ctx.signal;
      ctx.signal.addEventListener('abort', () => resolve('aborted'));
    }) },
  ],
};
`,
  );
  return dir;
}

beforeAll(async () => {
  host = await createToolHost({
    cwd: work.dir,
    config: {
      builtins: false,
      cache: { enabled: false },
      limits: { threads: 1 },
      plugins: [{ package: writePlugin(), trust: 'trusted' }],
    },
  });
});
afterAll(async () => {
  await host.close();
  work.cleanup();
});

const json = (text: string) => JSON.parse(text);

describe('a handler context', () => {
  it('has the same keys in the same order, and a signal that spreads and destructures like a plain property', async () => {
    const keys = [
      'signal',
      'env',
      'secrets',
      'cwd',
      'roots',
      'options',
      'maxResultChars',
      'log',
      'progress',
      'callTool',
      'sandboxTools',
      'session',
    ];
    const shape = {
      plainObject: true,
      descriptor: { getter: 'function', enumerable: true, configurable: true },
      spread: true,
      destructured: true,
    };
    expect(json(await host.dispatch('ctx_shape', {}))).toEqual({ ...shape, keys, sessionId: null });
    expect(json(await host.dispatch('ctx_shape', {}, { sessionId: 's1' }))).toEqual({
      ...shape,
      keys: [...keys, 'sessionId'],
      sessionId: 's1',
    });
  });

  it("gives each call its own signal: a call's timeout aborts only its own", async () => {
    expect(json(await host.dispatch('ctx_signal', {}))).toMatchObject({ same: false, aborted: false });
    expect(json(await host.dispatch('ctx_signal', {}))).toEqual({
      same: false,
      previousAborted: false,
      aborted: false,
    });
    // A call that times out: its own signal aborts (the handler's cleanup runs), the next call's does not.
    expect(json(await host.dispatch('ctx_abort', {})).code).toBe('TOOL_TIMEOUT');
    expect(json(await host.dispatch('ctx_signal', {}))).toEqual({ same: false, previousAborted: true, aborted: false });
  });
});
