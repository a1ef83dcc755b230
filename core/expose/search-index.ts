/**
 * The full-text index `tool_search` ranks with: MiniSearch (BM25+) over each
 * exposed tool's name (split on `_`, `-` and camelCase), description,
 * parameter names and descriptions, and toolset. It is kept in step with
 * the exposure incrementally: a new exposure re-indexes only the tools whose
 * text changed. Toolshed's own code over manifest data: no plugin code runs here.
 */
import MiniSearch, { type SearchOptions } from 'minisearch';
import type { ToolDefinition } from '../providers/types.js';
import type { JsonSchema } from '../plugin.js';

/** The text of one tool, by field. */
export interface SearchDocument {
  id: string;
  name: string;
  description: string;
  parameters: string;
  toolset: string;
}

/** A tool to index: its exposed definition and its toolset (with the toolset's description, if any). */
export interface IndexedTool {
  definition: ToolDefinition;
  toolset: string;
  toolsetDescription?: string;
}

/** Splits text into words: on anything not a letter or digit, and between camelCase humps. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

// Words that carry no meaning in a query ("a tool to list the issues of a repo").
const STOP_WORDS = new Set(
  'a an and are as at be by can do for from i in into is it me my of on or our please that the this to tool tools use using with you your'.split(' '),
);

/** Lower-cases a word and drops stop words. */
export function processTerm(term: string): string | null {
  const word = term.toLowerCase();
  return STOP_WORDS.has(word) ? null : word;
}

/** Field boosts and matching options: the ranking the benchmark measured (docs/tool-search.md). */
export const RANKING = {
  fields: ['name', 'description', 'parameters', 'toolset'] as const,
  search: {
    boost: { name: 3, toolset: 2, description: 1, parameters: 0.5 },
    prefix: (term: string) => term.length > 3,
    fuzzy: (term: string) => (term.length > 5 ? 0.2 : false),
    combineWith: 'OR',
  } satisfies SearchOptions,
};

/** The words of a schema's property names and descriptions, nested objects and array items included. */
export function parameterText(schema: JsonSchema, depth = 0): string {
  if (depth > 3 || typeof schema !== 'object' || schema === null) return '';
  const parts: string[] = [];
  const properties = schema.properties;
  if (properties && typeof properties === 'object') {
    for (const [name, sub] of Object.entries(properties as Record<string, JsonSchema>)) {
      parts.push(name);
      if (sub && typeof sub.description === 'string') parts.push(sub.description);
      parts.push(parameterText(sub, depth + 1));
    }
  }
  if (schema.items && typeof schema.items === 'object') parts.push(parameterText(schema.items as JsonSchema, depth + 1));
  return parts.filter(Boolean).join(' ');
}

/** The document of one tool. */
export function documentFor(tool: IndexedTool): SearchDocument {
  const { definition } = tool;
  return {
    id: definition.name,
    name: definition.name,
    description: definition.description,
    parameters: parameterText(definition.parameters),
    toolset: [tool.toolset, tool.toolsetDescription ?? ''].join(' '),
  };
}

/** What a tool was indexed with, to tell whether a new exposure changed it. */
interface Indexed {
  description: string;
  parameters: JsonSchema;
  toolset: string;
}

/** An index over a set of tools, synced incrementally. */
export class ToolIndex {
  private readonly mini = new MiniSearch<SearchDocument>({
    fields: [...RANKING.fields],
    tokenize,
    processTerm,
  });
  private readonly indexed = new Map<string, Indexed>();

  /** Number of indexed tools. */
  get size(): number {
    return this.indexed.size;
  }

  /** Makes the index hold exactly `tools`, re-indexing only those whose text changed; returns how many were (re)indexed. */
  sync(tools: Iterable<IndexedTool>): number {
    const seen = new Set<string>();
    let changed = 0;
    for (const tool of tools) {
      const { name, description, parameters } = tool.definition;
      seen.add(name);
      const before = this.indexed.get(name);
      if (before && before.description === description && before.parameters === parameters && before.toolset === tool.toolset) continue;
      if (before) this.mini.discard(name);
      this.mini.add(documentFor(tool));
      this.indexed.set(name, { description, parameters, toolset: tool.toolset });
      changed++;
    }
    for (const name of this.indexed.keys()) {
      if (seen.has(name)) continue;
      this.mini.discard(name);
      this.indexed.delete(name);
    }
    return changed;
  }

  /** Tool names best first, at most `limit`, only among `candidates`. */
  search(query: string, limit: number, candidates: ReadonlySet<string>): string[] {
    const results = this.mini.search(query, { ...RANKING.search, filter: (result) => candidates.has(result.id as string) });
    return results.slice(0, limit).map((result) => result.id as string);
  }
}
