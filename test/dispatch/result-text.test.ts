/**
 * Result normalisation: plain data takes a path without JSON.stringify's replacer; every
 * value must still read exactly as JSON.stringify writes it, and what is not a result must
 * still be refused wherever it sits.
 */
import { describe, expect, it } from 'vitest';
import { resultText } from '#internal/boundary/normalize.js';

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

describe('resultText', () => {
  it.each([
    ['a plain object', { a: 1, b: 'two', c: [true, null, { d: 1.5 }] }],
    ['an array', [1, 'x', [], {}]],
    ['a number', 42],
    ['a boolean', false],
    ['null', null],
    ['a null-prototype object', Object.assign(Object.create(null), { k: 'v' })],
    ['non-finite numbers', { nan: NaN, inf: -Infinity }],
    ['undefined and functions inside an object', { u: undefined, f: () => 1, kept: 1 }],
    ['holes and undefined in an array', [1, , undefined, 3]], // eslint-disable-line no-sparse-arrays
    ['a Date', { at: new Date(0) }],
    ['an own toJSON', { toJSON: () => ({ replaced: true }) }],
    ['a class instance', { p: new Point(1, 2) }],
    ['deep nesting', nested(40, 'leaf')],
    [
      'a getter',
      {
        get g() {
          return 'got';
        },
      },
    ],
  ])('writes %s as JSON.stringify does', (_, value) => {
    expect(resultText(value)).toBe(JSON.stringify(value));
  });

  it('returns a string as it is and joins text content', () => {
    expect(resultText('plain')).toBe('plain');
    expect(
      resultText({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\nb');
  });

  it.each([
    ['binary data deep down', nested(40, Buffer.from('x')), 'binary data'],
    ['a BigInt in an array', [1, 2n], 'a BigInt'],
    ['undefined', undefined, 'undefined'],
  ])('refuses %s', (_, value, what) => {
    expect(() => resultText(value)).toThrow(
      expect.objectContaining({ code: 'TOOL_RESULT_INVALID', message: expect.stringContaining(what) }),
    );
  });

  it('refuses a circular structure', () => {
    const value: Record<string, unknown> = { a: 1 };
    value.self = value;
    expect(() => resultText(value)).toThrow(
      expect.objectContaining({
        code: 'TOOL_RESULT_INVALID',
        message: expect.stringContaining('JSON cannot represent'),
      }),
    );
  });
});
