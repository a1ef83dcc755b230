/**
 * A host's tool-search state: the index (synced once per exposure, with each
 * tool's source and trust, and without the tools `search.exclude` keeps out),
 * the per-session loaded sets, the tool_search host tool, and the count of
 * calls to deferred tools the calling session had not loaded.
 */
import { definitionsByName, sessionDefinitions } from '../../expose/deferral.js';
import { ToolIndex, type IndexedTool } from './search-index.js';
import { embeddingText, vectorKey, type EmbeddingStore } from './embeddings.js';
import { hybridRanked, type FusedTool } from './fusion.js';
import { SEARCH_TOOL } from '../../expose/search-definition.js';
import { searchTool } from './search-tool.js';
import type { SessionStore } from './sessions.js';
import type { SearchReport } from '../public-types.js';
import type { HostTool } from '../dispatch.js';
import type { Exposure } from '../../expose/exposure.js';
import type { ResolvedSearch } from '../../config/config.js';
import type { ToolDefinition } from '../../providers/types.js';

export type { SearchReport };

/** Where a tool comes from: its plugin's package name (`mcp:<name>` for an MCP server) and trust. */
interface ToolSource {
  name: string;
  trust: 'trusted' | 'untrusted';
}

/**
 * Which of `search.exclude` keeps a tool out of search, if one does: its plugin or server, its toolset or its own name,
 * `*` patterns allowed.
 */
