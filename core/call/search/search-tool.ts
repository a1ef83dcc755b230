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
import { FIELDS, type Field } from './search-index.js';
import type { FusedTool } from './fusion.js';
import type { SessionStore } from './sessions.js';

/** What the search tool needs from the host. */
interface SearchToolDeps {
  exposure(): Promise<Exposure>;
  /** the deferred tools `query` finds, best first (lexical, or hybrid with an embedder) */
  rank(
    exposure: Exposure,
    query: string,
    limit: number,
    candidates: ReadonlySet<string>,
    signal?: AbortSignal,
  ): Promise<FusedTool[]>;
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
  /**
   * why it was found, briefly: the query's words by the most telling field each matched in, and whether its meaning was
   * close ("name: github, issue; description: open; close in meaning")
   */
  matched: string;
}

/** The field names the model reads: the first sentence is part of the description, the source is the toolset. */
const SHOWN_FIELD: Readonly<Record<Field, string>> = {
  name: 'name',
  summary: 'description',
  description: 'description',
  parameters: 'parameters',
  source: 'toolset',
  toolset: 'toolset',
};

/** What the model reads of a hit the vector side ranked among its best (with an embedder). */
const VECTOR_REASON = 'close in meaning';

/**
 * A hit's reasons as the model reads them: each matched word under the first of its fields
 * (FIELDS' order), the related words feedback added, and VECTOR_REASON when the embedder's
 * side ranked it among its best.
 */
export function matchedText(hit: Pick<FusedTool, 'matched' | 'related' | 'vector'>): string {
  const byField = new Map<string, string[]>();
  for (const [word, fields] of Object.entries(hit.matched)) {
    const shown = SHOWN_FIELD[FIELDS.find((field) => fields.includes(field))!];
    byField.set(shown, [...(byField.get(shown) ?? []), word]);
  }
  const order = Object.values(SHOWN_FIELD);
  const parts = [...byField]
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
    .map(([field, words]) => `${field}: ${words.join(', ')}`);
  if (hit.related?.length) parts.push(`related: ${hit.related.join(', ')}`);
  if (hit.vector !== undefined) parts.push(VECTOR_REASON);
  return parts.join('; ');
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
      if (!query.trim())
        return failure(
          'INVALID_ARGUMENTS',
          `invalid arguments for ${SEARCH_TOOL}: /query is empty; describe the tool you need in a few words, ` +
            `e.g. "send a slack message"`,
        );
      const exposure = await deps.exposure();
      if (!exposure.deferred.size)
        return failure('TOOL_NOT_EXPOSED', `${SEARCH_TOOL} is not available here: no tool is deferred`);
      const ranked = await deps.rank(exposure, query, limit ?? defaultLimit, exposure.deferred, options.signal);
      const names = ranked.map((hit) => hit.name);
      const byName = definitionsByName(exposure);
      const hits: SearchHit[] = ranked.map((hit) => {
        const def = byName.get(hit.name)!;
        return {
          name: hit.name,
          description: def.description,
          toolset: exposure.states.get(hit.name)?.toolset ?? '',
          parameters: def.parameters,
          matched: matchedText(hit),
        };
      });
      const added = await deps.sessions.load(options.sessionId, names);
      if (added.length) deps.onLoaded(options.sessionId, added);
      return { ok: true, text: JSON.stringify({ tools: hits }) };
    },
  };
}
