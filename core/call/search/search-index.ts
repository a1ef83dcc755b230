/**
 * The index `tool_search` ranks with: BM25F (bm25f.ts) over six fields of
 * each exposed tool — its name split into words (on `_`, `-` and camelCase
 * humps), the description's first sentence (summary), the whole description,
 * its parameter names and descriptions, its source (toolset name, plugin or
 * MCP server name) and its toolset's description — each weighted and length
 * normalised on its own. Words are lower-cased, stop words dropped and
 * stemmed, in tools and queries alike. On top of the BM25F score: a tool
 * that matches more of the query's words ranks higher (coverage), and query
 * words found next to each other in one field add a little (proximity).
 * Nothing here is a word list for a catalogue; every setting was measured on
 * the tuning half of real MCP servers and reported on the held-out half
 * (docs/tool-search.md).
 *
 * Tool text is written by plugin authors and MCP servers, so it may be stuffed
 * with the words agents search for. Against that: each field is read only up
 * to a number of words, a word counts at most twice per field, a tool with
 * many more words than an honest one and a tool from an untrusted source score
 * lower, and one source takes at most three of the first five places (two if untrusted) unless the
 * query names it, a limit that only demotes (source-limit.ts). With an embedder the limit applies to
 * the fused list instead (`ranked(…, false)`, then `limit`): test/tool-search/poisoning.test.ts.
 *
 * The index is built on the first search and follows the exposure
 * incrementally: a new exposure re-indexes only the tools whose text changed.
 * Toolshed's own code over manifest data: no plugin code runs here.
 */
import { Bm25f, type FieldWeight } from './bm25f.js';
import { fieldTerms, firstSentence, parameterText, processTerm, stem, tokenize } from './search-text.js';
import { limitSources, type SourceLimit } from './source-limit.js';
import type { ToolDefinition } from '../../providers/types.js';
import type { JsonSchema } from '../../../boundary/plugin-api.js';

export { fieldTerms, processTerm, tokenize } from './search-text.js';

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

/** The indexed fields, in the order of their settings. */
export const FIELDS = ['name', 'summary', 'description', 'parameters', 'source', 'toolset'] as const;

/** One indexed field. */
export type Field = (typeof FIELDS)[number];

/** The text of one tool, by field. */
export type SearchDocument = { id: string } & Record<Field, string>;

/**
 * Words read per field (camelCase humps and stop words count); the rest of the
 * text is not indexed. Far above honest text: the longest description among
 * the real MCP servers of the benchmark has 150 words or so, and a few reach the cap.
 * The first sentence is read for 20 words: it is weighted without length
 * normalisation, so a long one would count every stuffed word at full weight
 * (issue 40); 20 changes no ranking of the real servers' queries.
 */
const FIELD_WORDS: Readonly<Record<Field, number>> = {
  name: 24,
  summary: 20,
  description: 150,
  parameters: 150,
  source: 16,
  toolset: 40,
};

/** Times one word counts in one field: the fiftieth "github" adds nothing. */
const TERM_REPEATS = 2;

/** What an untrusted tool's score is multiplied by: a tie-breaker, not a wipe-out. */
const UNTRUSTED_FACTOR = 0.8;

/** At most three of the first five places per plugin or MCP server, two for an untrusted one. */
const PER_SOURCE: SourceLimit = { max: 3, untrustedMax: 2, window: 5 };

