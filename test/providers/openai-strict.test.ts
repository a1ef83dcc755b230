/** OpenAI strict mode: the constraints OpenAI documents for `strict: true` function schemas. */
import { describe, expect, it } from 'vitest';
import { toStrictSchema } from '#internal/core/providers/openai-strict.js';
import { toOpenAI, toResponses } from '#internal/core/providers/openai.js';
import { dropStrictNulls } from '#internal/core/call/strict-arguments.js';

type Schema = Record<string, any>;

function strict(schema: Schema): Schema {
  const result = toStrictSchema(schema);
  if (!result.ok) throw new Error(`unexpectedly unsupported: ${result.reason}`);
  return result.schema;
}

/** Every object node in a schema, wherever it sits. */
function objects(node: unknown, found: Schema[] = []): Schema[] {
  if (Array.isArray(node)) node.forEach((n) => objects(n, found));
  else if (node && typeof node === 'object') {
    const schema = node as Schema;
    if (schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'))) found.push(schema);
    Object.values(schema).forEach((v) => objects(v, found));
  }
  return found;
}

const nested: Schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  title: 'Search',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 200, description: 'What to look for' },
    limit: { type: 'integer', minimum: 1, default: 10 },
    mode: { enum: ['fast', 'deep'] },
    since: { type: 'string', format: 'date-time' },
    site: { type: 'string', format: 'uri' },
    filters: {
      type: 'object',
      properties: {
        lang: { const: 'en' },
        tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, minItems: 1 },
      },
      required: ['tags'],
    },
    target: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    note: { type: ['string', 'null'] },
  },
  required: ['query'],
};

