/**
 * The validator cache per dialect: the dialect a schema is read in (its `$schema`, the plugin
 * rule, MCP's default), each dialect compiled by its own ajv class, and each dialect's cache
 * bounded and evicted on its own.
 */
import { describe, expect, it } from 'vitest';
import { compile, compiledSchemas, SCHEMA_CACHE_MAX } from '#internal/core/schema/schema.js';
import { readDialect, UnknownDialectError } from '#internal/core/schema/schema-dialect.js';

const tuple2020 = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false };

describe('reading the dialect', () => {
  it('follows $schema, in any of its usual spellings', () => {
    expect(readDialect({ $schema: 'https://json-schema.org/draft/2020-12/schema' }).dialect).toBe('2020-12');
    expect(readDialect({ $schema: 'https://json-schema.org/draft/2020-12/schema#' }).dialect).toBe('2020-12');
    expect(readDialect({ $schema: 'https://json-schema.org/draft/2019-09/schema' }).dialect).toBe('2019-09');
    expect(readDialect({ $schema: 'http://json-schema.org/draft-07/schema#' }).dialect).toBe('draft-07');
    expect(readDialect({ $schema: 'https://json-schema.org/draft-07/schema' }).dialect).toBe('draft-07');
    expect(readDialect({ $schema: 'http://json-schema.org/draft-06/schema#' }).dialect).toBe('draft-06');
    expect(() => readDialect({ $schema: 'http://json-schema.org/draft-04/schema#' })).toThrow(UnknownDialectError);
    expect(() => readDialect({ $schema: 'https://example.com/my-meta' }, 'mcp')).toThrow(
      'supported: draft-06, draft-07, 2019-09 and 2020-12',
    );
  });

  it('untagged plugin schemas: draft-07 for draft-07-only forms, found by keyword (not by property name), else 2020-12', () => {
    expect(readDialect({ type: 'object', properties: { p: { items: [{ type: 'string' }] } } })).toEqual({
      dialect: 'draft-07',
      from: 'untagged: items as an array at /properties/p',
    });
    expect(readDialect({ type: 'array', items: { type: 'string' }, additionalItems: false })).toEqual({
      dialect: 'draft-07',
      from: 'untagged: additionalItems at /',
    });
    // A property named like a draft-07 keyword is data.
    expect(
      readDialect({
        type: 'object',
        properties: { dependencies: { type: 'array', items: { type: 'string' } }, additionalItems: { type: 'string' } },
      }),
    ).toEqual({ dialect: '2020-12', from: 'untagged' });
    // definitions and $defs are pointer targets in both dialects: they decide nothing.
    expect(
      readDialect({ definitions: { a: { type: 'string' } }, properties: { a: { $ref: '#/definitions/a' } } }).dialect,
    ).toBe('2020-12');
    expect(readDialect({ type: 'array', items: [{ type: 'string' }], $defs: {} }).dialect).toBe('draft-07');
    expect(readDialect({ type: 'object', properties: { t: tuple2020 } })).toEqual({
      dialect: '2020-12',
      from: 'untagged: prefixItems at /properties/t',
    });
    expect(readDialect({ $recursiveAnchor: true, type: 'object' }).dialect).toBe('2019-09');
    // Both kinds: a plugin keeps its draft-07 reading, and explain says what is not enforced.
    expect(readDialect({ properties: { a: { items: [{ type: 'string' }] } }, unevaluatedProperties: false })).toEqual({
      dialect: 'draft-07',
      from: 'untagged: items as an array at /properties/a; its 2020-12 keywords (unevaluatedProperties at /) are not enforced: set $schema to say which dialect it is',
    });
  });

  it('untagged MCP schemas are 2020-12 unless only draft-07 can read them', () => {
    expect(readDialect({ type: 'object' }, 'mcp')).toEqual({ dialect: '2020-12', from: 'untagged (MCP default)' });
    expect(readDialect({ type: 'object', properties: { p: { items: [{ type: 'string' }] } } }, 'mcp').dialect).toBe(
      'draft-07',
    );
    expect(
      readDialect({ properties: { a: { items: [{ type: 'string' }] } }, unevaluatedProperties: false }, 'mcp').dialect,
    ).toBe('2020-12');
  });
});

describe('compiling in the dialect', () => {
  it('each dialect gets its own ajv class: the same schema means what its dialect says', () => {
    expect(compile(tuple2020, { dialect: '2020-12' })(['a', 1])).toBe(true);
    // draft-07 knows no prefixItems: items false refuses every item.
    expect(compile(tuple2020, { dialect: 'draft-07' })(['a', 1])).toBe(false);
    const closed = { type: 'object', allOf: [{ properties: { a: { type: 'string' } } }], unevaluatedProperties: false };
    expect(compile(closed, { dialect: '2019-09' })({ a: 'x', b: 1 })).toBe(false);
    expect(compile(closed, { dialect: 'draft-07' })({ a: 'x', b: 1 })).toBe(true);
    expect(compile({ $schema: 'http://json-schema.org/draft-06/schema#', type: 'integer' })(1.5)).toBe(false);
    expect(() => compile({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' })).toThrow(
      UnknownDialectError,
    );
  });

  it('keeps at most SCHEMA_CACHE_MAX validators per dialect, evicting within the dialect only', () => {
    const keep07 = compile({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { kept: { type: 'string' } },
    });
    const before = compiledSchemas().all;
    for (let i = 0; i < SCHEMA_CACHE_MAX + 50; i++)
      compile({ type: 'object', properties: { [`q${i}`]: { type: 'integer', maximum: i } } }, { dialect: '2020-12' });
    // The 2020-12 cache is full; the draft-07 validator was not evicted by 2020-12 churn.
    expect(compiledSchemas().all).toBeLessThanOrEqual(before + SCHEMA_CACHE_MAX);
    expect(
      compile({
        type: 'object',
        properties: { kept: { type: 'string' } },
        $schema: 'http://json-schema.org/draft-07/schema#',
      }),
    ).toBe(keep07);
  });
});