/** Ranking settings; the defaults (RANKING) are what tool_search uses, the others the benchmark's comparisons. */
export interface RankingOptions {
  /** each field's weight and length normalisation */
  fields: Readonly<Record<Field, FieldWeight>>;
  /** BM25 term-frequency saturation */
  k1: number;
  /** drop stop words */
  stopWords: boolean;
  /** stem words (Porter) */
  stemming: boolean;
  /** a tool's score × (share of the query's terms it matched) ^ coverage; 0 = off */
  coverage: number;
  /**
   * a tool's score × (1 + proximity × share of the query's adjacent word pairs found next to each other in one field);
   * 0 = off
   */
  proximity: number;
  /** pseudo-relevance feedback: terms of the best `docs` tools added to the query at `weight`; false = off */
  feedback: { docs: number; terms: number; weight: number } | false;
  /** words read per field, or false for all */
  fieldWords: Readonly<Record<Field, number>> | false;
  /** times a word counts per field, or false for every time */
  termRepeats: number | false;
  /** score factor of untrusted tools (1 = none) */
  untrustedFactor: number;
  /** places one source may take, or false for no limit */
  perSource: SourceLimit | false;
  /** indexed words a tool may have before its score is lowered, and how steeply, or false */
  wordy: { words: number; power: number } | false;
}

/**
 * A tool indexed with more words than this (all fields) has its score multiplied
 * by WORDY.words / its words: an honest definition is shorter (of the real
 * servers' tools, 6 % have more, and lose a little), a stuffed one cannot match
 * everything at full weight: stuffing names, parameter names and the toolset's
 * description each up to its cap comes to more (issue 40).
 */
const WORDY = { words: 200, power: 1 };

/** What tool_search uses (measured in bench/tool-search: docs/tool-search.md#measured). */
export const RANKING: RankingOptions = {
  fields: {
    name: { weight: 0.5, b: 1 },
    summary: { weight: 0.5, b: 0 },
    description: { weight: 0.5, b: 0.75 },
    parameters: { weight: 0.25, b: 1 },
    source: { weight: 3, b: 0.9 },
    toolset: { weight: 0.5, b: 0.75 },
  },
  k1: 3,
  stopWords: true,
  stemming: true,
  coverage: 0.5,
  proximity: 0.8,
  feedback: false,
  fieldWords: FIELD_WORDS,
  termRepeats: TERM_REPEATS,
  untrustedFactor: UNTRUSTED_FACTOR,
  perSource: PER_SOURCE,
  wordy: WORDY,
};

/** The same ranking without the poisoning defences (the benchmark's and the poisoning test's comparison). */
export const UNDEFENDED: RankingOptions = {
  ...RANKING,
  fieldWords: false,
  termRepeats: false,
  untrustedFactor: 1,
  perSource: false,
  wordy: false,
};

/** The document of one tool. */
function documentFor(tool: IndexedTool): SearchDocument {
  const { definition } = tool;
  const source = tool.source ? sourceName(tool.source) : '';
  return {
    id: definition.name,
    name: definition.name,
    summary: firstSentence(definition.description),
    description: definition.description,
    parameters: parameterText(definition.parameters),
    source: [tool.toolset, source === tool.toolset ? '' : source].filter(Boolean).join(' '),
    toolset: tool.toolsetDescription ?? '',
  };
}

/** What a tool was indexed with, to tell whether a new exposure changed it, and where it comes from. */
interface Indexed {
  doc: number;
  /** its terms per field, as indexed (proximity, feedback and explanations read them) */
  terms: string[][];
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
  /** the pairs of terms within two words of each other in one field, hashed (pairHash), sorted */
  pairs: Int32Array;
}

/** One ranked result with its score and why: each query word it matched, with the fields it was found in. */
export interface RankedTool {
  name: string;
  score: number;
  /** query word (as typed, lower-cased) → the fields it matched in */
  matched: Record<string, Field[]>;
  /** words drawn from the best results (pseudo-relevance feedback) that it matched too */
  related?: string[];
}

/** A query as ranked: its terms, the word each came from, and the terms feedback added with their weight. */
interface Query {
  terms: string[];
  words: Map<string, string>;
  added: Map<string, number>;
  /** its lower-cased words, to tell whether it names a toolset or source */
  named: ReadonlySet<string>;
}

/** A hit during ranking. */
interface Hit {
  doc: number;
  name: string;
  score: number;
}

/**
 * The name of a source: a package name without its scope and `toolshed-plugin-`, an MCP server's name without `mcp:`.
 */
