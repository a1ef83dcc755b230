/**
 * The full-text index `tool_search` ranks with: MiniSearch (plain BM25) over
 * each exposed tool's name (split on `_`, `-` and camelCase), description,
 * parameter names and descriptions, and toolset name and description. Stop
 * words are dropped and query words add their synonyms; no name boost, prefix
 * or fuzzy matching, or stemming, because the benchmark measured no gain from
 * them (docs/tool-search.md).
 *
 * Tool text is written by plugin authors and MCP servers, so it may be stuffed
 * with the words agents search for. Against that: each field is read only up
 * to a number of words, a word counts at most twice per field, a tool with
 * many more words than an honest one and a tool from an untrusted source score
 * lower, and one source takes at most three of the first five places (two if untrusted) unless the
 * query names it (test/tool-search/poisoning.test.ts).
 *
 * The index follows the exposure incrementally: a new exposure re-indexes only
 * the tools whose text changed. Toolshed's own code over manifest data: no
 * plugin code runs here.
 */
import MiniSearch, { type SearchOptions } from 'minisearch';
import { SYNONYMS } from './search-synonyms.js';
import type { ToolDefinition } from '../../providers/types.js';
import type { JsonSchema } from '../../../boundary/plugin-api.js';

/** The text of one tool, by field. */
interface SearchDocument {
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
  /** the plugin (package name) or MCP server (`mcp:<name>`) it comes from; without one, no per-source limit applies */
  source?: string;
  /** its source runs untrusted (ranked a little below an equally good trusted tool) */
  untrusted?: boolean;
}

/** The indexed fields. */
export const FIELDS = ['name', 'description', 'parameters', 'toolset'] as const;

/** One indexed field. */
type Field = (typeof FIELDS)[number];

/**
 * Words read per field (camelCase humps and stop words count); the rest of the
 * text is not indexed. Far above honest text: the benchmark catalogue's
 * longest description has 20 words, its longest parameter list 36.
 */
const FIELD_WORDS: Readonly<Record<Field, number>> = { name: 24, description: 150, parameters: 150, toolset: 40 };

/** Characters of a field split into words at all (a 2 MB description costs no more than this). */
const FIELD_CHARS = 4000;

/** Times one word counts in one field: the fiftieth "github" adds nothing. */
const TERM_REPEATS = 2;

/** What an untrusted tool's score is multiplied by: a tie-breaker, not a wipe-out. */
const UNTRUSTED_FACTOR = 0.8;

/** How many of the first places one source may take, unless the query names it. */
interface SourceLimit {
  max: number;
  /** the places an untrusted source may take (default `max`) */
  untrustedMax?: number;
  window: number;
}

/**
 * At most three of the first five places per plugin or MCP server, two for an
 * untrusted one. (Two for every source cost honest recall@5 0.936 → 0.913 on
 * the bench, whose plugins pack 14 services each; three and two: 0.930, the
 * stuffed plugin in the top 5 for 8 of 214 queries instead of 14.)
 */
const PER_SOURCE: SourceLimit = { max: 3, untrustedMax: 2, window: 5 };

/** Ranking switches, for the benchmark's comparisons; the defaults are what tool_search uses. */
interface RankingOptions {
  /** drop stop words (default true) */
  stopWords: boolean;
  /** expand query words with SYNONYMS (default true) */
  synonyms: boolean;
  /** extra MiniSearch search options (boosts, prefix, fuzzy); none by default */
  search: SearchOptions;
  /** words read per field, or false for all (default FIELD_WORDS) */
  fieldWords?: Readonly<Record<Field, number>> | false;
  /** times a word counts per field, or false for every time (default TERM_REPEATS) */
  termRepeats?: number | false;
  /** score factor of untrusted tools (default UNTRUSTED_FACTOR; 1 = none) */
  untrustedFactor?: number;
  /** places one source may take, or false for no limit (default PER_SOURCE) */
  perSource?: SourceLimit | false;
  /** indexed words a tool may have before its score is lowered, and how steeply, or false (default WORDY) */
  wordy?: { words: number; power: number } | false;
}

