/**
 * A host's tool-search state: the index (synced once per exposure), the
 * per-session loaded sets, the tool_search host tool, and the count of calls
 * to deferred tools the calling session had not loaded.
 */
import { definitionsByName, sessionDefinitions } from './deferral.js';
import { ToolIndex, type IndexedTool } from './search-index.js';
import { SEARCH_TOOL, searchTool } from './search.js';
import type { SessionStore, SessionReport } from './sessions.js';
import type { HostTool } from '../call/dispatch.js';
import type { Exposure } from './pipeline.js';
import type { ResolvedSearch } from '../load/config.js';
import type { ToolDefinition } from '../providers/types.js';

/** What explain shows of tool search. */
export interface SearchReport {
  /** exposed tools that are deferred */
  deferred: number;
  /** Anthropic's native search in the anthropic format, or false */
  native: false | 'bm25' | 'regex';
  /** tools in the index (as of the last search; 0 before the first) */
  indexed: number;
  /** live sessions and what each loaded */
  sessions: SessionReport[];
  /** calls to a deferred tool that the calling session had not loaded (they still run), by tool */
  callsNotLoaded: Record<string, number>;
}

/** Tool search for one host. */
export class SearchState {
  private readonly index = new ToolIndex();
  private indexedFor: Exposure | undefined;
  private readonly notLoaded = new Map<string, number>();
  private readonly tool: HostTool;

  constructor(
    private readonly search: ResolvedSearch,
    private readonly sessions: SessionStore,
    exposure: () => Promise<Exposure>,
    onLoaded: (sessionId: string | undefined, added: string[]) => void,
  ) {
    this.tool = searchTool({ exposure, index: (e) => this.indexFor(e), sessions, search, onLoaded });
  }

  /** tool_search, when `exposure` defers anything (dispatch asks for every name). */
  hostTool(name: string, exposure: Exposure): HostTool | undefined {
    return name === SEARCH_TOOL && exposure.deferred.size > 0 ? this.tool : undefined;
  }

  /** What `sessionId` is shown: the exposure's shown list plus the deferred tools it loaded. */
  definitionsFor(exposure: Exposure, sessionId: string | undefined): ToolDefinition[] {
    if (!exposure.deferred.size) return exposure.shown;
    const loaded = this.sessions.loaded(sessionId);
    return loaded.length ? sessionDefinitions(exposure.shown, definitionsByName(exposure), exposure.deferred, loaded) : exposure.shown;
  }

  /** Counts a call that reached a deferred tool its session had not loaded. */
  noteCall(exposure: Exposure, name: string, sessionId: string | undefined): void {
    if (!exposure.deferred.has(name) || this.sessions.has(sessionId, name)) return;
    this.notLoaded.set(name, (this.notLoaded.get(name) ?? 0) + 1);
  }

  /** The index, synced to `exposure` (incrementally, once per exposure). */
  indexFor(exposure: Exposure): ToolIndex {
    if (this.indexedFor !== exposure) {
      this.index.sync(indexedTools(exposure));
      this.indexedFor = exposure;
    }
    return this.index;
  }

  /** The explain section. */
  report(exposure: Exposure | undefined): SearchReport {
    return {
      deferred: exposure?.deferred.size ?? 0,
      native: this.search.native,
      indexed: this.index.size,
      sessions: this.sessions.report(),
      callsNotLoaded: Object.fromEntries([...this.notLoaded].sort(([a], [b]) => (a < b ? -1 : 1))),
    };
  }
}

/** Every exposed tool but the search tool itself, with its toolset. */
function* indexedTools(exposure: Exposure): Iterable<IndexedTool> {
  for (const definition of exposure.definitions) {
    if (definition.name === SEARCH_TOOL) continue;
    const toolset = exposure.states.get(definition.name)?.toolset ?? '';
    const description = exposure.toolsets.get(toolset)?.description;
    yield description ? { definition, toolset, toolsetDescription: description } : { definition, toolset };
  }
}
