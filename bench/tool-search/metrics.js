/** Retrieval metrics over the benchmark queries. */

/** recall@1, recall@5 and MRR@10 of `rank(query) → names best first` over `queries`. */
export function evaluate(queries, rank) {
  let at1 = 0;
  let at5 = 0;
  let rr = 0;
  const misses = [];
  for (const [query, acceptable] of queries) {
    const ranked = rank(query).slice(0, 10);
    const position = ranked.findIndex((name) => acceptable.includes(name));
    if (position === 0) at1++;
    if (position >= 0 && position < 5) at5++;
    if (position >= 0) rr += 1 / (position + 1);
    if (position < 0 || position >= 5) misses.push({ query, acceptable, got: ranked.slice(0, 5) });
  }
  const n = queries.length;
  return { recallAt1: at1 / n, recallAt5: at5 / n, mrrAt10: rr / n, n, misses };
}