/**
 * A tool indexed with more words than this (all fields) has its score multiplied
 * by WORDY.words / its words: an honest definition is far shorter (the benchmark
 * catalogue's longest has 63), a stuffed one cannot match everything at full weight.
 */
const WORDY = { words: 100, power: 1 };

/**
 * MiniSearch's BM25+ with its lower bound per matched word (`d`) set to 0, i.e.
 * plain BM25: with the bound, a word in a very long field still scored at least
 * half as much as in a short one, which is what stuffing lives on.
 */
const BM25 = { k: 1.2, b: 0.7, d: 0 };

/** What tool_search uses. */
export const RANKING: RankingOptions = {
  stopWords: true,
  synonyms: true,
  search: { bm25: BM25 },
  fieldWords: FIELD_WORDS,
  termRepeats: TERM_REPEATS,
  untrustedFactor: UNTRUSTED_FACTOR,
  perSource: PER_SOURCE,
  wordy: WORDY,
};

/** The switches before the poisoning defences (the benchmark's comparison). */
export const UNDEFENDED: RankingOptions = { stopWords: true, synonyms: true, search: {}, fieldWords: false, termRepeats: false, untrustedFactor: 1, perSource: false, wordy: false };

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
    if (CAMEL.test(word))
      out.push(
        ...word
          .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
          .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
          .split(' '),
      );
  }
  return out;
}

/**
 * The words of one field as indexed: at most `words` of them (after reading at
 * most FIELD_CHARS characters), each counted at most `repeats` times.
 */
