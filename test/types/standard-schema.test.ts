// Type tests for Standard Schema parameters: `npm test` type-checks this file (tsc --noEmit) and runs it.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import * as v from 'valibot';
import { definePlugin, defineTool, type StandardSchemaV1, type ToolSpec } from 'toolshed/plugin';

describe('handler arguments typed from a Standard Schema', () => {
  it("definePlugin types each tool's args from its own schema's output", () => {
    const plugin = definePlugin({
      apiVersion: 1,
      tools: [
        {
          name: 'book_trip',
          description: 'Books a trip.',
          parameters: z.object({
            city: z.string(),
            nights: z.number().default(1),
            tag: z
              .string()
              .transform((t) => t.length)
              .optional(),
          }),
          handler: (args) => {
            // The output type: the default makes nights required, the transform makes tag a number.
            expectTypeOf(args).toEqualTypeOf<{ city: string; nights: number; tag?: number | undefined }>();
            // @ts-expect-error no such field
            void args.country;
            return args.city;
          },
        },
        {
          name: 'search_notes',
          description: 'Searches notes.',
          parameters: v.object({ query: v.string(), limit: v.optional(v.number(), 5) }),
          handler: (args) => {
            expectTypeOf(args).toEqualTypeOf<{ query: string; limit: number }>();
            return args.query;
          },
        },
        {
          name: 'ping',
          description: 'A JSON Schema tool beside them keeps untyped args.',
          parameters: { type: 'object' },
          handler: (args) => {
            expectTypeOf(args).toBeAny();
            return 'pong';
          },
        },
      ],
    });
    expect(plugin.tools).toHaveLength(3);
  });

  it('rejects a handler that uses args as what the schema does not give', () => {
    const plugin = definePlugin({
      apiVersion: 1,
      tools: [
        {
          name: 'wrong',
          description: 'Wrong.',
          parameters: z.object({ city: z.string() }),
          // @ts-expect-error city is a string: it has no toFixed
          handler: (args) => args.city.toFixed(),
        },
      ],
    });
    expect(plugin.tools).toHaveLength(1);
  });

  it('defineTool types args from a schema, and still takes them as a type argument', () => {
    const typed = defineTool({
      name: 'greet',
      description: 'Greets.',
      parameters: z.object({ name: z.string() }),
      handler: ({ name }) => `Hello, ${name}`,
    });
    expectTypeOf(typed.handler).parameter(0).toEqualTypeOf<{ name: string }>();
    const json = defineTool<{ city: string }>({
      name: 'weather',
      description: 'Weather.',
      parameters: { type: 'object' },
      handler: (args) => args.city,
    });
    expectTypeOf(json).toEqualTypeOf<ToolSpec<{ city: string }>>();
    // A typed tool fits in a plugin.
    expect(definePlugin({ apiVersion: 1, tools: [typed] }).tools[0].name).toBe('greet');
  });

  it('StandardSchemaV1 is what zod and valibot schemas are', () => {
    expectTypeOf(z.object({ a: z.string() })).toMatchTypeOf<StandardSchemaV1<{ a: string }, { a: string }>>();
    expectTypeOf(v.object({ a: v.string() })).toMatchTypeOf<StandardSchemaV1<{ a: string }, { a: string }>>();
  });
});
