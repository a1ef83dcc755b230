/**
 * A call's arguments on the stage (core/call/arguments.ts acceptArguments, as dispatch takes
 * them): validated against the tool's original schema, whatever the model was shown. OpenAI strict
 * mode drops keywords it cannot express (minLength, minimum, unevaluatedProperties,
 * dependentRequired) and makes optional properties required-but-nullable; the nulls a strict model
 * sends for "absent" are dropped, and what strict mode dropped is still enforced. The tools are
 * the kitchen fixture's `typed` and the dialects fixture's `order_2020`, as data. Through a host:
 * test/providers/strict-dispatch.test.ts and test/providers/dialects.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { acceptArguments } from '#internal/core/call/arguments.js';
import { dropStrictNulls } from '#internal/core/call/strict-arguments.js';
import { formatDefinitions } from '#internal/core/providers/index.js';
import { registryOf } from '../support/registry-fixture.js';

type Schema = Record<string, any>;

const registry = registryOf([
  {
    name: 'kitchen',
    tools: [
      {
        name: 'typed',
        parameters: {
          type: 'object',
          additionalProperties: false,
          required: ['path', 'mode'],
          properties: {
            path: { type: 'string', minLength: 1 },
            mode: { enum: ['read', 'write'] },
            count: { type: 'integer', minimum: 1 },
            nested: { type: 'object', required: ['flag'], properties: { flag: { type: 'boolean' } } },
          },
        },
      },
    ],
  },
  {
    name: 'dialects',
    tools: [
      {
        name: 'order_2020',
        parameters: {
          type: 'object',
          allOf: [
            { properties: { item: { type: 'string' }, count: { type: 'integer', minimum: 1 } }, required: ['item'] },
            { properties: { card: { type: 'string' }, expiry: { type: 'string', pattern: '^[0-9]{2}/[0-9]{2}$' } } },
          ],
          unevaluatedProperties: false,
          dependentRequired: { card: ['expiry'] },
        },
      },
    ],
  },
]);
const typed = registry.tools.get('typed')!;
const order = registry.tools.get('order_2020')!;
const strictOf = (name: string) =>
  formatDefinitions(
    [{ name, description: name, parameters: registry.tools.get(name)!.manifest.parameters }],
    'openai',
    { strict: true },
  )[0]!.function;

describe('a strict model calling through the original schema', () => {
  it('drops the nulls a strict model sends for absent properties, so its call runs as it meant it', () => {
    const fromModel = '{"path":"notes.md","mode":"read","count":null,"nested":null}';
    expect(dropStrictNulls(fromModel, typed.manifest.parameters)).toBe('{"path":"notes.md","mode":"read"}');
    expect(acceptArguments(typed, fromModel)).toEqual({ ok: true, value: { path: 'notes.md', mode: 'read' } });
    expect(acceptArguments(typed, dropStrictNulls(fromModel, typed.manifest.parameters))).toEqual({
      ok: true,
      value: { path: 'notes.md', mode: 'read' },
    });
  });

  it('rejects what the original schema rejects even where the strict schema allows it', () => {
    const strict = strictOf('typed');
    expect(strict.strict).toBe(true);
    // Strict mode dropped minLength and minimum: an empty path and count 0 fit the strict schema…
    expect((strict.parameters as Schema).properties.path).toEqual({ type: 'string' });
    expect((strict.parameters as Schema).properties.count).toEqual({ type: ['integer', 'null'], minimum: 1 });
    // …but the original still rejects them, and the nulls for optional properties too.
    const empty = acceptArguments(typed, { path: '', mode: 'read', count: null, nested: null });
    expect(empty).toMatchObject({ ok: false, outcome: { ok: false, code: 'INVALID_ARGUMENTS' } });
    const message = !empty.ok && !empty.outcome.ok ? empty.outcome.message : '';
    expect(message).toContain('/path');
    expect(message).toContain('/count');
    expect(acceptArguments(typed, { path: 'a', mode: 'read', count: 0 })).toMatchObject({
      ok: false,
      outcome: { code: 'INVALID_ARGUMENTS' },
    });
  });

  it('enforces unevaluatedProperties and dependentRequired (2020-12), which strict mode removes', () => {
    const strict = strictOf('order_2020');
    expect(strict.strict).toBe(true);
    const parameters = strict.parameters as Schema;
    expect(parameters.unevaluatedProperties).toBeUndefined();
    expect(parameters.dependentRequired).toBeUndefined();
    expect(parameters.required).toEqual(['item', 'count', 'card', 'expiry']);
    // A strict model's nulls for "absent" are dropped, then the original schema decides.
    expect(acceptArguments(order, '{"item":"tea","count":null,"card":null,"expiry":null}')).toEqual({
      ok: true,
      value: { item: 'tea' },
    });
    // The strict schema lets a card through without its expiry; the original does not.
    expect(acceptArguments(order, '{"item":"tea","count":null,"card":"4242","expiry":null}')).toMatchObject({
      ok: false,
      outcome: { code: 'INVALID_ARGUMENTS' },
    });
    expect(acceptArguments(order, '{"item":"tea","card":"4242"}')).toEqual({
      ok: false,
      outcome: {
        ok: false,
        code: 'INVALID_ARGUMENTS',
        message: 'invalid arguments for order_2020: /expiry is required when "card" is present',
      },
    });
    expect(acceptArguments(order, '{"item":"tea","count":1,"card":null,"expiry":null,"coupon":"FREE"}')).toMatchObject({
      ok: false,
      outcome: { code: 'INVALID_ARGUMENTS', message: expect.stringContaining('/coupon is not an allowed property') },
    });
  });
});

describe('arguments on their way in', () => {
  it('takes an object, a JSON string, or nothing; refuses bad JSON and a string over maxArgsBytes unread', () => {
    expect(acceptArguments(typed, { path: 'a', mode: 'write' })).toEqual({
      ok: true,
      value: { path: 'a', mode: 'write' },
    });
    expect(acceptArguments(order, undefined)).toMatchObject({
      ok: false,
      outcome: { message: 'invalid arguments for order_2020: /item is required' },
    });
    expect(acceptArguments(typed, '{"path":')).toMatchObject({
      ok: false,
      outcome: { code: 'INVALID_ARGUMENTS', message: expect.stringMatching(/^arguments are not valid JSON: /) },
    });
    expect(acceptArguments(typed, '{"path":"a","mode":"read"}', 10)).toMatchObject({
      ok: false,
      outcome: {
        code: 'INVALID_ARGUMENTS',
        message: expect.stringContaining('over the limit of 10 bytes (limits.maxArgsBytes)'),
      },
    });
  });
});
