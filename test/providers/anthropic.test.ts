/** Anthropic `input_schema`: an object schema, with no anyOf/oneOf/allOf at its top level. */
import { describe, expect, it } from 'vitest';
import { toAnthropic } from '#internal/core/providers/anthropic.js';
import { toMcp } from '#internal/core/providers/mcp.js';

type Schema = Record<string, any>;

describe('Anthropic input_schema', () => {
  it('wraps each tool as { name, description, input_schema } with an object root', () => {
    const [tool] = toAnthropic([
      {
        name: 'read',
        description: 'Reads.',
        parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
    ]) as Schema[];
    expect(tool).toEqual({
      name: 'read',
      description: 'Reads.',
      input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    });
  });

  it('merges a root allOf and removes root anyOf/oneOf, which the API rejects at the top level', () => {
    const [tool] = toAnthropic([
      {
        name: 'pick',
        description: 'Picks.',
        parameters: {
          type: 'object',
          allOf: [
            { properties: { a: { type: 'string' } } },
            { properties: { b: { type: 'string' } }, required: ['b'] },
          ],
          anyOf: [{ required: ['a'] }, { required: ['b'] }],
          oneOf: [{ required: ['a'] }],
        },
      },
    ]) as Schema[];
    expect(tool!.input_schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      required: ['b'],
    });
  });

  it('keeps nested unions and $defs, which the API accepts', () => {
    const parameters = {
      type: 'object',
      $defs: { id: { type: 'string' } },
      properties: { target: { anyOf: [{ $ref: '#/$defs/id' }, { type: 'integer' }] } },
      additionalProperties: false,
    };
    const [tool] = toAnthropic([{ name: 't', description: 'T.', parameters }]) as Schema[];
    expect(tool!.input_schema).toEqual(parameters);
  });

  it('mcp keeps the tool schema as inputSchema with an object root', () => {
    const [tool] = toMcp([
      { name: 'x', description: 'X.', parameters: { type: 'object', properties: { a: { type: 'string' } } } },
    ]) as Schema[];
    expect(tool).toEqual({
      name: 'x',
      description: 'X.',
      inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
    });
  });
});
