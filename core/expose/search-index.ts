/**
 * The full-text index `tool_search` ranks with: MiniSearch (BM25+) over each
 * exposed tool's name (split on `_`, `-` and camelCase), description,
 * parameter names and descriptions, and toolset name and description. Stop
 * words are dropped and query words add their synonyms; every other option
 * is MiniSearch's default, because the benchmark measured no gain from name
 * boosts, prefix or fuzzy matching, or stemming (docs/tool-search.md). The
 * index follows the exposure incrementally: a new exposure re-indexes only
 * the tools whose text changed. Toolshed's own code over manifest data: no
 * plugin code runs here.
 */
import MiniSearch, { type SearchOptions } from 'minisearch';
import { SYNONYMS } from './search-synonyms.js';
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

/** The indexed fields. */
export const FIELDS = ['name', 'description', 'parameters', 'toolset'] as const;

/** Ranking switches, for the benchmark's comparisons; the defaults are what tool_search uses. */
export interface RankingOptions {
  /** drop stop words (default true) */
  stopWords: boolean;
  /** expand query words with SYNONYMS (default true) */
  synonyms: boolean;
  /** extra MiniSearch search options (boosts, prefix, fuzzy); none by default */
  search: SearchOptions;
}

/** What tool_search uses. */
export const RANKING: RankingOptions = { stopWords: true, synonyms: true, search: {} };

// A lower-case letter or digit before a capital, or the end of an acronym ("HTTPServer").
const CAMEL = /[\p{Ll}\p{N}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;

/**
 * Splits text into words on anything not a letter or digit; a camelCase word
 * is kept whole and also split into its humps ("getUserById" → getUserById, get, User, By, Id).
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of text.split(/[^\p{L}\p{N}]+/u)) {
    if (!word) continue;
    out.push(word);
    // Most words have no hump; testing first keeps indexing a large catalogue fast.
    if (CAMEL.test(word)) out.push(...word.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2').replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2').split(' '));
  }
  return out;
}

// Words that carry no meaning in a query or a description ("how do I list the issues of a repo").
const STOP_WORDS = new Set(
  [
    'a an and are as at be by can do for from i in into is it me my of on or our please that the this to tool tools use using with you your',
    'how many what which who when where why does did have has get want need some something all any there their them they its was were will would should could just now',
  ]
    .join(' ')
    .split(' '),
);

/** Lower-cases a word and, with `stopWords`, drops stop words. */
export function processTerm(term: string, stopWords = true): string | null {
  const word = term.toLowerCase();
  return stopWords && STOP_WORDS.has(word) ? null : word;
}

/** A query word with its synonyms. */
function expandTerm(term: string, options: RankingOptions): string | string[] | null {
  const word = processTerm(term, options.stopWords);
  const synonyms = word && options.synonyms ? SYNONYMS[word] : undefined;
  return synonyms ? [word!, ...synonyms] : word;
}

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
  private readonly mini: MiniSearch<SearchDocument>;
  private readonly indexed = new Map<string, Indexed>();
  private readonly searchOptions: SearchOptions;

  constructor(private readonly options: RankingOptions = RANKING) {
    this.mini = new MiniSearch<SearchDocument>({ fields: [...FIELDS], tokenize, processTerm: (term) => processTerm(term, options.stopWords) });
    this.searchOptions = { ...options.search, processTerm: (term) => expandTerm(term, options) };
  }

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

  /** Tool names best first, at most `limit`, only among `candidates` (all indexed tools when omitted). */
  search(query: string, limit: number, candidates?: ReadonlySet<string>): string[] {
    const options = candidates ? { ...this.searchOptions, filter: (result: { id: unknown }) => candidates.has(result.id as string) } : this.searchOptions;
    return this.mini.search(query, options).slice(0, limit).map((result) => result.id as string);
  }
}
