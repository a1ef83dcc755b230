/**
 * Arguments that stay small and mean what they say: oversized raw arguments are
 * refused unparsed, a huge invalid input costs one validation step and a short
 * message, `__proto__` is a plain key on every path that copies arguments, and
 * Infinity is not a number.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixture, fixtureOptions } from '../helpers.js';

const BOUNDED = fixture('plugins', 'bounded');
const parse = (text: string) => JSON.parse(text) as Record<string, any>;

/** `{"__proto__": {"path": "x"}}`: JSON.parse makes __proto__ an own key, as it arrives from a model. */
const PROTO_ONLY = '{"__proto__":{"path":"/etc/passwd"}}';

describe('argument bounds (thread tier)', () => {
  let host: ToolHost;
  beforeAll(async () => {
    host = await createToolHost(
      fixtureOptions(['bounded'], { config: { limits: { maxResultChars: 2_000, maxArgsBytes: 1_000_000 } } }),
    );
  });
  afterAll(() => host.close());

  it('rejects a million-item array against maxItems quickly, with a message within maxResultChars', async () => {
    const items = Array.from({ length: 1_000_000 }, (_, i) => i);
    const out = parse(await host.dispatch('short_list', { items }));
    expect(out.code).toBe('INVALID_ARGUMENTS');
    expect(out.error).toContain('/items must NOT have more than 200 items');
    expect(out.error.length).toBeLessThanOrEqual(2_000);
  });

  it('lists at most a few problems of a large invalid input, and caps the message', async () => {
    const items = Array.from({ length: 50_000 }, (_, i) => i);
    const out = parse(await host.dispatch('strings', { items }));
    expect(out.code).toBe('INVALID_ARGUMENTS');
    expect(out.error).toContain('/items/0 must be string');
    expect(out.error).toContain('only the first problem is listed');
    expect(out.error.length).toBeLessThanOrEqual(2_000);
    // A small input still gets every problem, up to ten, then a count.
    const few = parse(await host.dispatch('strings', { items: Array.from({ length: 15 }, (_, i) => i) }));
    expect(few.error).toContain('/items/0 must be string');
    expect(few.error).toContain('/items/9 must be string');
    expect(few.error).not.toContain('/items/10 ');
    expect(few.error).toContain('and 5 more problems');
  });

  it('refuses raw arguments over limits.maxArgsBytes before parsing them', async () => {
    const raw = JSON.stringify({ items: ['x'.repeat(1_000_001)] });
    const out = parse(await host.dispatch('strings', raw));
    expect(out).toEqual({
      code: 'INVALID_ARGUMENTS',
      error: expect.stringContaining('over the limit of 1000000 bytes (limits.maxArgsBytes)'),
    });
    // Not parsed: the same oversized text that is not even JSON gets the same answer.
    expect(parse(await host.dispatch('strings', `{${'x'.repeat(1_000_001)}`)).error).toContain('limits.maxArgsBytes');
    // Counted in bytes: 400k three-byte characters are 1.2 MB.
    expect(parse(await host.dispatch('strings', JSON.stringify({ items: ['€'.repeat(400_000)] }))).error).toContain(
      'limits.maxArgsBytes',
    );
    expect(await host.dispatch('strings', JSON.stringify({ items: ['€'.repeat(300_000)] }))).toBe('1');
  });

  it('lets a tool lower the limit with its own limits.maxArgsBytes', async () => {
    expect(await host.dispatch('tiny_args', '{"a":"short"}')).toBe('ok');
    expect(parse(await host.dispatch('tiny_args', JSON.stringify({ a: 'x'.repeat(100) }))).error).toContain(
      'over the limit of 64 bytes',
    );
  });

  it('does not let __proto__ satisfy required through a prototype (string and object arguments)', async () => {
    for (const tool of ['needs_path', 'closed_path']) {
      const fromString = parse(await host.dispatch(tool, PROTO_ONLY));
      expect(fromString.code).toBe('INVALID_ARGUMENTS');
      expect(fromString.error).toContain('/path is required');
      const fromObject = parse(await host.dispatch(tool, JSON.parse(PROTO_ONLY)));
      expect(fromObject.code).toBe('INVALID_ARGUMENTS');
      // The strict-mode null strip copies arguments too: a null beside __proto__ sends them through it.
      const withNull = parse(await host.dispatch(tool, '{"__proto__":{"path":"/etc/passwd"},"note":null}'));
      expect(withNull.code).toBe('INVALID_ARGUMENTS');
      expect(withNull.error).toContain('/path is required');
    }
    expect(({} as Record<string, unknown>).path).toBeUndefined();
  });

  it('passes __proto__ through as a plain own key when the schema allows it', async () => {
    const got = parse(await host.dispatch('needs_path', '{"path":"a","__proto__":{"x":1},"note":null}'));
    expect(got).toEqual({ keys: ['path', '__proto__'], path: 'a', prototypeIsObject: true });
  });

  it('checks arguments a plugin passes to ctx.callTool the same way', async () => {
    const out = parse(await host.dispatch('relay', { json: PROTO_ONLY }));
    expect(out.code).toBe('INVALID_ARGUMENTS');
    expect(out.message).toContain('/path is required');
  });

  it('fails integer and number checks for non-finite numbers (1e400 parses to Infinity)', async () => {
    expect(parse(await host.dispatch('numbers', '{"n":1e400}')).error).toContain('/n must be integer');
    expect(parse(await host.dispatch('numbers', '{"x":-1e400}')).error).toContain('/x must be number');
    expect(parse(await host.dispatch('numbers', { n: Number.POSITIVE_INFINITY })).error).toContain(
      '/n must be integer',
    );
    expect(parse(await host.dispatch('numbers', { x: Number.NaN })).error).toContain('/x must be number');
    expect(parse(await host.dispatch('numbers', '{"n":3,"x":1.5e300}'))).toEqual({ n: 3, x: 1.5e300 });
  });
});

describe('argument bounds (process tier and execute_code)', () => {
  it('refuses __proto__-only arguments to an untrusted plugin', async () => {
    const host = await createToolHost({
      ...fixtureOptions([]),
      config: { builtins: false, cache: { enabled: false }, plugins: [{ package: BOUNDED, trust: 'untrusted' }] },
    });
    try {
      expect(parse(await host.dispatch('needs_path', PROTO_ONLY)).code).toBe('INVALID_ARGUMENTS');
      expect(parse(await host.dispatch('needs_path', '{"__proto__":{"path":"x"},"note":null}')).code).toBe(
        'INVALID_ARGUMENTS',
      );
      expect(parse(await host.dispatch('needs_path', '{"path":"ok"}'))).toEqual({
        keys: ['path'],
        path: 'ok',
        prototypeIsObject: true,
      });
    } finally {
      await host.close();
    }
  });

  it('refuses __proto__-only arguments from a script in execute_code', async () => {
    const options = fixtureOptions(['bounded'], {
      config: { enable: ['bounded', 'code'], codeExecution: { tools: ['needs_path'] } },
    });
    const host = await createToolHost({ ...options, config: { ...(options.config as object), builtins: true } });
    try {
      const code = `
        const r = [];
        for (const json of ['{"__proto__":{"path":"x"}}', '{"__proto__":{"path":"x"},"note":null}']) {
          try { r.push(await tools.needs_path(JSON.parse(json))); } catch (e) { r.push(e.code); }
        }
        return r;`;
      const out = parse(await host.dispatch('execute_code', { code }));
      expect(out.result).toEqual(['INVALID_ARGUMENTS', 'INVALID_ARGUMENTS']);
    } finally {
      await host.close();
    }
  });
});
