/** Did-you-mean suggestions for unknown tool and toolset names. */
import { distance } from 'fastest-levenshtein';

/** The candidates closest to `name` (at most `limit`), nearest first; empty when nothing is close. */
function suggest(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const lower = name.toLowerCase();
  const scored: Array<{ candidate: string; score: number }> = [];
  for (const candidate of candidates) {
    const c = candidate.toLowerCase();
    const score = c.includes(lower) || lower.includes(c) ? 0.5 : distance(lower, c);
    if (score <= Math.max(2, Math.floor(Math.max(lower.length, c.length) / 3))) scored.push({ candidate, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map((s) => s.candidate);
}

/** " Did you mean a, b?" or an empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const hits = suggest(name, candidates);
  return hits.length ? ` Did you mean ${hits.map((h) => `'${h}'`).join(' or ')}?` : '';
}

/**
 * The candidate `name` was probably meant to be: the nearest by edit distance, when it is within
 * a quarter of the name's length (at least 2) and nearer than any other. For package names, where
 * the substring rule of `suggest` would offer every short package a long name contains.
 */
export function nearestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: { candidate: string; score: number } | undefined;
  let tied = false;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const score = distance(name.toLowerCase(), candidate.toLowerCase());
    if (best && score === best.score) tied = true;
    if (!best || score < best.score) {
      best = { candidate, score };
      tied = false;
    }
  }
  if (!best || tied || best.score > Math.max(2, Math.floor(name.length / 4))) return undefined;
  return best.candidate;
}
