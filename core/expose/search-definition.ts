/**
 * The definition of `tool_search`, the tool the host itself adds to an
 * exposure whenever something is deferred: its reserved name and the schema
 * the model is shown. Its handler runs at call time, with dispatch
 * (core/call/search/).
 */
import type { ResolvedSearch } from '../config/config.js';
import type { ToolDefinition } from '../providers/types.js';

/** The reserved name of the search tool. */
export const SEARCH_TOOL = 'tool_search';

/** Results of a search without `limit` (capped by `search.maxResults`). */
export const DEFAULT_LIMIT = 5;

/** The longest query accepted; agents type a few words, and a pasted document is a mistake. */
const MAX_QUERY_CHARS = 1000;

const definitionMemo = new WeakMap<ResolvedSearch, ToolDefinition>();

/** The definition of tool_search for these settings (the same object each time, so memos hold). */
export function searchToolDefinition(search: ResolvedSearch): ToolDefinition {
  let def = definitionMemo.get(search);
  if (!def) {
    def = buildDefinition(search);
    definitionMemo.set(search, def);
  }
  return def;
}

function buildDefinition(search: ResolvedSearch): ToolDefinition {
  const limit = Math.min(DEFAULT_LIMIT, search.maxResults);
  return {
    name: SEARCH_TOOL,
    description: [
      'Search the tools that are available but not listed yet, and load the best matches so they can be called.',
      'Describe the capability you need in a few words (for example "create a github issue" or "send an slack ' +
        'message"); a match on names, descriptions, parameters and toolsets ranks first.',
      `Returns JSON {"tools":[{"name","description","toolset","parameters"}]}, best first, at most ${limit} ` +
        `unless you pass limit. Found tools can be called right away and appear in your tool list from the next ` +
        `turn.`,
    ].join(' '),
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', maxLength: MAX_QUERY_CHARS, description: 'What the tool should do, in a few words.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: search.maxResults,
          description: `How many tools to return (default ${limit}).`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
  };
}
