/**
 * The index tool_search ranks with: what it matches (name words, camelCase
 * humps, stems, parameters, toolsets), how the fields and the query's words
 * weigh, why each result matched, and how it follows the exposure: an index
 * updated tool by tool ranks exactly as one built afresh.
 */
import { describe, expect, it } from 'vitest';
import { RANKING, ToolIndex, tokenize, type IndexedTool } from '#internal/core/call/search/search-index.js';
import { matchedText } from '#internal/core/call/search/search-tool.js';

const tool = (name: string, description: string, toolset = 'misc', properties: Record<string, unknown> = {}) => ({
  definition: { name, description, parameters: { type: 'object', properties } },
  toolset,
});
const tools = [
  tool('getUserById', 'Fetch one account.', 'accounts'),
  tool('prometheus_query', 'Run a PromQL expression.', 'metrics'),
  tool('github_create_pull_request', 'Open a change for review.', 'github'),
  tool('send_notice', 'Deliver a notice.', 'comms', {
    recipient: { type: 'string', description: 'Phone number of the recipient' },
  }),
  tool('list_things', 'List things.', 'warehouse'),
];
const index = () => {
  const i = new ToolIndex();
  i.sync(tools);
  return i;
};

describe('tool_search ranking', () => {
  it('splits names on _, - and camelCase humps, keeping the whole word too', () => {
    expect(tokenize('getUserById PromQL github_create-pr HTTPServer')).toEqual([
      'getUserById',
      'get',
      'User',
      'By',
      'Id',
      'PromQL',
      'Prom',
      'QL',
      'github',
      'create',
      'pr',
      'HTTPServer',
      'HTTP',
      'Server',
    ]);
    expect(index().search('user by id', 3)[0]).toBe('getUserById');
    expect(index().search('promql', 3)[0]).toBe('prometheus_query');
  });

  it('matches parameter descriptions and toolset names', () => {
    expect(index().search('phone number', 3)[0]).toBe('send_notice');
    expect(index().search('warehouse', 3)[0]).toBe('list_things');
  });

  it('stems the words of tools and queries alike, and ignores stop words', () => {
    expect(index().search('fetching accounts', 3)[0]).toBe('getUserById');
    expect(index().search('opened changes', 3)[0]).toBe('github_create_pull_request');
    expect(index().search('how do I use the tool', 5)).toEqual([]);
    expect(new ToolIndex({ ...RANKING, stemming: false }).search('fetching accounts', 3)).toEqual([]);
  });

  it('weighs a word found in the name and first sentence above one mentioned in passing, and a tool matching more of the query above one matching less', () => {
    const i = new ToolIndex();
    i.sync([
      tool('archive_note', 'Archives a note: it moves out of sight.', 'notes'),
      tool('delete_note', 'Removes a note for good. A removed note cannot be archived.', 'notes'),
      tool('list_notes', 'Lists notes.', 'notes'),
    ]);
    expect(i.search('archive', 3)).toEqual(['archive_note', 'delete_note']);
    expect(i.search('delete a note', 3)[0]).toBe('delete_note');
    // Adjacent query words found next to each other in a field count a little more.
    const texts = [
      tool('alpha', 'Sends the monthly report by mail to the whole team.'),
      tool('beta', 'Mail to the whole team a short report.'),
    ];
    const near = new ToolIndex();
    near.sync(texts);
    expect(near.search('report mail', 2)).toEqual(['alpha', 'beta']);
    const far = new ToolIndex({ ...RANKING, proximity: 0 });
    far.sync(texts);
    expect(far.search('report mail', 2)).toEqual(['beta', 'alpha']);
  });

  it('says why each result matched: the query words, as typed, with the fields they were found in', () => {
    const [hit] = index().ranked('Phone of the recipient', 1);
    expect(hit).toMatchObject({ name: 'send_notice', matched: { phone: ['parameters'], recipient: ['parameters'] } });
    expect(hit!.score).toBeGreaterThan(0);
    const [user] = index().ranked('user accounts', 1);
    expect(user).toMatchObject({
      name: 'getUserById',
      matched: { user: ['name'], accounts: ['summary', 'description', 'source'] },
    });
    expect(matchedText(user!)).toBe('name: user; description: accounts');
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

  it('ranks after any sequence of updates exactly as an index built afresh from the same tools', () => {
    const many = (n: number, text: string): IndexedTool[] =>
      Array.from({ length: n }, (_, k) =>
        tool(`tool_${k}`, `${text} number ${k % 7} of the ${k % 3 ? 'red' : 'blue'} set.`, `set_${k % 4}`),
      );
    const updated = new ToolIndex();
    updated.sync(many(40, 'Reads a record'));
    updated.sync([...many(25, 'Reads a record'), ...many(40, 'Writes a record').slice(30)]);
    updated.sync([
      ...many(25, 'Reads a record').slice(5),
      tool('tool_3', 'Sends a blue record number 3 away.', 'set_3'),
      ...tools,
    ]);
    const final = [
      ...many(25, 'Reads a record').slice(5),
      tool('tool_3', 'Sends a blue record number 3 away.', 'set_3'),
      ...tools,
    ];
    const fresh = new ToolIndex();
    fresh.sync(final);
    expect(updated.size).toBe(fresh.size);
    for (const query of ['blue record', 'reads red number 4', 'sends away', 'user by id', 'set 2 record'])
      expect(updated.ranked(query, 10)).toEqual(fresh.ranked(query, 10));
  });
});
