/**
 * `tool_search`, the tool the host itself provides whenever something is
 * deferred: its definition, and its handler, which ranks the deferred tools
 * against the query, loads the hits into the caller's session and returns
 * them as JSON. It runs on the host because it needs the exposure and the
 * sessions; it is toolshed's own code over data (manifests already
 * extracted in the plugins' tiers, and a query checked by ajv), so no plugin
 * or model-written code runs on the host's thread.
 */
import { failure, type CallOutcome } from '../../boundary/outcome.js';
import type { HostTool } from '../call/dispatch.js';
import type { ResolvedSearch } from '../config/config.js';
import type { ToolDefinition } from '../providers/types.js';
import type { Exposure } from './pipeline.js';
import { definitionsByName } from './deferral.js';
import type { ToolIndex } from './search-index.js';
import type { SessionStore } from './sessions.js';

/** The reserved name of the search tool. */
export const SEARCH_TOOL = 'tool_search';

/** Results of a search without `limit` (capped by `search.maxResults`). */
export const DEFAULT_LIMIT = 5;

/** The longest query accepted; agents type a few words, and a pasted document is a mistake. */
export const MAX_QUERY_CHARS = 1000;

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
      'Describe the capability you need in a few words (for example "create a github issue" or "send an slack message"); a match on names, descriptions, parameters and toolsets ranks first.',
      `Returns JSON {"tools":[{"name","description","toolset","parameters"}]}, best first, at most ${limit} unless you pass limit. Found tools can be called right away and appear in your tool list from the next turn.`,
    ].join(' '),
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', maxLength: MAX_QUERY_CHARS, description: 'What the tool should do, in a few words.' },
        limit: { type: 'integer', minimum: 1, maximum: search.maxResults, description: `How many tools to return (default ${limit}).` },
      },
      required: ['query'],
      additionalProperties: false,
    },
  };
}

/** What the search tool needs from the host. */
export interface SearchToolDeps {
  exposure(): Promise<Exposure>;
  /** the index, synced to the given exposure */
  index(exposure: Exposure): ToolIndex;
  sessions: SessionStore;
  search: ResolvedSearch;
  /** a search grew this session's loaded set by `added` */
  onLoaded(sessionId: string | undefined, added: string[]): void;
}

/** One hit as the model reads it. */
export interface SearchHit {
  name: string;
  description: string;
  toolset: string;
  parameters: ToolDefinition['parameters'];
}

/** The search tool as dispatch runs it (after the gate and ajv validation of its arguments). */
export function searchTool(deps: SearchToolDeps): HostTool {
  const defaultLimit = Math.min(DEFAULT_LIMIT, deps.search.maxResults);
  return {
    name: SEARCH_TOOL,
    manifest: { parameters: searchToolDefinition(deps.search).parameters, limits: {} },
    async run(args, options): Promise<CallOutcome> {
      const { query, limit } = args as { query: string; limit?: number };
      // The schema bounds the length; a blank query is refused here so the message can say what to send.
      if (!query.trim()) return failure('INVALID_ARGUMENTS', `invalid arguments for ${SEARCH_TOOL}: /query is empty; describe the tool you need in a few words, e.g. "send a slack message"`);
      const exposure = await deps.exposure();
      if (!exposure.deferred.size) return failure('TOOL_NOT_EXPOSED', `${SEARCH_TOOL} is not available here: no tool is deferred`);
      const names = deps.index(exposure).search(query, limit ?? defaultLimit, exposure.deferred);
      const byName = definitionsByName(exposure);
      const hits: SearchHit[] = names.map((name) => {
        const def = byName.get(name)!;
        return { name, description: def.description, toolset: exposure.states.get(name)?.toolset ?? '', parameters: def.parameters };
      });
      const added = deps.sessions.load(options.sessionId, names);
      if (added.length) deps.onLoaded(options.sessionId, added);
      return { ok: true, text: JSON.stringify({ tools: hits }) };
    },
  };
}
