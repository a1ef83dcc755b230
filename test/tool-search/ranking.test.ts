/**
 * The index tool_search ranks with: what it matches (name words, camelCase
 * humps, parameters, toolsets, synonyms) and how it follows the exposure.
 */
import { describe, expect, it } from 'vitest';
import { ToolIndex, tokenize } from '#internal/core/call/search/search-index.js';

const tool = (name: string, description: string, toolset = 'misc', properties: Record<string, unknown> = {}) => ({
  definition: { name, description, parameters: { type: 'object', properties } },
  toolset,
});
const tools = [
  tool('getUserById', 'Fetch one account.', 'accounts'),
  tool('prometheus_query', 'Run a PromQL expression.', 'metrics'),
  tool('github_create_pull_request', 'Open a change for review.', 'github'),
  tool('send_notice', 'Deliver a notice.', 'comms', { recipient: { type: 'string', description: 'Phone number of the recipient' } }),
  tool('list_things', 'List things.', 'warehouse'),
];
const index = () => {
  const i = new ToolIndex();
  i.sync(tools);
  return i;
};

describe('tool_search ranking', () => {
  it('splits names on _, - and camelCase humps, keeping the whole word too', () => {
    expect(tokenize('getUserById PromQL github_create-pr HTTPServer')).toEqual(['getUserById', 'get', 'User', 'By', 'Id', 'PromQL', 'Prom', 'QL', 'github', 'create', 'pr', 'HTTPServer', 'HTTP', 'Server']);
    expect(index().search('user by id', 3)[0]).toBe('getUserById');
    expect(index().search('promql', 3)[0]).toBe('prometheus_query');
  });

  it('matches parameter descriptions and toolset names', () => {
    expect(index().search('phone number', 3)[0]).toBe('send_notice');
    expect(index().search('warehouse', 3)[0]).toBe('list_things');
  });

  it('expands query words with synonyms and ignores stop words', () => {
    expect(index().search('open a PR', 3)[0]).toBe('github_create_pull_request');
    expect(index().search('how do I use the tool', 5)).toEqual([]);
  });

  it('searches only the candidates and returns at most limit', () => {
    const i = index();
    expect(i.search('list things user', 1)).toHaveLength(1);
    expect(i.search('promql', 5, new Set(['list_things']))).toEqual([]);
  });

  it('re-indexes only what changed when the exposure moves', () => {
    const i = new ToolIndex();
    expect(i.sync(tools)).toBe(5);
    expect(i.sync(tools)).toBe(0);
    const changed = [...tools.slice(0, 4), tool('list_things', 'List the pallets in stock.', 'warehouse')];
    expect(i.sync(changed)).toBe(1);
    expect(i.search('pallets', 1)).toEqual(['list_things']);
    expect(i.sync(changed.slice(1))).toBe(0);
    expect(i.size).toBe(4);
    expect(i.search('user by id', 5)).not.toContain('getUserById');
  });
});
