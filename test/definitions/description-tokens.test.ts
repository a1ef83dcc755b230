/** The cross-reference guard's memo of the names each description text mentions. */
import { describe, expect, it } from 'vitest';
import { DescriptionTokens, danglingReferences } from '#internal/core/expose/descriptions.js';

describe('DescriptionTokens', () => {
  it('finds the registered names a text mentions as whole words, once each, in order', () => {
    const tokens = new DescriptionTokens();
    const known = new Set(['read_file', 'write_file', 'grep']);
    expect(
      tokens.of({ description: 'Use read_file, then write_file; not read_files. read_file again.' }, known),
    ).toEqual(['read_file', 'write_file']);
    expect(
      danglingReferences(tokens.of({ description: 'grep or read_file' }, known), 'grep', new Set(['read_file'])),
    ).toEqual(['read_file']);
  });

  it('answers again for a new set of registered names', () => {
    const tokens = new DescriptionTokens();
    const text = { description: 'see grep and find' };
    expect(tokens.of(text, new Set(['grep']))).toEqual(['grep']);
    expect(tokens.of(text, new Set(['grep', 'find']))).toEqual(['grep', 'find']);
  });

  it('stays bounded by the registry when texts keep changing (an MCP server rewording its tools), and answers right after starting over', () => {
    const tokens = new DescriptionTokens();
    const known = new Set(['a_tool', 'b_tool']);
    for (let i = 0; i < 5000; i++)
      expect(tokens.of({ description: `version ${i}: calls a_tool` }, known)).toEqual(['a_tool']);
    expect(tokens.size).toBeLessThanOrEqual(4 * known.size + 1024);
    expect(tokens.of({ description: 'b_tool then a_tool' }, known)).toEqual(['b_tool', 'a_tool']);
    expect(tokens.of({ description: 'version 0: calls a_tool' }, known)).toEqual(['a_tool']);
  });
});
