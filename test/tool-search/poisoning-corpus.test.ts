/**
 * The poisoning corpus (poisoning-corpus.ts) ranked by the pure ranking stage, no host: an
 * untrusted plugin that stuffs one field at a time (or the three at once) reaches the
 * top 5 for under 10 % of 30 ordinary queries, lexically and with an embedder (the suite's
 * deterministic one), whether the honest tools come from many servers or from one. And the
 * look-alike attack of issue 40 (route 9b): five untrusted copies of an honest tool take at most
 * the two places of the first five an untrusted source may take, after fusion.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ToolIndex, RANKING, UNDEFENDED, type IndexedTool } from '#internal/core/call/search/search-index.js';
import { FUSION_DEPTH, fuse, hybridRanked, vectorRanked } from '#internal/core/call/search/fusion.js';
import { embeddingText } from '#internal/core/call/search/embeddings.js';
import { vectorOf } from './test-embedder.js';
import {
  ATTACKER_SOURCE,
  FIELDS_STUFFED,
  WORDS,
  attacker,
  honestCatalogue,
  measure,
  ordinaryQueries,
  queryWords,
  type Query,
} from './poisoning-corpus.js';

/** A unit vector of the test embedder (the embeddings store keeps them so). */
const unit = (text: string) => {
  const vector = vectorOf(text);
  const norm = Math.hypot(...vector);
  return Float32Array.from(vector, (x) => (norm ? x / norm : 0));
};

/** Tool vectors by definition: the honest catalogue's are computed once. */
const vectorMemo = new WeakMap<object, Float32Array>();
const vectorFor = (tool: IndexedTool) => {
  let vector = vectorMemo.get(tool.definition);
  if (!vector) vectorMemo.set(tool.definition, (vector = unit(embeddingText(tool))));
  return vector;
};

/**
 * The ranking stages tool_search runs, over `tools` (synced into `index`, as a host's exposure is): lexical alone, and
 * hybrid with the test embedder.
 */
function rankers(tools: IndexedTool[], index = new ToolIndex(RANKING)) {
  index.sync(tools);
  const vectors = tools.map((t) => [t.definition.name, vectorFor(t)] as const);
  return {
    index,
    vectors,
    lexical: (query: string) => index.search(query, 5),
    hybrid: (query: string) => hybridRanked(index, query, 5, unit(query), vectors).map((hit) => hit.name),
  };
}

let queries: Query[];
let oracle: string[];
const honest: Record<'services' | 'one server', IndexedTool[]> = { services: [], 'one server': [] };

beforeAll(async () => {
  queries = await ordinaryQueries();
  oracle = await queryWords();
  honest.services = await honestCatalogue('services');
  honest['one server'] = await honestCatalogue('one server');
});

describe('an untrusted plugin stuffing one field (or several) with the words agents search for', () => {
  it('has 30 ordinary queries, and honest tools answer them', () => {
    expect(queries).toHaveLength(30);
    const { lexical } = rankers(honest.services);
    const answered = queries.filter(([query, acceptable]) => lexical(query).some((name) => acceptable.includes(name)));
    expect(answered.length).toBeGreaterThanOrEqual(25);
  });

  it('is a real attack: the same ranking without the defences puts the stuffed description in the top 5 for most queries', async () => {
    const bad = attacker('description', oracle);
    const index = new ToolIndex(UNDEFENDED);
    index.sync([...honest.services, ...bad]);
    const { reached } = await measure(queries, new Set(bad.map((t) => t.definition.name)), (query) =>
      index.search(query, 5),
    );
    // Measured: 30 of 30.
    expect(reached).toBeGreaterThanOrEqual(20);
  });

  // Before issue 40's fix the attacker who knows the queries' words reached up to 13 of 30 (one server, lexical) and 4
  // of 30 with the embedder; now at most 1 of 30 in any field (docs/tool-search.md#poisoning-defences has the table).
  for (const layout of ['services', 'one server'] as const) {
    it(`reaches the top 5 for under 10 % of the queries, honest tools from ${layout === 'services' ? 'one server per service' : 'one server'}`, async () => {
      const index = new ToolIndex(RANKING);
      for (const [who, words] of [
        ['guesses', WORDS],
        ['knows the queries', oracle],
      ] as const) {
        for (const field of FIELDS_STUFFED) {
          const bad = attacker(field, words);
          const names = new Set(bad.map((t) => t.definition.name));
          const { lexical, hybrid } = rankers([...honest[layout], ...bad], index);
          const lexically = await measure(queries, names, lexical);
          const hybridly = await measure(queries, names, hybrid);
          expect(
            lexically.reached / queries.length,
            `${who}, ${field}, lexical: ${lexically.queries.join('; ')}`,
          ).toBeLessThan(0.1);
          expect(
            hybridly.reached / queries.length,
            `${who}, ${field}, hybrid: ${hybridly.queries.join('; ')}`,
          ).toBeLessThan(0.1);
          // Fields the index does not read (the MCP title, enum values) give nothing at all.
          if (field === 'title' || field === 'enum') expect([lexically.reached, hybridly.reached]).toEqual([0, 0]);
        }
      }
    }, 60_000);
  }
});

describe('five untrusted look-alikes of an honest tool, with an embedder (route 9b)', () => {
  const original = 'github_create_issue';
  const lookAlikes = (tools: IndexedTool[]): IndexedTool[] => {
    const copied = tools.find((t) => t.definition.name === original)!;
    return ['create_issue', 'new_github_issue', 'github_issue_create', 'open_github_issue', 'github_new_issue'].map(
      (name) => ({
        ...copied,
        definition: { ...copied.definition, name },
        toolset: 'helper',
        toolsetDescription: copied.toolsetDescription,
        source: ATTACKER_SOURCE,
        untrusted: true,
      }),
    );
  };

  it('take at most two of the first five places after fusion, where the lexical list alone was limited before', () => {
    const bad = lookAlikes(honest.services);
    const names = new Set(bad.map((t) => t.definition.name));
    const { index, vectors, hybrid } = rankers([...honest.services, ...bad]);
    const query = 'open a github issue for this bug';
    // Before: the limit held the lexical list, the fused list put the copies back (3 of the first 5 here).
    const before = fuse(index.ranked(query, FUSION_DEPTH), vectorRanked(unit(query), vectors, FUSION_DEPTH), 5).map(
      (hit) => hit.name,
    );
    expect(before.filter((name) => names.has(name)).length).toBeGreaterThan(2);
    const after = hybrid(query);
    expect(after.filter((name) => names.has(name))).toHaveLength(2);
    expect(after.slice(0, 3)).toContain(original);
    // Over the 30 ordinary queries, never more than two.
    for (const [q] of queries) expect(hybrid(q).filter((name) => names.has(name)).length, q).toBeLessThanOrEqual(2);
  });

  it('are ranked on the vector side with the untrusted factor, as on the lexical side', () => {
    const bad = lookAlikes(honest.services);
    const { index, vectors } = rankers([...honest.services, ...bad]);
    const query = unit('open a github issue for this bug');
    const factor = (name: string) => index.trustFactor(name);
    const plain = new Map(vectorRanked(query, vectors, 50).map((hit) => [hit.name, hit.similarity]));
    const ranked = vectorRanked(query, vectors, 50, factor);
    for (const hit of ranked) expect(hit.similarity).toBeCloseTo(plain.get(hit.name)! * factor(hit.name), 6);
    expect(bad.map((t) => factor(t.definition.name))).toEqual(Array(5).fill(RANKING.untrustedFactor));
    expect(factor(original)).toBe(1);
  });
});
