/**
 * The decisions of `quota.callsPerMinute`, pure and with a store that fails: past the quota,
 * QUOTA_EXCEEDED with the time left in the minute (the project's Clock); while the store cannot
 * count, STATE_UNAVAILABLE naming the store unless the rule chose `onStoreDown: 'allow'`, one
 * warning per rule and outage, and counting again once the store answers.
 */
import { describe, expect, it } from 'vitest';
import type { Identity } from 'toolshed';
import { minuteDecision, Quotas, storeDownDecision, type RuleQuota } from '#internal/core/access/quota.js';
import { MemoryStore } from '#internal/core/state/store.js';
import { ManualClock } from '../helpers.js';

const alice: Identity = { subject: 'alice', scopes: [], claims: { sub: 'alice' } };
const metered: RuleQuota = { rule: 'metered', limits: { callsPerMinute: 2 } };
const lenient: RuleQuota = { rule: 'lenient', limits: { callsPerMinute: 2, onStoreDown: 'allow' } };

describe('minuteDecision', () => {
  it('admits up to the quota and refuses past it with the time left in the clock minute', () => {
    const now = 60_000 * 100 + 15_500;
    expect(minuteDecision(alice, metered, 2, now)).toBeUndefined();
    expect(minuteDecision(alice, metered, 3, now)).toEqual({
      ok: false,
      code: 'QUOTA_EXCEEDED',
      message:
        "alice has started its 2 calls for this minute under access rule 'metered' (quota.callsPerMinute); retry in 45 s",
      retryAfterMs: 44_500,
    });
  });
});

describe('storeDownDecision', () => {
  it('refuses with STATE_UNAVAILABLE naming the store by default, and says so to the operator', () => {
    const { refused, warning } = storeDownDecision(alice, metered, 'state store unreachable: connect ECONNREFUSED');
    expect(refused).toMatchObject({ ok: false, code: 'STATE_UNAVAILABLE' });
    expect(refused && !refused.ok && refused.message).toContain(
      'the state store is unreachable, so the call was refused',
    );
    expect(warning).toBe(
      "quota.callsPerMinute of access rule 'metered' refuses calls while the state store fails (quota.onStoreDown: 'refuse'): state store unreachable: connect ECONNREFUSED",
    );
  });

  it("lets the call through with onStoreDown: 'allow', and the warning says it is not enforced", () => {
    const { refused, warning } = storeDownDecision(alice, lenient, 'down');
    expect(refused).toBeUndefined();
    expect(warning).toBe(
      "quota.callsPerMinute of access rule 'lenient' is not enforced while the state store fails (quota.onStoreDown: 'allow'): down",
    );
  });
});

/** A memory store whose increments fail while `down`. */
class FlakyStore extends MemoryStore {
  down = false;
  override async increment(key: string, by: number, ttlMs: number): Promise<number> {
    if (this.down) throw new Error('state store unreachable: connect ECONNREFUSED');
    return super.increment(key, by, ttlMs);
  }
}

describe('Quotas with a store that fails', () => {
  it('refuses while the store is down, warns once per rule and outage, and counts again once it answers', async () => {
    const clock = new ManualClock(60_000 * 100);
    const store = new FlakyStore(clock);
    const warnings: string[] = [];
    const quotas = new Quotas({ store, clock, warn: (message) => warnings.push(message) });
    try {
      const admit = async (quota: RuleQuota) => {
        const admission = await quotas.admit(alice, quota);
        if ('release' in admission) admission.release();
        return 'refused' in admission ? admission.refused : undefined;
      };
      expect(await admit(metered)).toBeUndefined();
      store.down = true;
      for (let i = 0; i < 3; i++) expect(await admit(metered)).toMatchObject({ code: 'STATE_UNAVAILABLE' });
      for (let i = 0; i < 3; i++) expect(await admit(lenient)).toBeUndefined();
      expect(warnings.map((w) => /access rule '(\w+)' (refuses|is not enforced)/.exec(w)?.slice(1))).toEqual([
        ['metered', 'refuses'],
        ['lenient', 'is not enforced'],
      ]);
      // Back: the count goes on where it was (1 of 2), and the next outage is told again.
      store.down = false;
      expect(await admit(metered)).toBeUndefined();
      expect(await admit(metered)).toMatchObject({ code: 'QUOTA_EXCEEDED', retryAfterMs: 60_000 });
      store.down = true;
      expect(await admit(metered)).toMatchObject({ code: 'STATE_UNAVAILABLE' });
      expect(warnings).toHaveLength(3);
    } finally {
      await store.close();
    }
  });
});
