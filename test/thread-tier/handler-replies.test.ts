/**
 * A handler's reply is the same whichever way the worker runs it: the first call of a
 * plugin imports it (the general path), later calls take the path for a plugin already
 * imported, which settles straight to the reply. Each case runs in a plugin of its own,
 * twice in one worker, and both envelopes must match what the case expects. The thread
 * tier's Piscina entry answers a plain result with its text alone (PoolReply), and the
 * host reads it back as the full reply.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { tempDir } from '../helpers.js';
import type { NormalizedResult, WorkerReply } from '#internal/boundary/protocol.js';
import { poolReply, workerReply } from '#internal/boundary/pool-reply.js';

const CASES: Record<string, { handler: string; expected: (text: string) => void }> = {
  sync: { handler: `() => 'plain'`, expected: (text) => expect(text).toBe('plain') },
  async: { handler: `async () => ({ a: 1 })`, expected: (text) => expect(JSON.parse(text)).toEqual({ a: 1 }) },
  content: {
    handler: `async () => ({ content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] })`,
    expected: (text) => expect(text).toBe('one\ntwo'),
  },
  capped: {
    handler: `() => 'x'.repeat(500)`,
    expected: (text) => expect(text).toMatch(/^x+\n\[RESULT_TRUNCATED: showing \d+ of 500 characters\]$/),
  },
  throws: {
    handler: `() => { throw new Error('sync boom'); }`,
    expected: (text) => expect(JSON.parse(text)).toEqual({ code: 'TOOL_FAILED', error: 'sync boom' }),
  },
  rejects: {
    handler: `async () => { throw new Error('async boom'); }`,
    expected: (text) => expect(JSON.parse(text)).toEqual({ code: 'TOOL_FAILED', error: 'async boom' }),
  },
  invalid: {
    handler: `async () => undefined`,
    expected: (text) => expect(JSON.parse(text)).toMatchObject({ code: 'TOOL_RESULT_INVALID' }),
  },
  hangs: {
    handler: `() => new Promise(() => {})`,
    expected: (text) => expect(JSON.parse(text)).toMatchObject({ code: 'TOOL_TIMEOUT' }),
  },
};

const work = tempDir('toolshed-replies-');
let host: ToolHost;

function writePlugin(name: string, handler: string): string {
  const dir = path.join(work.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: `toolshed-plugin-${name}`,
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
      toolshed: { apiVersion: 1 },
    }),
  );
  writeFileSync(
    path.join(dir, 'index.js'),
    `export default {
  apiVersion: 1,
  toolsets: { ${name}: { description: '${name}' } },
  tools: [{ name: 'reply_${name}', description: 'A reply.', parameters: { type: 'object' }, limits: { timeoutMs: 150, maxResultChars: 200 }, handler: ${handler} }],
};
`,
  );
  return dir;
}

beforeAll(async () => {
  const plugins = Object.entries(CASES).map(([name, { handler }]) => ({
    package: writePlugin(name, handler),
    trust: 'trusted' as const,
  }));
  host = await createToolHost({
    cwd: work.dir,
    config: { builtins: false, cache: { enabled: false }, limits: { threads: 1 }, plugins },
  });
});
afterAll(async () => {
  await host.close();
  work.cleanup();
});

describe('handler replies', () => {
  it.each(Object.keys(CASES))(
    '%s: the same envelope when the plugin is imported by the call and when it was already',
    async (name) => {
      const first = await host.dispatch(`reply_${name}`, {});
      const second = await host.dispatch(`reply_${name}`, {});
      CASES[name]!.expected(first);
      expect(second).toBe(first);
    },
  );
});

describe('PoolReply', () => {
  const ok = (value: NormalizedResult): WorkerReply<NormalizedResult> => ({ ok: true, value });

  it('is the text alone only for a plain, uncut result, and reads back as the same reply', () => {
    expect(poolReply(ok({ text: 'hi', originalLength: 2 }))).toBe('hi');
    expect(poolReply(ok({ text: '', originalLength: 0 }))).toBe('');
    expect(workerReply('hi')).toEqual(ok({ text: 'hi', originalLength: 2 }));
    for (const reply of [
      ok({ text: 'cut', originalLength: 900 }),
      ok({
        text: 'blocks',
        originalLength: 6,
        content: { blocks: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] },
      }),
      ok({ text: 'bad', originalLength: 3, isError: true }),
      { ok: false as const, error: { name: 'Error', code: 'TOOL_FAILED', message: 'no' } },
    ]) {
      expect(poolReply(reply)).toBe(reply);
      expect(workerReply(poolReply(reply))).toBe(reply);
    }
  });
});