function excludeMatcher(
  entries: readonly string[],
): (tool: string, toolset: string, source: string) => string | undefined {
  if (!entries.length) return () => undefined;
  const tests = entries.map((entry) => {
    const pattern = entry.includes('*') ? new RegExp(`^${entry.split('*').map(escapeRegExp).join('.*')}$`) : undefined;
    return { entry, test: (name: string) => (pattern ? pattern.test(name) : name === entry) };
  });
  return (tool, toolset, source) => tests.find(({ test }) => test(source) || test(toolset) || test(tool))?.entry;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** Tool search for one host. */
export class SearchState {
  private readonly index = new ToolIndex();
  private indexedFor: Exposure | undefined;
  private readonly notLoaded = new Map<string, number>();
  private readonly tool: HostTool;
  private readonly excludedBy: ReturnType<typeof excludeMatcher>;
  /** each indexed tool's vector key, and the text and key of each definition seen (hashed once) */
  private readonly vectorKeys = new Map<string, string>();
  private readonly textMemo = new WeakMap<ToolDefinition, { text: string; key: string }>();

  constructor(
    private readonly search: ResolvedSearch,
    private readonly sessions: SessionStore,
    exposure: () => Promise<Exposure>,
    onLoaded: (sessionId: string | undefined, added: string[]) => void,
    /** a tool's source, for the per-source limit and the trust factor (none: neither applies) */
    private readonly sourceOf: (tool: string) => ToolSource | undefined = () => undefined,
    /** the host's tool vectors, when `search.embedder` is set: ranking is then hybrid */
    private readonly embeddings?: EmbeddingStore,
  ) {
    this.tool = searchTool({
      exposure,
      rank: (e, query, limit, candidates, signal) => this.rank(e, query, limit, candidates, signal),
      sessions,
      search,
      onLoaded,
    });
    this.excludedBy = excludeMatcher(search.exclude ?? []);
  }

  /** tool_search, when `exposure` defers anything (dispatch asks for every name). */
  hostTool(name: string, exposure: Exposure): HostTool | undefined {
    return name === SEARCH_TOOL && exposure.deferred.size > 0 ? this.tool : undefined;
  }

  /** What `sessionId` is shown: the exposure's shown list plus the deferred tools it loaded. */
  async definitionsFor(exposure: Exposure, sessionId: string | undefined): Promise<ToolDefinition[]> {
    if (!exposure.deferred.size) return exposure.shown;
    const loaded = await this.sessions.loaded(sessionId);
    return loaded.length
      ? sessionDefinitions(exposure.shown, definitionsByName(exposure), exposure.deferred, loaded)
      : exposure.shown;
  }

  /** Counts a call that reached a deferred tool its session had not loaded. */
  noteCall(exposure: Exposure, name: string, sessionId: string | undefined): void {
    if (!exposure.deferred.has(name) || this.sessions.has(sessionId, name)) return;
    this.notLoaded.set(name, (this.notLoaded.get(name) ?? 0) + 1);
  }

  /** The index, synced to `exposure` (incrementally, once per exposure). */
  indexFor(exposure: Exposure): ToolIndex {
    if (this.indexedFor !== exposure) {
      const tools = [...this.indexedTools(exposure)];
      this.index.sync(tools);
      this.syncVectors(tools);
      this.indexedFor = exposure;
    }
    return this.index;
  }

  /**
   * The tools `query` finds in `exposure` best first, with scores, what each matched and whether it is deferred; and
   * how many tools are indexed.
   */
  async ranked(
    exposure: Exposure,
    query: string,
    limit: number,
  ): Promise<{ results: Array<FusedTool & { deferred: boolean }>; indexed: number }> {
    const results = await this.rank(exposure, query, limit);
    return {
      results: results.map((hit) => ({ ...hit, deferred: exposure.deferred.has(hit.name) })),
      indexed: this.index.size,
    };
  }

  /**
   * The tools `query` finds among `candidates` (all indexed tools when omitted), best first, at most `limit`:
   * lexical, fused with the vector ranking when an embedder is set and some candidate has its vector.
   * Never waits for tool vectors; waits for the query's (bounded by the embedder's timeout), and ranks
   * lexically when that fails.
   */
  async rank(
    exposure: Exposure,
    query: string,
    limit: number,
    candidates?: ReadonlySet<string>,
    signal?: AbortSignal,
  ): Promise<FusedTool[]> {
    const index = this.indexFor(exposure);
    if (!this.embeddings) return index.ranked(query, limit, candidates);
    this.embeddings.resume();
    const vectors = this.toolVectors(candidates);
    const queryVector = vectors.length ? await this.embeddings.queryVector(query, signal) : undefined;
    if (!queryVector) return index.ranked(query, limit, candidates);
    return hybridRanked(index, query, limit, queryVector, vectors, candidates);
  }

  /** Stops needing vectors (the surface closed). */
  close(): void {
    this.embeddings?.release(this);
  }

  /**
   * Asks the store for the vectors of `tools` (those it has not are embedded in the background), keyed by (model,
   * text).
   */
  private syncVectors(tools: readonly IndexedTool[]): void {
    if (!this.embeddings) return;
    const model = this.search.embedder!.model;
    this.vectorKeys.clear();
    const texts = new Map<string, string>();
    for (const tool of tools) {
      let known = this.textMemo.get(tool.definition);
      if (!known) {
        const text = embeddingText(tool);
        known = { text, key: vectorKey(model, text) };
        this.textMemo.set(tool.definition, known);
      }
      this.vectorKeys.set(tool.definition.name, known.key);
      texts.set(known.key, known.text);
    }
    this.embeddings.want(this, texts);
  }

  /** The vectors computed so far of `candidates` (every indexed tool when omitted). */
  private toolVectors(candidates: ReadonlySet<string> | undefined): Array<readonly [string, Float32Array]> {
    const out: Array<readonly [string, Float32Array]> = [];
    for (const name of candidates ?? this.vectorKeys.keys()) {
      const key = this.vectorKeys.get(name);
      const vector = key === undefined ? undefined : this.embeddings!.vector(key);
      if (vector) out.push([name, vector]);
    }
    return out;
  }

  /** The explain section. */
  report(exposure: Exposure | undefined): SearchReport {
    const excluded: string[] = [];
    const used = new Set<string>();
    for (const definition of exposure?.definitions ?? []) {
      const entry = this.exclusion(exposure!, definition.name);
      if (!entry) continue;
      excluded.push(definition.name);
      used.add(entry);
    }
    return {
      deferred: exposure?.deferred.size ?? 0,
      native: this.search.native,
      indexed: this.index.size,
      sessions: this.sessions.report(),
      callsNotLoaded: Object.fromEntries([...this.notLoaded].sort(([a], [b]) => (a < b ? -1 : 1))),
      excluded: excluded.sort(),
      excludeUnmatched: exposure ? (this.search.exclude ?? []).filter((entry) => !used.has(entry)) : [],
      ...(this.embeddings ? { embeddings: this.embeddings.report() } : {}),
    };
  }

  /** The `search.exclude` entry that keeps `name` out of search, if any. */
  private exclusion(exposure: Exposure, name: string): string | undefined {
    if (name === SEARCH_TOOL) return undefined;
    const state = exposure.states.get(name);
    return this.excludedBy(name, state?.toolset ?? '', state?.plugin ?? '');
  }

  /** Every exposed tool but the search tool itself and the excluded ones, with its toolset, source and trust. */
  private *indexedTools(exposure: Exposure): Iterable<IndexedTool> {
    for (const definition of exposure.definitions) {
      if (definition.name === SEARCH_TOOL || this.exclusion(exposure, definition.name)) continue;
      const toolset = exposure.states.get(definition.name)?.toolset ?? '';
      const tool: IndexedTool = { definition, toolset };
      const description = exposure.toolsets.get(toolset)?.description;
      if (description) tool.toolsetDescription = description;
      const source = this.sourceOf(definition.name);
      if (source) {
        tool.source = source.name;
        tool.untrusted = source.trust === 'untrusted';
      }
      yield tool;
    }
  }
}
