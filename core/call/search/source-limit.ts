/**
 * The per-source limit on tool search's final list (after fusion, when there is
 * an embedder): one plugin or MCP server takes at most `max` of the first
 * `window` places (`untrustedMax` if it is untrusted), unless the query names it.
 *
 * The limit only demotes. A hit of a source that already holds its share of the
 * window is held back; the place it leaves goes to the next hit in the list
 * that is at least as trusted. An untrusted hit never rises above a trusted hit
 * that ranked higher: when the next hits are untrusted, the held trusted hit
 * keeps its place, and the source keeps more than its share. So the limit can
 * keep a source out of places it earned, and never hands a place to a hit that
 * did not earn it over a more trusted one (issue 40, route 9c).
 *
 * Precisely, for the list `ranked` (best first) and the answer `out`, whenever a
 * hit `b` comes after a hit `a` in `ranked` and before it in `out` (b passed a):
 * - `a`'s source holds at least its share of the places above `a` in `out`, and the
 *   query does not name it;
 * - `b` is in `out`'s first `window` places;
 * - `b` is trusted, or `a` is untrusted.
 * Hits after the window keep their order; nothing is dropped. A source holds more
 * than its share of the window only when it is trusted and an untrusted hit ranked
 * below each of its extra places would otherwise have passed it; with trusted hits
 * only, never (test/tool-search/source-limit.test.ts checks all of it on random lists).
 */

/** How many of the first places one source may take, unless the query names it. */
export interface SourceLimit {
  max: number;
  /** the places an untrusted source may take (default `max`) */
  untrustedMax?: number;
  window: number;
}

/** What the limit reads of a hit. */
export interface LimitedHit {
  /** its plugin or MCP server; none: the limit never holds it */
  source?: string | undefined;
  untrusted: boolean;
  /** the query names its toolset or source: the limit never holds it */
  named: boolean;
}

/** `ranked` (best first) with the limit applied to its first `window` places; every hit is kept. */
export function limitSources<T>(
  ranked: readonly T[],
  window: number,
  rule: SourceLimit,
  about: (hit: T) => LimitedHit,
): T[] {
  const out: T[] = [];
  const held: Array<{ hit: T; untrusted: boolean }> = [];
  const taken = new Map<string, number>();
  let i = 0;
  for (; i < ranked.length && out.length < window; i++) {
    const hit = ranked[i]!;
    const { source, untrusted, named } = about(hit);
    if (source !== undefined && !named) {
      const n = taken.get(source) ?? 0;
      if (n >= (untrusted ? (rule.untrustedMax ?? rule.max) : rule.max)) {
        held.push({ hit, untrusted });
        continue;
      }
      taken.set(source, n + 1);
    }
    // It would pass every held hit: a trusted one keeps its place instead when this one is untrusted.
    if (untrusted) {
      for (let h = 0; h < held.length && out.length < window; ) {
        if (held[h]!.untrusted) h++;
        else out.push(held.splice(h, 1)[0]!.hit);
      }
      if (out.length >= window) {
        // No place left for it: it follows the held hits, in its own order.
        if (source !== undefined && !named) taken.set(source, taken.get(source)! - 1);
        break;
      }
    }
    out.push(hit);
  }
  return [...out, ...held.map(({ hit }) => hit), ...ranked.slice(i)];
}
