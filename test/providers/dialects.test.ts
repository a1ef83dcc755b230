/**
 * Provider formats from schemas in every dialect, with real schemas (zod 4's and valibot's own
 * JSON Schema output, and the dialects fixture plugin's): each format keeps its subset valid and
 * true. A tuple stays a tuple (2020-12 `prefixItems`) where the format has them, is widened to
 * an anyOf of its member types with the positions in words for Gemini, and sends its tool
 * non-strict in OpenAI strict mode; what strict mode drops is still enforced at dispatch.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';
import { formatDefinitions, type ToolDefinition } from '#internal/core/providers/index.js';
import { to2020 } from '#internal/core/providers/dialect.js';
import { toStrictSchema } from '#internal/core/providers/openai-strict.js';
import { compile } from '#internal/core/schema/schema.js';
import { fixtureOptions, withHost } from '../helpers.js';

type Schema = Record<string, any>;

const zodTuple = z.object({ pair: z.tuple([z.string(), z.number()]), note: z.string().optional() });
const zod2020 = z.toJSONSchema(zodTuple, { io: 'input' }) as Schema;
const zod07 = z.toJSONSchema(zodTuple, { io: 'input', target: 'draft-7' }) as Schema;
// valibot's tuple lets further items of any type through; its default output is draft-07.
const valibot07 = toJsonSchema(v.object({ pair: v.tuple([v.string(), v.number()]) })) as Schema;

function gemini(parameters: Schema, dialect?: ToolDefinition['dialect']): Schema {
  const [tool] = formatDefinitions(
    [{ name: 't', description: 'd', parameters, ...(dialect ? { dialect } : {}) }],
    'gemini',
  );
  return tool!.functionDeclarations[0]!.parameters as Schema;
}

describe('the 2020-12 form every format starts from', () => {
  it('rewrites draft-07 tuples and dependencies to the 2020-12 keywords that mean the same, and validates alike', () => {
    expect(zod07.properties.pair.items).toEqual([{ type: 'string' }, { type: 'number' }]);
    const rewritten = to2020(zod07, 'draft-07') as Schema;
    expect(rewritten.$schema).toBeUndefined();
    expect(rewritten.properties.pair).toEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
      items: false,
      minItems: 2,
      maxItems: 2,
    });
    // The same arguments pass and fail under the original (draft-07) and the rewrite (2020-12).
    const before = compile(zod07);
    const after = compile(rewritten, { dialect: '2020-12' });
    for (const args of [{ pair: ['a', 1] }, { pair: [1, 'a'] }, { pair: ['a', 1, 2] }, { pair: ['a'] }])
      expect(after(args)).toBe(before(args));
    const open = to2020(valibot07, 'draft-07') as Schema;
    expect(open.properties.pair).toEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
      minItems: 2,
    });
    const deps = to2020(
      { type: 'object', dependencies: { card: ['expiry'], gift: { required: ['to'] } } },
      'draft-07',
    ) as Schema;
    expect(deps).toEqual({
      type: 'object',
      dependentRequired: { card: ['expiry'] },
      dependentSchemas: { gift: { required: ['to'] } },
    });
  });

  it('passes a 2020-12 schema on as the same object', () => {
    expect(to2020(zod2020, '2020-12')).toBe(zod2020);
    expect(to2020(zod2020)).toBe(zod2020);
  });
});

describe('Gemini', () => {
  it('widens a tuple to an anyOf of its member types, keeps a closed length and states the positions', () => {
    for (const [schema, dialect] of [
      [zod2020, undefined],
      [zod07, 'draft-07'],
    ] as const) {
      expect(gemini(schema, dialect).properties.pair).toEqual({
        type: 'array',
        items: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        minItems: 2,
        maxItems: 2,
        description: 'A list in this order (position: type): 1: string; 2: number.',
      });
    }
    // An open tuple says so, and sets no maxItems.
    expect(gemini(valibot07).properties.pair).toEqual({
      type: 'array',
      items: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      minItems: 2,
      description: 'A list in this order (position: type): 1: string; 2: number, then items of any type.',
    });
    // Members of one type give that type, not an anyOf.
    const same = gemini({
      type: 'object',
      properties: {
        xy: {
          type: 'array',
          prefixItems: [
            { type: 'number', description: 'x' },
            { type: 'number', description: 'y' },
          ],
          items: false,
        },
      },
    });
    expect(same.properties.xy).toEqual({
      type: 'array',
      items: { type: 'number' },
      maxItems: 2,
      description: 'A list in this order (position: type): 1: number (x); 2: number (y).',
    });
  });

  it('inlines $defs, says dependentRequired in words, and drops unevaluatedProperties (enforced at dispatch)', () => {
    const out = gemini({
      type: 'object',
      $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
      properties: {
        from: { $ref: '#/$defs/point' },
        card: { type: 'string' },
        expiry: { type: 'string' },
        kind: { const: 'card' },
      },
      unevaluatedProperties: false,
      dependentRequired: { card: ['expiry'] },
    });
    expect(out).toEqual({
      type: 'object',
      properties: {
        from: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
        card: { type: 'string' },
        expiry: { type: 'string' },
        kind: { type: 'string', enum: ['card'] },
      },
      description: 'If "card" is given, "expiry" must be given too.',
    });
  });
});

describe('OpenAI, Anthropic and MCP', () => {
  const defs: ToolDefinition[] = [
    { name: 'z07', description: 'zod draft-07', parameters: zod07, dialect: 'draft-07' },
    { name: 'z20', description: 'zod 2020-12', parameters: zod2020, dialect: '2020-12' },
  ];

  it('send a tuple as prefixItems, never an items array a 2020-12 reader refuses', () => {
    const openai = formatDefinitions(defs, 'openai');
    const anthropic = formatDefinitions(defs, 'anthropic') as Array<{ input_schema: Schema }>;
    const mcp = formatDefinitions(defs, 'mcp');
    for (const schema of [
      ...openai.map((t) => t.function.parameters),
      ...anthropic.map((t) => t.input_schema),
      ...mcp.map((t) => t.inputSchema),
    ] as Schema[]) {
      expect(schema.properties.pair.prefixItems).toEqual([{ type: 'string' }, { type: 'number' }]);
      expect(Array.isArray(schema.properties.pair.items)).toBe(false);
      expect(schema.$schema === undefined || schema.$schema === 'https://json-schema.org/draft/2020-12/schema').toBe(
        true,
      );
    }
  });

  it('OpenAI strict mode: a tuple sends its tool non-strict (its schema in 2020-12); an unevaluatedProperties map too', () => {
    const [z07] = formatDefinitions(defs, 'openai', { strict: true });
    expect(z07!.function.strict).toBe(false);
    expect((z07!.function.parameters as Schema).properties.pair.prefixItems).toHaveLength(2);
    expect(toStrictSchema(zod2020)).toEqual({
      ok: false,
      reason: '/properties/pair: a tuple (prefixItems) is not supported',
    });
    expect(
      toStrictSchema({
        type: 'object',
        properties: { a: { type: 'string' } },
        unevaluatedProperties: { type: 'number' },
      }),
    ).toEqual({ ok: false, reason: '/: unevaluatedProperties (a map) is not supported' });
    const closed = toStrictSchema({
      type: 'object',
      properties: { card: { type: 'string' }, expiry: { type: 'string' } },
      unevaluatedProperties: false,
      dependentRequired: { card: ['expiry'] },
    });
    expect(closed).toEqual({
      ok: true,
      schema: {
        type: 'object',
        description: 'If "card" is given, "expiry" must be given too.',
        properties: { card: { type: ['string', 'null'] }, expiry: { type: ['string', 'null'] } },
        required: ['card', 'expiry'],
        additionalProperties: false,
      },
    });
  });
});

describe('what strict mode removes is enforced at dispatch (2020-12 keywords)', () => {
  it('unevaluatedProperties and dependentRequired', async () => {
    await withHost(fixtureOptions(['dialects']), async (host) => {
      const strict = await host.definitions({ format: 'openai', strict: true });
      const order = strict.find((t) => t.function.name === 'order_2020')!.function;
      expect(order.strict).toBe(true);
      const parameters = order.parameters as Schema;
      expect(parameters.unevaluatedProperties).toBeUndefined();
      expect(parameters.dependentRequired).toBeUndefined();
      expect(parameters.required).toEqual(['item', 'count', 'card', 'expiry']);
      // A strict model's nulls for "absent" are dropped, then the original schema decides.
      expect(
        JSON.parse(await host.dispatch('order_2020', '{"item":"tea","count":null,"card":null,"expiry":null}')),
      ).toEqual({ item: 'tea' });
      // The strict schema lets a card through without its expiry; the original does not. (Each
      // keyword strict mode drops, case by case: test/unit/strict-arguments.test.ts.)
      expect(JSON.parse(await host.dispatch('order_2020', '{"item":"tea","card":"4242"}'))).toEqual({
        error: 'invalid arguments for order_2020: /expiry is required when "card" is present',
        code: 'INVALID_ARGUMENTS',
      });
    });
  });
});
