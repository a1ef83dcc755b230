/**
 * The model-facing schema may be simplified, but dispatch validates against
 * the tool's original schema: what strict mode dropped is still enforced.
 * Each keyword strict mode drops, and the nulls a strict model sends, are
 * tested on the stage: test/unit/strict-arguments.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixtureOptions } from '../helpers.js';

type Schema = Record<string, any>;

const options = () =>
  fixtureOptions(['kitchen'], { config: { enable: ['kitchen'], disable: ['loop', 'oom', 'exit'] } });

let host: ToolHost;
beforeAll(async () => {
  host = await createToolHost(options());
}, 60_000);
afterAll(() => host.close());

describe('strict definitions and dispatch', () => {
  it('definitions({ strict: true }) converts what it can and leaves the default openai format unchanged', async () => {
    const plain = (await host.definitions({ format: 'openai' })) as Schema[];
    const strict = (await host.definitions({ format: 'openai', strict: true })) as Schema[];
    const typedPlain = plain.find((t) => t.function.name === 'typed')!.function;
    const typedStrict = strict.find((t) => t.function.name === 'typed')!.function;
    expect(typedPlain.strict).toBeUndefined();
    expect(typedPlain.parameters.properties.path.minLength).toBe(1);
    expect(typedStrict.strict).toBe(true);
    expect(typedStrict.parameters.required).toEqual(['path', 'mode', 'count', 'nested']);
    expect(typedStrict.parameters.properties.nested.additionalProperties).toBe(false);
    // echo takes any object, which strict mode cannot express: sent non-strict, schema as is.
    expect(strict.find((t) => t.function.name === 'echo')!.function).toMatchObject({
      strict: false,
      parameters: { type: 'object' },
    });
    // Memoized per dialect: asking again returns the same arrays, not each other's.
    expect(await host.definitions({ format: 'openai' })).toBe(plain);
    expect(await host.definitions({ format: 'openai', strict: true })).toBe(strict);
    const responses = (await host.definitions({ format: 'responses', strict: true })) as Schema[];
    expect(responses.find((t) => t.name === 'typed')).toMatchObject({ strict: true });
    // Formats without a strict dialect ignore the option.
    expect(await host.definitions({ format: 'anthropic', strict: true })).toEqual(
      await host.definitions({ format: 'anthropic' }),
    );
  });

  it("runs a strict model's call as sent (its nulls for absent properties dropped), and rejects what the original schema rejects where the strict schema allows it", async () => {
    const strict = (await host.definitions({ format: 'openai', strict: true })) as Schema[];
    const typed = strict.find((t) => t.function.name === 'typed')!.function.parameters;
    expect(typed.properties.path).toEqual({ type: 'string' });
    expect(await host.call('typed', '{"path":"notes.md","mode":"read","count":null,"nested":null}')).toEqual({
      ok: true,
      text: JSON.stringify({ got: { path: 'notes.md', mode: 'read' } }),
    });
    // Strict mode dropped minLength: an empty path fits the strict schema, but not the original.
    const empty = await host.call('typed', { path: '', mode: 'read', count: null, nested: null });
    expect(empty).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    if (!empty.ok) expect(empty.message).toContain('/path');
  });
});
