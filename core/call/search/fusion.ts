/**
 * Hybrid ranking: the lexical ranking and the vector ranking (cosine similarity
 * of the query's vector to each tool's) fused by reciprocal rank fusion. RRF
 * reads only ranks, so BM25 scores and cosine similarities, which are on
 * scales that cannot be compared, never have to be.
 */
import { cosine } from './embeddings.js';
import type { RankedTool, ToolIndex } from './search-index.js';

/**
 * RRF's constant: a tool scores Σ 1 / (RRF_K + its rank) over the lists it is in.
 * 60 is the value of the method's paper (Cormack, Clarke and Büttcher, SIGIR 2009),
 * found robust across collections there: large against the ranks that matter, it
 * keeps one list's first place from outweighing a tool both lists rank well.
 * Not tuned here (that needs the evaluation with a real model).
 */
export const RRF_K = 60;

/** How deep each list is read for fusion (at least `limit`). */
export const FUSION_DEPTH = 20;

/**
 * A hybrid result: `score` is the fused score; `vector` the cosine similarity when the vector side ranked it among its
 * best `limit`.
 */
export interface FusedTool extends RankedTool {
  vector?: number;
}

/** One tool the vector side ranked. */
export interface VectorHit {
  name: string;
  similarity: number;
}

/**
 * The `depth` tools most similar to `query` (positive similarity only), best first; each
 * similarity × `factor` of the tool (the untrusted factor, as on the lexical side).
 */
export function vectorRanked(
  query: Float32Array,
  vectors: Iterable<readonly [string, Float32Array]>,
  depth: number,
  factor: (name: string) => number = () => 1,
): VectorHit[] {
  const hits: VectorHit[] = [];
  for (const [name, vector] of vectors) {
    if (vector.length !== query.length) continue;
    const similarity = cosine(query, vector) * factor(name);
    if (similarity > 0) hits.push({ name, similarity });
  }
  return hits.sort((a, b) => b.similarity - a.similarity || (a.name < b.name ? -1 : 1)).slice(0, depth);
}

/**
 * The two lists fused by RRF, best first, at most `keep` (default `limit`); a hit among the
 * vector side's best `limit` carries its similarity. Ties keep the lexical order (a tool the
 * lexical side ranked comes first), then the name.
 */
export function fuse(
  lexical: readonly RankedTool[],
  vector: readonly VectorHit[],
  limit: number,
  k = RRF_K,
  keep = limit,
): FusedTool[] {
  const fused = new Map<string, { hit: FusedTool; lexicalRank: number }>();
  lexical.forEach((hit, i) => fused.set(hit.name, { hit: { ...hit, score: 1 / (k + i + 1) }, lexicalRank: i }));
  vector.forEach(({ name, similarity }, i) => {
    const entry = fused.get(name) ?? { hit: { name, score: 0, matched: {} }, lexicalRank: Number.POSITIVE_INFINITY };
    entry.hit.score += 1 / (k + i + 1);
    if (i < limit) entry.hit.vector = Math.round(similarity * 1000) / 1000;
    fused.set(name, entry);
  });
  return [...fused.values()]
    .sort((a, b) => b.hit.score - a.hit.score || a.lexicalRank - b.lexicalRank || (a.hit.name < b.hit.name ? -1 : 1))
    .slice(0, keep)
    .map(({ hit }) => ({ ...hit, score: Math.round(hit.score * 10000) / 10000 }));
}

/**
 * The final list with an embedder: the lexical ranking (without the per-source limit) and the
 * vector ranking (an untrusted tool's similarity × the untrusted factor) read `FUSION_DEPTH`
 * deep and fused, and only then the per-source limit, so it holds for the list the model reads.
 */
export function hybridRanked(
  index: ToolIndex,
  query: string,
  limit: number,
  queryVector: Float32Array,
  vectors: Iterable<readonly [string, Float32Array]>,
  candidates?: ReadonlySet<string>,
): FusedTool[] {
  const depth = Math.max(limit, FUSION_DEPTH);
  const lexical = index.ranked(query, depth, candidates, false);
  const vector = vectorRanked(queryVector, vectors, depth, (name) => index.trustFactor(name));
  return index.limit(fuse(lexical, vector, limit, RRF_K, depth), query, limit);
}
