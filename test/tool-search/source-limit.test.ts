/**
 * The per-source limit on tool search's final list (core/call/search/source-limit.ts), as a pure
 * function: it only demotes. Checked on the cases of issue 40 (route 9c) and, property by
 * property, on 3,000 random rankings from a seeded generator.
 */
import { describe, expect, it } from 'vitest';
import { limitSources, type LimitedHit, type SourceLimit } from '#internal/core/call/search/source-limit.js';

interface Hit extends LimitedHit {
  name: string;
}

const RULE: SourceLimit = { max: 3, untrustedMax: 2, window: 5 };
const hit = (name: string, source: string | undefined, untrusted = false, named = false): Hit => ({
  name,
  source,
  untrusted,
  named,
});
const names = (hits: readonly Hit[]) => hits.map((h) => h.name);
const limit = (ranked: readonly Hit[], window = RULE.window, rule = RULE) =>
  limitSources(ranked, window, rule, (h) => h);

describe('the per-source limit', () => {
  it('holds a fourth hit of one trusted source back for the next trusted hit, as before', () => {
    const ranked = [
      hit('a1', 'a'),
      hit('a2', 'a'),
      hit('a3', 'a'),
      hit('a4', 'a'),
      hit('b1', 'b'),
      hit('c1', 'c'),
      hit('a5', 'a'),
    ];
    expect(names(limit(ranked))).toEqual(['a1', 'a2', 'a3', 'b1', 'c1', 'a4', 'a5']);
  });

  it('never hands a held trusted place to a weaker untrusted hit (route 9c): the trusted source keeps it', () => {
    const ranked = [
      hit('a1', 'a'),
      hit('a2', 'a'),
      hit('a3', 'a'),
      hit('a4', 'a'),
      hit('a5', 'a'),
      hit('u1', 'u', true),
      hit('u2', 'u', true),
    ];
    expect(names(limit(ranked))).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'u1', 'u2']);
    // A trusted hit of another source still takes the place; the untrusted one follows the held hit.
    const mixed = [
      hit('a1', 'a'),
      hit('a2', 'a'),
      hit('a3', 'a'),
      hit('a4', 'a'),
      hit('b1', 'b'),
      hit('u1', 'u', true),
      hit('a5', 'a'),
    ];
    expect(names(limit(mixed))).toEqual(['a1', 'a2', 'a3', 'b1', 'a4', 'u1', 'a5']);
  });

  it('holds an untrusted source to two places, for trusted and untrusted hits alike', () => {
    const ranked = [
      hit('u1', 'u', true),
      hit('u2', 'u', true),
      hit('u3', 'u', true),
      hit('v1', 'v', true),
      hit('a1', 'a'),
      hit('u4', 'u', true),
    ];
    expect(names(limit(ranked))).toEqual(['u1', 'u2', 'v1', 'a1', 'u3', 'u4']);
  });

  it('exempts a source the query names, and a hit with no source', () => {
    const ranked = [
      hit('a1', 'a', false, true),
      hit('a2', 'a', false, true),
      hit('a3', 'a', false, true),
      hit('a4', 'a', false, true),
      hit('x', undefined),
      hit('b1', 'b'),
    ];
    expect(names(limit(ranked))).toEqual(['a1', 'a2', 'a3', 'a4', 'x', 'b1']);
  });

  it('only demotes: on 3,000 random rankings every move is one the limit may make', () => {
    const random = mulberry32(409);
    const pick = (n: number) => Math.floor(random() * n);
    for (let run = 0; run < 3000; run++) {
      const sources = Array.from({ length: 1 + pick(5) }, (_, i) => ({
        name: `s${i}`,
        untrusted: random() < 0.4,
        named: random() < 0.1,
      }));
      const ranked: Hit[] = Array.from({ length: pick(25) }, (_, i) => {
        if (random() < 0.1) return hit(`h${i}`, undefined, random() < 0.3);
        const source = sources[pick(sources.length)]!;
        return hit(`h${i}`, source.name, source.untrusted, source.named);
      });
      const max = 1 + pick(4);
      const rule: SourceLimit = { max, untrustedMax: 1 + pick(max), window: 8 };
      const window = 1 + pick(7);
      const out = limitSources(ranked, window, rule, (h) => h);
      const context = JSON.stringify({
        run,
        window,
        rule,
        ranked: ranked.map((h) => `${h.name}:${h.source ?? '-'}${h.untrusted ? '!' : ''}${h.named ? '*' : ''}`),
      });
      const share = (h: Hit) => (h.untrusted ? rule.untrustedMax! : rule.max);
      const inRank = new Map(ranked.map((h, i) => [h, i]));
      const outRank = new Map(out.map((h, i) => [h, i]));

      // Nothing dropped, nothing added.
      expect(new Set(out), context).toEqual(new Set(ranked));
      expect(out.length, context).toBe(ranked.length);
      for (const a of ranked) {
        for (const b of ranked) {
          if (!(inRank.get(a)! < inRank.get(b)! && outRank.get(b)! < outRank.get(a)!)) continue;
          // b passed a: a's source already held its share above a, the query does not name it …
          expect(a.source, context).toBeDefined();
          expect(a.named, context).toBe(false);
          expect(
            out.slice(0, outRank.get(a)).filter((h) => h.source === a.source && !h.named).length,
            context,
          ).toBeGreaterThanOrEqual(share(a));
          // … b took a place in the window, and b is at least as trusted as a.
          expect(outRank.get(b)!, context).toBeLessThan(window);
          expect(b.untrusted && !a.untrusted, context).toBe(false);
        }
      }
      // Past the window, the ranking's order.
      const rest = out.slice(window);
      expect(rest, context).toEqual([...rest].sort((x, y) => inRank.get(x)! - inRank.get(y)!));
      // A source over its share of the window is trusted, and each extra place went to it because nothing else could
      // take it: an untrusted hit ranked below it would otherwise have passed it (one comes no later than the first hit
      // after the window whose source has room), or no hit could (a query only one source answers gets a full answer).
      const first = out.slice(0, window);
      const full = (h: Hit) =>
        h.source !== undefined && !h.named && first.filter((f) => f.source === h.source && !f.named).length >= share(h);
      for (const { name } of sources) {
        const own = first.filter((h) => h.source === name && !h.named);
        if (!own.length || own.length <= share(own[0]!)) continue;
        const next = out.slice(window).find((h) => !full(h));
        const nothingElse = next === undefined;
        if (!nothingElse) expect(own[0]!.untrusted, context).toBe(false);
        for (const extra of own.slice(share(own[0]!)))
          expect(
            nothingElse ||
              ranked.some(
                (u) => u.untrusted && inRank.get(u)! > inRank.get(extra)! && outRank.get(u)! <= outRank.get(next)!,
              ),
            context,
          ).toBe(true);
        // With trusted hits only, that is the only way.
        if (ranked.every((h) => !h.untrusted)) expect(nothingElse, context).toBe(true);
      }
    }
  });
});

/** A small seeded generator (mulberry32): the same rankings on every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