export function fieldTerms(text: string, words: number | false, repeats: number | false): string[] {
  const all = tokenize(words === false ? text : text.slice(0, FIELD_CHARS));
  const capped = words === false ? all : all.slice(0, words);
  if (repeats === false) return capped;
  const seen = new Map<string, number>();
  return capped.filter((word) => {
    const key = word.toLowerCase();
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n <= repeats;
  });
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
function parameterText(schema: JsonSchema, depth = 0): string {
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

/** What a tool was indexed with, to tell whether a new exposure changed it, and where it comes from. */
interface Indexed {
  description: string;
  parameters: JsonSchema;
  toolset: string;
  toolsetDescription: string | undefined;
  source: string | undefined;
  untrusted: boolean;
  /** the words of its toolset's name and of its source's name: a query holding all of one names the tool's source */
  names: string[][];
  /** words indexed, all fields */
  words: number;
}

/** One ranked hit. */
interface Hit {
  id: string;
  score: number;
  /** the indexed terms the query matched, each with the fields it matched in (MiniSearch's `match`) */
  match?: Record<string, string[]>;
}

/** One ranked result with its score and what it matched: a term of the index and the fields it was found in. */
export interface RankedTool {
  name: string;
  score: number;
  matched: Record<string, string[]>;
}

/** The words that name a source: a package name without its scope and `toolshed-plugin-`, an MCP server's name without `mcp:`. */
function sourceWords(source: string): string[] {
  const bare = source
    .replace(/^mcp:/, '')
    .replace(/^@[^/]+\//, '')
    .replace(/^toolshed-plugin-/, '');
  return tokenize(bare).map((word) => word.toLowerCase());
}

function namesOf(tool: IndexedTool): string[][] {
  const names = [tokenize(tool.toolset).map((word) => word.toLowerCase())];
  if (tool.source) names.push(sourceWords(tool.source));
  return names.filter((words) => words.length > 0);
}

/** An index over a set of tools, synced incrementally. */
export class ToolIndex {
  private readonly mini: MiniSearch<SearchDocument>;
  private readonly indexed = new Map<string, Indexed>();
  private readonly searchOptions: SearchOptions;
  /** words indexed by the add in progress (MiniSearch tokenizes each field synchronously inside add) */
  private wordCount = 0;

  constructor(private readonly options: RankingOptions = RANKING) {
    const words = options.fieldWords ?? false;
    const repeats = options.termRepeats ?? false;
    // MiniSearch passes the field name when indexing and none for a query.
    const indexTokenize = (text: string, field?: string) => {
      if (!field) return tokenize(text);
      const terms = fieldTerms(text, words ? words[field as Field] : false, repeats);
      this.wordCount += terms.length;
      return terms;
    };
    this.mini = new MiniSearch<SearchDocument>({ fields: [...FIELDS], tokenize: indexTokenize, processTerm: (term) => processTerm(term, options.stopWords) });
    this.searchOptions = { ...options.search, tokenize, processTerm: (term) => expandTerm(term, options) };
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
      if (before && before.description === description && before.parameters === parameters && before.toolset === tool.toolset && before.toolsetDescription === tool.toolsetDescription) {
        if (before.source !== tool.source || before.untrusted !== (tool.untrusted === true)) this.indexed.set(name, { ...before, source: tool.source, untrusted: tool.untrusted === true, names: namesOf(tool) });
        continue;
      }
      if (before) this.mini.discard(name);
      this.wordCount = 0;
      this.mini.add(documentFor(tool));
      const meta = { source: tool.source, untrusted: tool.untrusted === true, names: namesOf(tool) };
      this.indexed.set(name, { description, parameters, toolset: tool.toolset, toolsetDescription: tool.toolsetDescription, words: this.wordCount, ...meta });
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
    return this.hits(query, limit, candidates).map((hit) => hit.id);
  }

  /** As `search`, with each tool's score and the terms it matched in which fields (the console shows them). */
  ranked(query: string, limit: number, candidates?: ReadonlySet<string>): RankedTool[] {
    return this.hits(query, limit, candidates).map((hit) => ({ name: hit.id, score: Math.round(hit.score * 1000) / 1000, matched: hit.match ?? {} }));
  }

  private hits(query: string, limit: number, candidates?: ReadonlySet<string>): Hit[] {
    const options = candidates ? { ...this.searchOptions, filter: (result: { id: unknown }) => candidates.has(result.id as string) } : this.searchOptions;
    const ranked = this.trustRanked(this.mini.search(query, options) as Hit[]);
    const rule = this.options.perSource ?? false;
    const hits = rule ? this.spread(ranked, limit, rule, queryWords(query)) : ranked;
    return hits.slice(0, limit);
  }

  /** The hits with untrusted and wordy tools' scores lowered, best first (MiniSearch's order when nothing changed). */
  private trustRanked(results: Hit[]): Hit[] {
    let changed = false;
    const adjusted = results.map((hit) => {
      const factor = this.factor(this.indexed.get(hit.id));
      if (factor === 1) return hit;
      changed = true;
      return { ...hit, score: hit.score * factor };
    });
    return changed ? adjusted.sort((a, b) => b.score - a.score) : results;
  }

  /** What a tool's score is multiplied by: below 1 for an untrusted source and for more indexed words than `wordy.words`. */
  private factor(meta: Indexed | undefined): number {
    if (!meta) return 1;
    const { untrustedFactor = 1, wordy = false } = this.options;
    const trust = meta.untrusted ? untrustedFactor : 1;
    return wordy && meta.words > wordy.words ? trust * (wordy.words / meta.words) ** wordy.power : trust;
  }

  /**
   * The hits reordered so one source takes at most `rule.max` of the first
   * `rule.window` places; a tool whose toolset or source the query names is
   * exempt. A hit held back keeps its order after those places, so a query
   * only one source answers still gets a full answer.
   */
  private spread(ranked: Hit[], limit: number, rule: SourceLimit, words: ReadonlySet<string>): Hit[] {
    const first: Hit[] = [];
    const held: Hit[] = [];
    const taken = new Map<string, number>();
    const window = Math.min(limit, rule.window);
    let i = 0;
    for (; i < ranked.length && first.length < window; i++) {
      const hit = ranked[i]!;
      const meta = this.indexed.get(hit.id);
      if (!meta?.source || meta.names.some((name) => name.every((word) => words.has(word)))) {
        first.push(hit);
        continue;
      }
      const n = taken.get(meta.source) ?? 0;
      if (n >= (meta.untrusted ? (rule.untrustedMax ?? rule.max) : rule.max)) held.push(hit);
      else {
        taken.set(meta.source, n + 1);
        first.push(hit);
      }
    }
    return [...first, ...held, ...ranked.slice(i)];
  }
}

/** The lower-cased words of a query, to tell whether it names a toolset or source. */
function queryWords(query: string): Set<string> {
  return new Set(tokenize(query).map((word) => word.toLowerCase()));
}
