import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixtureOptions } from '../helpers.js';

let host: ToolHost;

beforeAll(async () => {
  host = await createToolHost(
    fixtureOptions(['kitchen'], { env: { PATH: process.env.PATH, KITCHEN_VISIBLE: 'yes', HOST_SECRET: 'hunter2' } }),
  );
});
afterAll(() => host.close());

const parse = (text: string) => JSON.parse(text) as { error: string; code: string };

describe('results', () => {
  it('returns a string result as is and a JSON value stringified', async () => {
    expect(await host.dispatch('text', {})).toBe('plain text');
    expect(await host.dispatch('echo', { a: 1, b: [true, null] })).toBe('{"a":1,"b":[true,null]}');
  });

  it('joins MCP-style text content', async () => {
    expect(await host.dispatch('content', {})).toBe('first\nsecond');
  });

  it('accepts arguments as a JSON string, an object, or nothing', async () => {
    expect(await host.dispatch('echo', '{"x":2}')).toBe('{"x":2}');
    expect(await host.dispatch('echo')).toBe('{}');
    expect(await host.dispatch('echo', '   ')).toBe('{}');
  });

  it('cuts a result over maxResultChars and marks the original length', async () => {
    const capped = await createToolHost(fixtureOptions(['kitchen'], { config: { limits: { maxResultChars: 1000 } } }));
    try {
      const text = await capped.dispatch('big', { n: 5000 });
      expect(text.length).toBeLessThanOrEqual(1000);
      expect(text).toMatch(/\[RESULT_TRUNCATED: showing \d+ of 5000 characters\]$/);
      expect(text.startsWith('xxxx')).toBe(true);
      expect(await capped.dispatch('big', { n: 900 })).toBe('x'.repeat(900));
    } finally {
      await capped.close();
    }
  });
});

describe('gate', () => {
  it('answers an unknown name with UNKNOWN_TOOL and a did-you-mean', async () => {
    const out = parse(await host.dispatch('ehco', {}));
    expect(out.code).toBe('UNKNOWN_TOOL');
    expect(out.error).toContain("Did you mean 'echo'");
  });

  it('answers a known but disabled tool with TOOL_NOT_EXPOSED and the reason', async () => {
    const limited = await createToolHost(fixtureOptions(['kitchen'], { config: { disable: ['echo'] } }));
    try {
      const out = parse(await limited.dispatch('echo', {}));
      expect(out.code).toBe('TOOL_NOT_EXPOSED');
      expect(out.error).toContain('disabled by config');
    } finally {
      await limited.close();
    }
  });
});

describe('arguments', () => {
  it('reports bad JSON with its position', async () => {
    const out = parse(await host.dispatch('echo', '{"a": 1,,}'));
    expect(out.code).toBe('INVALID_ARGUMENTS');
    expect(out.error).toMatch(/position \d+/);
  });

  it('reports every schema problem as a JSON pointer and what was expected', async () => {
    const out = parse(await host.dispatch('typed', { path: '', mode: 'delete', count: 0, nested: {}, extra: 1 }));
    expect(out.code).toBe('INVALID_ARGUMENTS');
    expect(out.error).toContain('/path must NOT have fewer than 1 characters');
    expect(out.error).toContain('/mode must be one of "read", "write"');
    expect(out.error).toContain('/count must be >= 1');
    expect(out.error).toContain('/nested/flag is required');
    expect(out.error).toContain('/extra is not an allowed property');
  });

  it('reports a missing required property and a wrong type', async () => {
    const out = parse(await host.dispatch('typed', { mode: 'read', count: 'two' }));
    expect(out.error).toContain('/path is required');
    expect(out.error).toContain('/count must be integer');
  });

  it('treats null for an optional non-nullable property as absent (OpenAI strict mode sends that)', async () => {
    expect(JSON.parse(await host.dispatch('typed', { path: 'p', mode: 'read', count: null, nested: null }))).toEqual({
      got: { path: 'p', mode: 'read' },
    });
    const out = parse(await host.dispatch('typed', { path: null, mode: 'read' }));
    expect(out.code).toBe('INVALID_ARGUMENTS');
    expect(out.error).toContain('/path must be string');
  });

  it('rejects a non-object argument value', async () => {
    const out = parse(await host.dispatch('typed', '[1,2]'));
    expect(out.code).toBe('INVALID_ARGUMENTS');
    expect(out.error).toContain('must be object');
  });

  it('treats __proto__ and constructor keys as plain data', async () => {
    const out = parse(
      await host.dispatch('typed', '{"path":"p","mode":"read","__proto__":{"polluted":true},"constructor":{"x":1}}'),
    );
    expect(out.code).toBe('INVALID_ARGUMENTS');
    expect(out.error).toContain('/__proto__ is not an allowed property');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const echoed = JSON.parse(await host.dispatch('echo', '{"__proto__":{"polluted":true}}'));
    expect(Object.keys(echoed)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('handler failures', () => {
  it('turns a throw into TOOL_FAILED with the handler message', async () => {
    expect(parse(await host.dispatch('throws', {}))).toEqual({ error: 'the kettle is empty', code: 'TOOL_FAILED' });
  });

  it('never throws from dispatch', async () => {
    await expect(host.dispatch('throws', '{')).resolves.toContain('INVALID_ARGUMENTS');
  });
});

describe('context', () => {
  it('runs off the main thread', async () => {
    const where = JSON.parse(await host.dispatch('thread', {}));
    expect(where.isMainThread).toBe(false);
    expect(where.threadId).toBeGreaterThan(0);
  });

  it('reduces the worker env to the granted variables', async () => {
    const seen = JSON.parse(await host.dispatch('env', {}));
    expect(seen.ctx).toEqual({ KITCHEN_VISIBLE: 'yes' });
    expect(seen.process).toEqual({ KITCHEN_VISIBLE: 'yes' });
    expect(JSON.stringify(seen)).not.toContain('hunter2');
  });

  it('carries log, progress, sessionId and callTool through the guarded RPC', async () => {
    const logs: string[] = [];
    const progress: Array<[number, number | undefined]> = [];
    const text = await host.dispatch(
      'chatty',
      {},
      { sessionId: 's-42', onLog: (m) => logs.push(m), onProgress: (d, t) => progress.push([d, t]) },
    );
    const out = JSON.parse(text);
    expect(out.nested).toEqual({ from: 'chatty', session: 's-42' });
    expect(out.refused).toBe('UNKNOWN_TOOL');
    expect(out.sessionId).toBe('s-42');
    expect(logs).toEqual(['starting']);
    expect(progress).toEqual([
      [1, 2],
      [2, 2],
    ]);
  });
});