function sourceName(source: string): string {
  return source
    .replace(/^mcp:/, '')
    .replace(/^@[^/]+\//, '')
    .replace(/^toolshed-plugin-/, '');
}

function namesOf(tool: IndexedTool): string[][] {
  const names = [tokenize(tool.toolset).map((word) => word.toLowerCase())];
  if (tool.source) names.push(tokenize(sourceName(tool.source)).map((word) => word.toLowerCase()));
  return names.filter((words) => words.length > 0);
}

/** Words kept to name terms in explanations (a bound for hosts whose tools change all day). */
const SURFACE_WORDS = 100_000;

/** Hits kept for reranking (proximity, feedback) before the final cut. */
const RERANK = 50;

/** An index over a set of tools, synced incrementally. */
export class ToolIndex {
  private readonly engine: Bm25f;
  private readonly indexed = new Map<string, Indexed>();
  private readonly byDoc: Array<string | undefined> = [];
  /** a word each indexed term was made from (explanations name words, not stems) */
  private readonly surface = new Map<string, string>();
  /** each document's score factor (untrusted, wordy), by document number */
  private factors = new Float64Array(64);
  /**
   * the documents of the last candidate set asked for, by document number (the exposure's deferred set is asked for
   * again and again)
   */
  private allowedFor: { candidates: ReadonlySet<string>; generation: number; docs: Uint8Array } | undefined;
  /** bumped by every change of the indexed tools */
  private generation = 0;
  /** per document during one ranking: its score so far, the query terms it matched, and 1 once it is in `touched` */
  private scores = new Float64Array(0);
  private matches = new Uint16Array(0);
  private seen = new Uint8Array(0);
  /** the documents one ranking touched, in order (the first `count` entries) */
  private touched = new Int32Array(0);

  constructor(private readonly options: RankingOptions = RANKING) {
    this.engine = new Bm25f(
      FIELDS.map((field) => options.fields[field]),
      options.k1,
    );
  }

  /** Number of indexed tools. */
  get size(): number {
    return this.indexed.size;
  }

  /**
   * Makes the index hold exactly `tools`, re-indexing only those whose text changed; returns how many were (re)indexed.
   */
  sync(tools: Iterable<IndexedTool>): number {
    const seen = new Set<string>();
    let changed = 0;
    for (const tool of tools) {
      const { name, description, parameters } = tool.definition;
      seen.add(name);
      const before = this.indexed.get(name);
      if (
        before &&
        before.description === description &&
        before.parameters === parameters &&
        before.toolset === tool.toolset &&
        before.toolsetDescription === tool.toolsetDescription &&
        before.source === tool.source
      ) {
        if (before.untrusted !== (tool.untrusted === true)) {
          const meta = { ...before, untrusted: tool.untrusted === true };
          this.indexed.set(name, meta);
          this.factors[meta.doc] = this.factor(meta);
        }
        continue;
      }
      if (before) this.drop(name, before);
      this.add(tool);
      changed++;
    }
    for (const [name, before] of this.indexed) if (!seen.has(name)) this.drop(name, before);
    return changed;
  }

  /** Tool names best first, at most `limit`, only among `candidates` (all indexed tools when omitted). */
  search(query: string, limit: number, candidates?: ReadonlySet<string>): string[] {
    return this.hits(query, limit, candidates, true).hits.map((hit) => hit.name);
  }

  /**
   * As `search`, with each tool's score and why it matched (the console and `toolshed explain --search` show them).
   * With `limited` false the per-source limit is left to the caller (`limit`, on a fused list).
   */
  ranked(query: string, limit: number, candidates?: ReadonlySet<string>, limited = true): RankedTool[] {
    const { hits, parsed } = this.hits(query, limit, candidates, limited);
    return hits.map((hit) => ({
      name: hit.name,
      score: Math.round(hit.score * 1000) / 1000,
      ...this.why(hit, parsed),
    }));
  }

  /**
   * `ranked` (best first, any ranking of indexed tools: the fused one) with the per-source limit applied, at most
   * `limit`.
   */
  limit<T extends { name: string }>(ranked: readonly T[], query: string, limit: number): T[] {
    const rule = this.options.perSource;
    if (!rule) return ranked.slice(0, limit);
    return this.limited(ranked, limit, rule, this.parse(query).named).slice(0, limit);
  }

  /** What an untrusted tool's score is multiplied by on every ranking (1 for a trusted one, or one not indexed). */
  trustFactor(name: string): number {
    return this.indexed.get(name)?.untrusted ? this.options.untrustedFactor : 1;
  }

  private add(tool: IndexedTool): void {
    const document = documentFor(tool);
    const { fieldWords, termRepeats, stopWords, stemming } = this.options;
    let words = 0;
    const fieldTermsOf = FIELDS.map((field) => {
      const raw = fieldTerms(document[field], fieldWords ? fieldWords[field] : false, termRepeats);
      words += raw.length;
      const out: string[] = [];
      for (const word of raw) {
        const lower = processTerm(word, stopWords);
        if (!lower) continue;
        const term = stemming ? stem(lower) : lower;
        if (!this.surface.has(term)) {
          if (this.surface.size >= SURFACE_WORDS) this.surface.clear();
          this.surface.set(term, lower);
        }
        out.push(term);
      }
      return out;
    });
    const doc = this.engine.add(fieldTermsOf);
    this.byDoc[doc] = tool.definition.name;
    this.generation++;
    const meta: Indexed = {
      doc,
      terms: fieldTermsOf,
      description: tool.definition.description,
      parameters: tool.definition.parameters,
      toolset: tool.toolset,
      toolsetDescription: tool.toolsetDescription,
      source: tool.source,
      untrusted: tool.untrusted === true,
      names: namesOf(tool),
      words,
      pairs: pairsOf(fieldTermsOf),
    };
    this.indexed.set(tool.definition.name, meta);
    if (this.factors.length <= doc) {
      const grown = new Float64Array(Math.max(64, (doc + 1) * 2));
      grown.set(this.factors);
      this.factors = grown;
    }
    this.factors[doc] = this.factor(meta);
  }

  private drop(name: string, before: Indexed): void {
    this.engine.remove(before.doc, before.terms);
    this.generation++;
    this.byDoc[before.doc] = undefined;
    this.indexed.delete(name);
  }

  /** The query's terms, each once, with the word it came from. */
  private parse(text: string): Query {
    const words = new Map<string, string>();
    const named = new Set<string>();
    for (const word of tokenize(text)) {
      const lower = word.toLowerCase();
      named.add(lower);
      const kept = processTerm(lower, this.options.stopWords);
      const term = kept && this.options.stemming ? stem(kept) : kept;
      if (term && !words.has(term)) words.set(term, lower);
    }
    return { terms: [...words.keys()], words, added: new Map(), named };
  }

  private hits(
    text: string,
    limit: number,
    candidates: ReadonlySet<string> | undefined,
    limited: boolean,
  ): { hits: Hit[]; parsed: Query } {
    const query = this.parse(text);
    let ranked = this.rank(query, candidates);
    const { feedback } = this.options;
    if (feedback && ranked.length) {
      this.expand(query, ranked.slice(0, feedback.docs), feedback);
      if (query.added.size) ranked = this.rank(query, candidates);
    }
    const rule = this.options.perSource;
    const hits = rule && limited ? this.limited(ranked, limit, rule, query.named) : ranked;
    return { hits: hits.slice(0, limit), parsed: query };
  }

  /** The best RERANK tools for `query` among `candidates`, best first, with every factor applied. */
  private rank(query: Query, candidates?: ReadonlySet<string>): Hit[] {
    if (!query.terms.length) return [];
    const capacity = this.engine.capacity;
    if (this.scores.length < capacity) {
      this.scores = new Float64Array(capacity * 2);
      this.matches = new Uint16Array(capacity * 2);
      this.seen = new Uint8Array(capacity * 2);
      this.touched = new Int32Array(capacity * 2);
    }
    const { scores, matches, seen, touched } = this;
    let count = 0;
    const add = (term: string, factor: number, original: boolean) => {
      const weights = this.engine.weightsOf(term);
      if (!weights) return;
      const scale = factor * this.engine.idf(term);
      const { docs, saturated } = weights;
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i]!;
        if (!seen[doc]) {
          seen[doc] = 1;
          touched[count++] = doc;
        }
        scores[doc]! += scale * saturated[i]!;
        if (original) matches[doc]!++;
      }
    };
    for (const term of query.terms) add(term, 1, true);
    for (const [term, weight] of query.added) add(term, weight, false);
    const { coverage } = this.options;
    const allowed = candidates ? this.allowed(candidates) : undefined;
    const best = new TopK(RERANK);
    const n = query.terms.length;
    for (let t = 0; t < count; t++) {
      const doc = touched[t]!;
      const score = scores[doc]!;
      const matched = matches[doc]!;
      scores[doc] = 0;
      matches[doc] = 0;
      seen[doc] = 0;
      if (allowed && !allowed[doc]) continue;
      const final = score * (coverage && matched < n ? (matched / n) ** coverage : 1) * this.factors[doc]!;
      if (best.admits(final)) best.offer({ doc, name: this.byDoc[doc]!, score: final });
    }
    const hits = best.sorted();
    const { proximity } = this.options;
    if (proximity && n > 1) {
      const pairs = query.terms.slice(1).map((term, i) => pairHash(query.terms[i]!, term));
      for (const one of hits) {
        const own = this.indexed.get(one.name)!.pairs;
        let found = 0;
        for (const pair of pairs) if (holds(own, pair)) found++;
        one.score *= 1 + (proximity * found) / pairs.length;
      }
      hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
    }
    return hits;
  }

  /**
   * The documents of `candidates`, as flags by document number (cached for the same set while the index does not
   * change).
   */
  private allowed(candidates: ReadonlySet<string>): Uint8Array {
    const cached = this.allowedFor;
    if (cached?.candidates === candidates && cached.generation === this.generation) return cached.docs;
    const docs = new Uint8Array(this.engine.capacity);
    for (const name of candidates) {
      const meta = this.indexed.get(name);
      if (meta) docs[meta.doc] = 1;
    }
    this.allowedFor = { candidates, generation: this.generation, docs };
    return docs;
  }

  /**
   * Pseudo-relevance feedback: the terms of the best tools' names and first
   * sentences that the query lacks, scored by how many of those tools hold
   * them and how rare they are; the best `feedback.terms` join the query at
   * `feedback.weight` of a query word.
   */
  private expand(query: Query, top: Hit[], feedback: { terms: number; weight: number }): void {
    const counts = new Map<string, number>();
    for (const one of top) {
      const fields = this.indexed.get(one.name)!.terms;
      for (const term of new Set([...fields[0]!, ...fields[1]!]))
        if (!query.words.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    const scored = [...counts]
      .map(([term, n]) => ({ term, score: n * this.engine.idf(term) }))
      .sort((a, b) => b.score - a.score || (a.term < b.term ? -1 : 1));
    for (const { term } of scored.slice(0, feedback.terms)) query.added.set(term, feedback.weight);
  }

  /**
   * What a tool's score is multiplied by: below 1 for an untrusted source and for more indexed words than
   * `wordy.words`.
   */
  private factor(meta: Indexed): number {
    const { untrustedFactor, wordy } = this.options;
    const trust = meta.untrusted ? untrustedFactor : 1;
    return wordy && meta.words > wordy.words ? trust * (wordy.words / meta.words) ** wordy.power : trust;
  }

  /** Which query words a hit matched in which fields, and which feedback words. */
  private why(hit: Hit, query: Query): Pick<RankedTool, 'matched' | 'related'> {
    // The tool's own terms, not the postings: a common word's postings hold thousands of tools.
    const own = this.indexed.get(hit.name)!.terms;
    const fieldsOf = (term: string) => FIELDS.filter((_, field) => own[field]!.includes(term));
    const matched: Record<string, Field[]> = {};
    for (const term of query.terms) {
      const fields = fieldsOf(term);
      if (fields.length) matched[query.words.get(term)!] = fields;
    }
    const related = [...query.added.keys()]
      .filter((term) => fieldsOf(term).length)
      .map((term) => this.surface.get(term) ?? term);
    return related.length ? { matched, related } : { matched };
  }

  /**
   * `ranked` with the per-source limit (source-limit.ts) on its first min(`limit`, window) places; a tool whose toolset
   * or source the query names is exempt.
   */
  private limited<T extends { name: string }>(
    ranked: readonly T[],
    limit: number,
    rule: SourceLimit,
    words: ReadonlySet<string>,
  ): T[] {
    return limitSources(ranked, Math.min(limit, rule.window), rule, (hit) => {
      const meta = this.indexed.get(hit.name);
      return {
        source: meta?.source,
        untrusted: meta?.untrusted === true,
        named: meta ? meta.names.some((name) => name.every((word) => words.has(word))) : false,
      };
    });
  }
}

/** A pair of terms as one number, the same in either order (FNV-1a over "a b", the smaller first). */
function pairHash(a: string, b: string): number {
  const text = a < b ? `${a} ${b}` : `${b} ${a}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash | 0;
}

/** The hashed pairs of terms within two words of each other in each field, sorted, each once. */
function pairsOf(fields: readonly (readonly string[])[]): Int32Array {
  const out: number[] = [];
  for (const words of fields) {
    for (let i = 0; i < words.length; i++) {
      if (words[i + 1] !== undefined && words[i + 1] !== words[i]) out.push(pairHash(words[i]!, words[i + 1]!));
      if (words[i + 2] !== undefined && words[i + 2] !== words[i]) out.push(pairHash(words[i]!, words[i + 2]!));
    }
  }
  const sorted = Int32Array.from(out).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i]!;
  return sorted.slice(0, n);
}

/** Whether sorted `pairs` holds `hash` (binary search). */
function holds(pairs: Int32Array, hash: number): boolean {
  let low = 0;
  let high = pairs.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const value = pairs[mid]!;
    if (value === hash) return true;
    if (value < hash) low = mid + 1;
    else high = mid - 1;
  }
  return false;
}

/** The `size` best hits offered (a min-heap on score; ties broken by name so results are stable). */
class TopK {
  private readonly heap: Hit[] = [];
  constructor(private readonly size: number) {}

  /** Whether a hit scoring `score` would be kept (a cheap test before making the hit). */
  admits(score: number): boolean {
    return this.heap.length < this.size || score >= this.heap[0]!.score;
  }

  offer(hit: Hit): void {
    const { heap } = this;
    if (heap.length < this.size) {
      heap.push(hit);
      this.up(heap.length - 1);
    } else if (worse(heap[0]!, hit)) {
      heap[0] = hit;
      this.down(0);
    }
  }

  sorted(): Hit[] {
    return this.heap.slice().sort((a, b) => (worse(a, b) ? 1 : -1));
  }

  private up(i: number): void {
    const { heap } = this;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!worse(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const { heap } = this;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < heap.length && worse(heap[left]!, heap[least]!)) least = left;
      if (right < heap.length && worse(heap[right]!, heap[least]!)) least = right;
      if (least === i) return;
      [heap[i], heap[least]] = [heap[least]!, heap[i]!];
      i = least;
    }
  }
}

/** Whether hit `a` ranks below hit `b`. */
function worse(a: Hit, b: Hit): boolean {
  return a.score < b.score || (a.score === b.score && a.name > b.name);
}
