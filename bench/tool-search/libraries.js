/**
 * The same ranking built on each candidate library, for the comparison that
 * picked MiniSearch: identical documents, tokenizer, stop words and query
 * synonyms, each library's own scoring and its documented way to match any
 * query word. Orama and FlexSearch are dev dependencies, used only here.
 */
import { FIELDS, documentFor, processTerm, tokenize } from '../../dist/core/call/search/search-index.js';
import { SYNONYMS } from '../../dist/core/call/search/search-synonyms.js';

const words = (text) =>
  tokenize(text)
    .map((t) => processTerm(t))
    .filter(Boolean);
const expand = (query) => words(query).flatMap((w) => [w, ...(SYNONYMS[w] ?? [])]);

/** Orama (BM25) over the same fields. */
export async function oramaRanker(tools) {
  const { create, insertMultiple, search } = await import('@orama/orama');
  const tokenizer = { language: 'english', normalizationCache: new Map(), tokenize: (raw) => words(raw) };
  const db = create({ schema: Object.fromEntries(FIELDS.map((f) => [f, 'string'])), components: { tokenizer } });
  insertMultiple(
    db,
    tools.map((t) => ({ ...documentFor(t) })),
  );
  const properties = [...FIELDS];
  return (query) => search(db, { term: expand(query).join(' '), properties, limit: 10, threshold: 1 }).hits.map((h) => h.document.name);
}

/** FlexSearch (contextual scoring, no BM25) over the same fields. */
export async function flexsearchRanker(tools) {
  const { default: FlexSearch } = await import('flexsearch');
  const encoder = new FlexSearch.Encoder({ normalize: false, prepare: (text) => words(text).join(' ') });
  const index = new FlexSearch.Document({ document: { id: 'id', index: FIELDS.map((field) => ({ field, tokenize: 'strict', encoder })) } });
  for (const t of tools) index.add(documentFor(t));
  return (query) => {
    const merged = new Map();
    for (const { result } of index.search(expand(query).join(' '), { limit: 10, suggest: true })) {
      result.forEach((id, rank) => merged.set(id, (merged.get(id) ?? 0) + 1 / (rank + 1)));
    }
    return [...merged.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
  };
}
