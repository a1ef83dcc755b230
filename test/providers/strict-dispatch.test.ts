/**
 * The model-facing schema may be simplified, but dispatch validates against
 * the tool's original schema: what strict mode dropped is still enforced.
 */
import { describe, expect, it } from 'vitest';
import { fixtureOptions, withHost } from '../helpers.js';

type Schema = Record<string, any>;

const options = () => fixtureOptions(['kitchen'], { config: { enable: ['kitchen'], disable: ['loop', 'oom', 'exit'] } });

describe('strict definitions and dispatch', () => {
  it('definitions({ strict: true }) converts what it can and leaves the default openai format unchanged', async () => {
    await withHost(options(), async (host) => {
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
      expect(strict.find((t) => t.function.name === 'echo')!.function).toMatchObject({ strict: false, parameters: { type: 'object' } });
      // Memoized per dialect: asking again returns the same arrays, not each other's.
      expect(await host.definitions({ format: 'openai' })).toBe(plain);
      expect(await host.definitions({ format: 'openai', strict: true })).toBe(strict);
      const responses = (await host.definitions({ format: 'responses', strict: true })) as Schema[];
      expect(responses.find((t) => t.name === 'typed')).toMatchObject({ strict: true });
      // Formats without a strict dialect ignore the option.
      expect(await host.definitions({ format: 'anthropic', strict: true })).toEqual(await host.definitions({ format: 'anthropic' }));
    });
  });

  it('dispatch rejects what the original schema rejects even when the strict schema allows it', async () => {
    await withHost(options(), async (host) => {
      const strict = (await host.definitions({ format: 'openai', strict: true })) as Schema[];
      const typed = strict.find((t) => t.function.name === 'typed')!.function.parameters;
      // Strict mode dropped minLength and minimum: an empty path and count 0 fit the strict schema…
      expect(typed.properties.path).toEqual({ type: 'string' });
      expect(typed.properties.count).toEqual({ type: ['integer', 'null'], minimum: 1 });
      const empty = await host.call('typed', { path: '', mode: 'read', count: null, nested: null });
      // …but the original still rejects them, and the nulls for optional properties too.
      expect(empty).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
      if (!empty.ok) {
        expect(empty.message).toContain('/path');
        expect(empty.message).toContain('/count');
      }
      const zero = await host.call('typed', { path: 'a', mode: 'read', count: 0 });
      expect(zero).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    });
  });

  it("dropStrictNulls makes a strict model's arguments acceptable to the original schema", async () => {
    const { dropStrictNulls } = await import('#internal/core/call/strict-arguments.js');
    await withHost(options(), async (host) => {
      const original = ((await host.definitions({ format: 'openai' })) as Schema[]).find((t) => t.function.name === 'typed')!.function.parameters;
      const fromModel = '{"path":"notes.md","mode":"read","count":null,"nested":null}';
      expect(dropStrictNulls(fromModel, original)).toBe('{"path":"notes.md","mode":"read"}');
      // dispatch applies the same rule itself, so the strict model's call succeeds as sent.
      const expected = { ok: true, text: JSON.stringify({ got: { path: 'notes.md', mode: 'read' } }) };
      expect(await host.call('typed', fromModel)).toEqual(expected);
      expect(await host.call('typed', dropStrictNulls(fromModel, original))).toEqual(expected);
    });
  });
});
