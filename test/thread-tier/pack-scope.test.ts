/**
 * The thread tier sends a plugin's roots, options and env grant as one packed string; it is
 * only used when JSON carries them exactly as the structured clone it replaces would.
 */
import { describe, expect, it } from 'vitest';
import { packScope } from '#internal/core/runners/tasks.js';

const roots = { read: ['/data'], write: ['/data/out'] };

describe('packScope', () => {
  it('packs plain roots, options and grant so that they read back the same', () => {
    const packed = packScope({ roots, options: { depth: 2, tags: ['a'], nested: { on: true } } }, { TOKEN: 'x' });
    expect(JSON.parse(packed as string)).toEqual({
      roots,
      options: { depth: 2, tags: ['a'], nested: { on: true } },
      env: { TOKEN: 'x' },
    });
  });

  it('leaves the env out when there is no grant', () => {
    expect(JSON.parse(packScope({ roots, options: {} }) as string)).toEqual({ roots, options: {} });
  });

  it.each([
    ['a Date', { when: new Date(0) }],
    ['undefined', { gone: undefined }],
    ['a non-finite number', { n: Infinity }],
    ['a Map', { m: new Map([[1, 2]]) }],
    ['a BigInt', { b: 1n }],
  ])('declines options holding %s (the task then carries them as they are)', (_, options) => {
    expect(packScope({ roots, options })).toBeUndefined();
  });
});
