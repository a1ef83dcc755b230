/**
 * `tool_search`'s handler: ranks the deferred tools against the query, loads
 * the hits into the caller's session and returns them as JSON. It runs on the
 * host because it needs the exposure and the sessions; it is toolshed's own
 * code over data (manifests already extracted in the plugins' tiers, and a
 * query checked by ajv), so no plugin or model-written code runs on the
 * host's thread. Its definition is the expose stage's (search-definition.ts).
 */
import { failure, type CallOutcome } from '../../../boundary/outcome.js';
import type { HostTool } from '../dispatch.js';
import type { ResolvedSearch } from '../../config/config.js';
import type { ToolDefinition } from '../../providers/types.js';
import type { Exposure } from '../../expose/exposure.js';
import { definitionsByName } from '../../expose/deferral.js';
import { DEFAULT_LIMIT, SEARCH_TOOL, searchToolDefinition } from '../../expose/search-definition.js';
import type { FusedTool } from './fusion.js';
import type { SessionStore } from './sessions.js';

/** What the search tool needs from the host. */
interface SearchToolDeps {
  exposure(): Promise<Exposure>;
  /** the deferred tools `query` finds, best first (lexical, or hybrid with an embedder) */
  rank(exposure: Exposure, query: string, limit: number, candidates: ReadonlySet<string>, signal?: AbortSignal): Promise<FusedTool[]>;
  sessions: SessionStore;
  search: ResolvedSearch;
  /** a search grew this session's loaded set by `added` */
  onLoaded(sessionId: string | undefined, added: string[]): void;
}

/** One hit as the model reads it. */
interface SearchHit {
  name: string;
  description: string;
  toolset: string;
  parameters: ToolDefinition['parameters'];
  /** why it matched, briefly */
  why?: string;
}

/** What a hit's explanation says of the vector side: 'vector' when it ranked the tool among its best (the lexical part is the index's). */
function vectorWhy(hit: FusedTool): string | undefined {
  return hit.vector !== undefined ? 'vector' : undefined;
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
      const ranked = await deps.rank(exposure, query, limit ?? defaultLimit, exposure.deferred, options.signal);
      const names = ranked.map((hit) => hit.name);
      const byName = definitionsByName(exposure);
      const hits: SearchHit[] = ranked.map((hit) => {
        const { name } = hit;
        const def = byName.get(name)!;
        const why = vectorWhy(hit);
        return { name, description: def.description, toolset: exposure.states.get(name)?.toolset ?? '', parameters: def.parameters, ...(why ? { why } : {}) };
      });
      const added = await deps.sessions.load(options.sessionId, names);
      if (added.length) deps.onLoaded(options.sessionId, added);
      return { ok: true, text: JSON.stringify({ tools: hits }) };
    },
  };
}
