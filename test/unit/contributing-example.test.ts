/**
 * The unit test docs/contributing.md shows, as it is written there ("A unit test for a
 * stage"): test/docs/contributing.test.ts keeps the page's code block and this file the same.
 */
// example:start
import { describe, expect, it } from 'vitest';
import { selectTools } from '#internal/core/expose/toolsets.js';
import { registryOf, resolvedConfig } from '../support/registry-fixture.js';

describe('toolset selection', () => {
  it('disable wins over enable, and says why', () => {
    const registry = registryOf([{ name: 'web', tools: [{ name: 'fetch' }, { name: 'search' }] }]);
    const { selected, reasons } = selectTools(registry, resolvedConfig({ enable: ['web'], disable: ['search'] }));
    expect([...selected]).toEqual(['fetch']);
    expect(reasons.get('search')).toBe('disabled by config');
  });
});
// example:end