describe('OpenAI strict mode schemas', () => {
  it('makes every property required and every optional one nullable', () => {
    const out = strict(nested);
    expect(out.required).toEqual(Object.keys(nested.properties));
    expect(out.properties.query.type).toBe('string');
    expect(out.properties.limit.type).toEqual(['integer', 'null']);
    expect(out.properties.filters.type).toEqual(['object', 'null']);
    expect(out.properties.filters.required).toEqual(['lang', 'tags']);
    expect(out.properties.filters.properties.tags.type).toBe('array');
    // Already nullable stays as it is.
    expect(out.properties.note.type).toEqual(['string', 'null']);
  });

  it('closes every object with additionalProperties: false', () => {
    const all = objects(strict(nested));
    expect(all.length).toBe(2);
    for (const node of all) expect(node.additionalProperties).toBe(false);
  });

  it('adds null to an optional enum, turns const into enum and oneOf into anyOf', () => {
    const out = strict(nested);
    expect(out.properties.mode).toEqual({ enum: ['fast', 'deep', null], type: ['string', 'null'] });
    expect(out.properties.filters.properties.lang).toEqual({ enum: ['en', null], type: ['string', 'null'] });
    expect(out.properties.target).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] });
  });

  it('removes the keywords strict mode rejects and keeps the supported ones', () => {
    const text = JSON.stringify(strict(nested));
    for (const keyword of [
      '$schema',
      'title',
      'minLength',
      'maxLength',
      'default',
      'uniqueItems',
      'oneOf',
      'const',
      '"uri"',
    ])
      expect(text).not.toContain(keyword);
    const out = strict(nested);
    expect(out.properties.since.format).toBe('date-time');
    expect(out.properties.limit.minimum).toBe(1);
    expect(out.properties.query.description).toBe('What to look for');
    expect(out.properties.filters.properties.tags.minItems).toBe(1);
  });

  it('keeps $defs and $ref (strict mode supports them) and converts the definitions too', () => {
    const out = strict({
      type: 'object',
      $defs: {
        point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x'] },
      },
      properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point', description: 'end' } },
      required: ['from'],
    });
    expect(out.$defs.point).toEqual({
      type: 'object',
      properties: { x: { type: 'number' }, y: { type: ['number', 'null'] } },
      required: ['x', 'y'],
      additionalProperties: false,
    });
    expect(out.properties.from).toEqual({ $ref: '#/$defs/point' });
    expect(out.properties.to).toEqual({ description: 'end', anyOf: [{ $ref: '#/$defs/point' }, { type: 'null' }] });
  });

  it('merges allOf and makes the root a plain object (no root anyOf)', () => {
    const out = strict({
      type: 'object',
      allOf: [{ properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'boolean' } } }],
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
    });
    expect(out).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: ['boolean', 'null'] } },
      required: ['a', 'b'],
      additionalProperties: false,
    });
  });

  it('reports what it cannot express instead of producing a schema that locks the tool out', () => {
    const cases: Array<[Schema, RegExp]> = [
      [{ type: 'object' }, /^\/: a free-form object/],
      [
        { type: 'object', properties: { meta: { type: 'object', additionalProperties: { type: 'string' } } } },
        /\/properties\/meta: a free-form object/,
      ],
      [
        {
          type: 'object',
          properties: { m: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true } },
        },
        /\/properties\/m: additionalProperties/,
      ],
      [{ type: 'object', properties: { any: {} } }, /\/properties\/any: a value of any type/],
      [
        { type: 'object', properties: { list: { type: 'array' } } },
        /\/properties\/list: an array needs an items schema/,
      ],
      [
        { type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } } },
        /tuple/,
      ],
      [
        { type: 'object', patternProperties: { '^x': { type: 'string' } }, properties: { a: { type: 'string' } } },
        /patternProperties/,
      ],
    ];
    for (const [schema, reason] of cases) {
      const result = toStrictSchema(schema);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(reason);
    }
  });

  it('rejects nesting beyond the documented depth', () => {
    let schema: Schema = { type: 'string' };
    for (let i = 0; i < 12; i++) schema = { type: 'object', properties: { inner: schema }, required: ['inner'] };
    const result = toStrictSchema(schema);
    expect(result.ok).toBe(false);
  });

  it('sends strict: true where the schema converted and strict: false with the original where it did not', () => {
    const defs = [
      { name: 'search', description: 'Searches.', parameters: nested },
      { name: 'echo', description: 'Echoes anything.', parameters: { type: 'object' } },
    ];
    const [search, echo] = toOpenAI(defs, { strict: true }) as Schema[];
    expect(search!.function.strict).toBe(true);
    expect(search!.function.parameters.additionalProperties).toBe(false);
    expect(echo!.function).toEqual({
      name: 'echo',
      description: 'Echoes anything.',
      parameters: { type: 'object' },
      strict: false,
    });
    const [flat] = toResponses(defs, { strict: true }) as Schema[];
    expect(flat).toMatchObject({ type: 'function', name: 'search', strict: true });
    // Without the option nothing changes.
    expect((toOpenAI(defs) as Schema[])[0]!.function).toEqual({
      name: 'search',
      description: 'Searches.',
      parameters: nested,
    });
    expect((toResponses(defs) as Schema[])[0]).toMatchObject({ parameters: nested, strict: false });
  });
});

describe('dropStrictNulls', () => {
  it('removes the nulls a strict model sends for optional properties, recursively', () => {
    const args = { query: 'x', limit: null, note: null, filters: { tags: ['a'], lang: null }, mode: 'fast' };
    expect(dropStrictNulls(args, nested)).toEqual({ query: 'x', note: null, filters: { tags: ['a'] }, mode: 'fast' });
  });

  it('works on JSON strings, follows local $ref, and leaves bad JSON for dispatch to report', () => {
    const schema = {
      type: 'object',
      $defs: { p: { type: 'object', properties: { y: { type: 'number' } } } },
      properties: { at: { $ref: '#/$defs/p' } },
    };
    expect(dropStrictNulls('{"at":{"y":null}}', schema)).toBe('{"at":{}}');
    expect(dropStrictNulls('{not json', schema)).toBe('{not json');
  });

  it('keeps a null that a required property was given (the original schema decides)', () => {
    expect(dropStrictNulls({ query: null }, nested)).toEqual({ query: null });
  });
});
