/**
 * Layer 3's description rewriting as pure functions over a registry built in memory
 * (test/support): the seed scenario of schema-correction.test.ts without a host or a worker.
 */
import { DescriptionTokens, danglingReferences, resolveDescription } from '#internal/core/expose/descriptions.js';
import { selectTools } from '#internal/core/expose/toolsets.js';
import { describe, expect, it } from 'vitest';
import { registryOf, resolvedConfig, SEED } from '../support/registry-fixture.js';

/** Each exposed tool's description, rewritten against `exposed`, as layer 3 does. */
function descriptions(
  config: Record<string, unknown>,
  hiddenByAvailability: string[] = [],
): { exposed: Set<string>; text: Map<string, string> } {
  const registry = registryOf([SEED]);
  const exposed = selectTools(registry, resolvedConfig(config)).selected;
  for (const name of hiddenByAvailability) exposed.delete(name);
  const text = new Map(
    [...exposed].map((name) => [name, resolveDescription(registry.tools.get(name)!.manifest.description, exposed)]),
  );
  return { exposed, text };
}

describe('layer 3 without workers: description rewriting', () => {
  it('drops "prefer web_search" from browse while layer 2 hides web_search, and keeps it once web_search is exposed', () => {
    expect(descriptions({}, ['web_search']).text.get('browse')).toBe(
      'Open a URL and return its readable text. Only known URLs can be opened.',
    );
    expect(descriptions({}).text.get('browse')).toBe(
      'Open a URL and return its readable text. To find pages, prefer web_search.',
    );
  });

  it('rewrites the same way when layer 1 disables web_search', () => {
    const { exposed, text } = descriptions({ disable: ['web_search'] });
    expect(exposed.has('web_search')).toBe(false);
    expect(text.get('browse')).not.toContain('web_search');
  });

  it('flags a description that still names a hidden tool, and only that one', () => {
    const registry = registryOf([SEED]);
    const { exposed, text } = descriptions({}, ['web_search']);
    const hidden = new Set([...registry.toolNames].filter((name) => !exposed.has(name)));
    const tokens = new DescriptionTokens();
    const dangling = (name: string) =>
      danglingReferences(tokens.of({ description: text.get(name)! }, registry.toolNames), name, hidden);
    expect(dangling('summarize')).toEqual(['web_search']);
    expect(dangling('browse')).toEqual([]);
    expect(dangling('zeta')).toEqual([]);
  });

  it('needs every name of ifAvailable and any name of ifMissing; trims and joins the parts that hold', () => {
    const parts = [
      '  Lists files. ',
      { ifAvailable: ['read_file', 'grep'], text: 'Then read_file or grep them.' },
      { ifMissing: ['read_file', 'grep'], text: ' Some readers are off. ' },
    ];
    expect(resolveDescription(parts, new Set(['read_file', 'grep']))).toBe('Lists files. Then read_file or grep them.');
    expect(resolveDescription(parts, new Set(['read_file']))).toBe('Lists files. Some readers are off.');
    expect(resolveDescription(['  One plain part.  '], new Set())).toBe('One plain part.');
  });
});
