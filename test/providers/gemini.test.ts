/** Gemini function declarations: the OpenAPI 3.0 subset Gemini's API accepts. */
import { describe, expect, it } from 'vitest';
import { toGemini, toGeminiSchema } from '#internal/core/providers/gemini.js';

type Schema = Record<string, any>;

/** toGeminiSchema, typed loosely for property access in assertions. */
const gemini = (schema: Schema): Schema => toGeminiSchema(schema) as Schema;

/** Keywords Gemini's Schema object does not have. */
const UNSUPPORTED = [
  '$ref',
  '$defs',
  'definitions',
  '$schema',
  'additionalProperties',
  'const',
  'oneOf',
  'allOf',
  'not',
  'default',
  'examples',
  'exclusiveMinimum',
  'patternProperties',
  'uniqueItems',
];

function keys(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => keys(n, found));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      found.add(k);
      // Property names are data, not keywords.
      if (k === 'properties') Object.values(v as object).forEach((child) => keys(child, found));
      else keys(v, found);
    }
  }
  return found;
}

describe('Gemini schemas', () => {
  it('inlines local $ref and drops $defs', () => {
    const out = gemini({
      type: 'object',
      $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
      properties: { from: { $ref: '#/$defs/point', description: 'start' }, to: { $ref: '#/definitions/missing' } },
    });
    expect(out.properties.from).toEqual({
      type: 'object',
      properties: { x: { type: 'number' } },
      required: ['x'],
      description: 'start',
    });
    // A dangling or remote reference becomes an open object rather than an error at the API.
    expect(out.properties.to).toEqual({ type: 'object' });
    expect(keys(out).has('$defs')).toBe(false);
  });

  it('cuts recursive $ref after a few levels', () => {
    const out = gemini({
      type: 'object',
      $defs: { node: { type: 'object', properties: { value: { type: 'string' }, child: { $ref: '#/$defs/node' } } } },
      properties: { root: { $ref: '#/$defs/node' } },
    });
    let depth = 0;
    let node: Schema | undefined = out.properties.root;
    while (node?.properties?.child) {
      node = node.properties.child;
      depth++;
    }
    expect(depth).toBe(3);
    expect(node).toEqual({ type: 'object' });
  });

  it('translates const to enum, type arrays and null members to nullable, oneOf to anyOf', () => {
    const out = gemini({
      type: 'object',
      properties: {
        kind: { const: 'file' },
        note: { type: ['string', 'null'] },
        maybe: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
        either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        multi: { type: ['string', 'number'] },
      },
    });
    expect(out.properties.kind).toEqual({ type: 'string', enum: ['file'] });
    expect(out.properties.note).toEqual({ nullable: true, type: 'string' });
    expect(out.properties.maybe).toEqual({ nullable: true, type: 'integer' });
    expect(out.properties.either).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }] });
    expect(out.properties.multi).toEqual({ type: 'string', anyOf: [{ type: 'string' }, { type: 'number' }] });
  });

  it('merges allOf members into the node', () => {
    const out = gemini({
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'boolean' } } },
      ],
    });
    expect(out).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'boolean' } },
      required: ['a'],
    });
  });

  it('keeps only the formats Gemini documents for each type', () => {
    const out = gemini({
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time' },
        site: { type: 'string', format: 'uri' },
        mail: { type: 'string', format: 'email' },
        big: { type: 'integer', format: 'int64' },
        odd: { type: 'integer', format: 'uint8' },
        ratio: { type: 'number', format: 'double' },
      },
    });
    expect(out.properties.when.format).toBe('date-time');
    expect(out.properties.site).toEqual({ type: 'string' });
    expect(out.properties.mail).toEqual({ type: 'string' });
    expect(out.properties.big.format).toBe('int64');
    expect(out.properties.odd).toEqual({ type: 'integer' });
    expect(out.properties.ratio.format).toBe('double');
  });

  it('keeps string enums, and states typed enums in the description (Gemini enums are strings only)', () => {
    const out = gemini({
      type: 'object',
      properties: { level: { type: 'integer', enum: [1, 2, 3], description: 'Depth.' }, mode: { enum: ['a', 'b'] } },
    });
    expect(out.properties.mode).toEqual({ type: 'string', enum: ['a', 'b'] });
    expect(out.properties.level).toEqual({ type: 'integer', description: 'Depth. One of: 1, 2, 3.' });
  });

  it('removes additionalProperties and every other unsupported keyword at any depth', () => {
    const out = gemini({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      properties: {
        const: { type: 'string', default: 'x', examples: ['y'] },
        list: {
          type: 'array',
          uniqueItems: true,
          items: {
            type: 'object',
            additionalProperties: { type: 'string' },
            properties: { n: { type: 'number', exclusiveMinimum: 0 } },
          },
        },
        open: { type: 'object', patternProperties: { '^x': {} } },
        not: { not: { type: 'null' }, type: 'string' },
      },
      required: ['const', 'ghost'],
    });
    const used = keys(out);
    for (const keyword of UNSUPPORTED) expect(used.has(keyword), keyword).toBe(false);
    // A property literally named "const" survives; a required name with no property is dropped.
    expect(Object.keys(out.properties)).toEqual(['const', 'list', 'open', 'not']);
    expect(out.required).toEqual(['const']);
    // An open object has no properties key at all (Gemini rejects an empty one).
    expect(out.properties.open).toEqual({ type: 'object' });
  });

  it('omits parameters for a tool without any', () => {
    const [tools] = toGemini([
      { name: 'now', description: 'The time.', parameters: { type: 'object', additionalProperties: false } },
      { name: 'add', description: 'Adds.', parameters: { type: 'object', properties: { a: { type: 'number' } } } },
    ]) as Array<{ functionDeclarations: Schema[] }>;
    expect(tools!.functionDeclarations[0]).toEqual({ name: 'now', description: 'The time.' });
    expect(tools!.functionDeclarations[1]!.parameters).toEqual({
      type: 'object',
      properties: { a: { type: 'number' } },
    });
    expect(toGemini([])).toEqual([]);
  });
});
