/**
 * The conversion itself (sandbox/worker/standard-schema.ts, as built), on the fixture plugins'
 * schemas: what each way of converting gives, and that the result is a JSON Schema both ajv's
 * 2020-12 class (with its tag) and plain draft-07 ajv (without it) read the same way, so the
 * fixtures' schemas hold whichever dialect rule the host applies.
 */
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers.js';
import { CONVERTED_DIALECT, convertedSchema, isStandardSchema } from '#internal/sandbox/worker/standard-schema.js';

const entryOf = (name: string) => pathToFileURL(fixture('plugins', name, 'index.js')).href;

async function parametersOf(name: string): Promise<unknown> {
  const mod = (await import(entryOf(name))) as { default: { tools: Array<{ parameters: unknown }> } };
  return mod.default.tools[0]!.parameters;
}

/** Whether plain draft-07 ajv (tag removed) and ajv's 2020-12 class accept each sample alike; the verdicts. */
function verdicts(schema: Record<string, unknown>, samples: unknown[]): boolean[] {
  const { $schema, ...untagged } = schema;
  expect($schema).toBe(CONVERTED_DIALECT);
  const draft07 = new Ajv({ strict: false }).compile(untagged);
  const draft2020 = new Ajv2020({ strict: false }).compile(schema);
  return samples.map((sample) => {
    const verdict = draft2020(sample);
    expect(draft07(sample), JSON.stringify(sample)).toBe(verdict);
    return verdict;
  });
}

describe('converting a Standard Schema to JSON Schema', () => {
  it('zod 4: through its Standard JSON Schema support, the input side (defaults optional)', async () => {
    const schema = await parametersOf('zod-tools');
    expect(isStandardSchema(schema)).toBe(true);
    const json = (await convertedSchema(schema as never, entryOf('zod-tools'), 'tools[0].parameters')).schema;
    expect(json.required).toEqual(['city']);
    expect(
      verdicts(json, [
        { city: 'Oslo' },
        { city: 'Oslo', nights: 2, tag: 'x' },
        { city: '' },
        { city: 'Oslo', nights: 0 },
        { city: 'Oslo', extra: 1 },
        {},
      ]),
    ).toEqual([true, true, false, false, false, false]);
  });

  it("valibot: through @valibot/to-json-schema resolved from the plugin's folder, or its Standard JSON Schema wrapper", async () => {
    const schema = await parametersOf('valibot-tools');
    expect(isStandardSchema(schema)).toBe(true);
    expect((schema as { '~standard': { jsonSchema?: unknown } })['~standard'].jsonSchema).toBeUndefined();
    const byVendor = (await convertedSchema(schema as never, entryOf('valibot-tools'), 'tools[0].parameters')).schema;
    const byInterface = (
      await convertedSchema(
        toStandardJsonSchema(schema as never) as never,
        'file:///nowhere/index.js',
        'tools[0].parameters',
      )
    ).schema;
    expect(byInterface).toEqual(byVendor);
    expect(
      verdicts(byVendor, [
        { query: 'ab' },
        { query: 'ab', limit: 3 },
        { query: 'a' },
        { query: 'ab', limit: 1.5 },
        { query: 'ab', more: true },
      ]),
    ).toEqual([true, true, false, false, false]);
  });

  it('keeps the dialect a library names itself', async () => {
    const draft07 = {
      '~standard': {
        version: 1,
        vendor: 'acme',
        validate: (value: unknown) => ({ value }),
        jsonSchema: {
          input: () => ({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }),
          output: () => ({}),
        },
      },
    };
    expect((await convertedSchema(draft07 as never, 'file:///nowhere/index.js', 'p')).schema).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
    });
  });

  it('a JSON Schema object is not taken for a Standard Schema', () => {
    expect(isStandardSchema({ type: 'object', properties: { '~standard': { type: 'object' } } })).toBe(false);
    expect(isStandardSchema({ '~standard': { version: 1, vendor: 'x' } })).toBe(false);
  });
});
