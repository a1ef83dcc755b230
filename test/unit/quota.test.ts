/**
 * The quotas of an access rule on the stage (core/access/quota.ts), with a store in memory that
 * fails on demand and the test clock: `callsPerMinute` through an outage (refused, or let through
 * uncounted under `onStoreDown: 'allow'`, one warning per rule), `inFlight` counted per identity.
 * Through hosts, with a real Valkey/Redis server stopped mid-test: test/auth/access-quota.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Identity } from 'toolshed';
import { Quotas, type RuleQuota } from '#internal/core/access/quota.js';
import { MemoryStore } from '#internal/core/state/store.js';
import { ManualClock } from '../helpers.js';

const who = (subject: string, issuer?: string): Identity => ({
  subject,
  scopes: [],
  claims: { sub: subject },
  ...(issuer ? { issuer } : {}),
});

/** A memory store whose increments fail while `down`. */
class FlakyStore extends MemoryStore {
  down = false;
  override async increment(key: string, by: number, ttlMs: number): Promise<number> {
    if (this.down) throw new Error('state store unreachable: connect ECONNREFUSED');
    return super.increment(key, by, ttlMs);
  }
}

/** Quotas over a flaky store on a clock 20 s into a minute; `admit` ends each admitted call at once. */
function quotasOf() {
  const clock = new ManualClock(60_000 * 29_000_000 + 20_000);
  const store = new FlakyStore(clock);
  const warnings: string[] = [];
  const quotas = new Quotas({ store, clock, warn: (message) => warnings.push(message) });
  const admit = async (identity: Identity, quota: RuleQuota) => {
    const admission = await quotas.admit(identity, quota);
    if ('release' in admission) admission.release();
    return 'refused' in admission ? admission.refused : undefined;
  };
  return { clock, store, warnings, quotas, admit };
}

describe('quota.callsPerMinute while the state store is down', () => {
  const metered: RuleQuota = { rule: 'metered', limits: { callsPerMinute: 3 } };
  const lenient: RuleQuota = { rule: 'lenient', limits: { callsPerMinute: 3, onStoreDown: 'allow' } };

  it('refuses every call (0 of 5 under a quota of 3) unless the rule chose onStoreDown: allow, and warns once per rule', async () => {
    const { store, warnings, admit } = quotasOf();
    try {
      store.down = true;
      const refusals = [];
      for (let i = 0; i < 5; i++) refusals.push(await admit(who('bob'), metered));
      expect(refusals.filter((refused) => refused === undefined)).toHaveLength(0);
      expect(refusals[0]).toEqual({
        ok: false,
        code: 'STATE_UNAVAILABLE',
        message:
          "bob's calls cannot be counted against quota.callsPerMinute of access rule 'metered': the state store is unreachable, so the call was refused (quota.onStoreDown: 'refuse'); retry when it is back",
      });
      // The operator's choice: carol's rule lets them through, uncounted (past its quota of 3).
      for (let i = 0; i < 5; i++) expect(await admit(who('carol'), lenient)).toBeUndefined();
      expect(
        warnings.filter((w) =>
          w.startsWith(
            "quota.callsPerMinute of access rule 'metered' refuses calls while the state store fails (quota.onStoreDown: 'refuse')",
          ),
        ),
      ).toHaveLength(1);
      expect(
        warnings.filter((w) =>
          w.startsWith(
            "quota.callsPerMinute of access rule 'lenient' is not enforced while the state store fails (quota.onStoreDown: 'allow')",
          ),
        ),
      ).toHaveLength(1);
      expect(warnings).toHaveLength(2);
    } finally {
      await store.close();
    }
  });
});

describe('quota.callsPerMinute counting', () => {
  const metered: RuleQuota = { rule: 'metered', limits: { callsPerMinute: 2 } };

  it('counts per identity, its issuer included, and admits again in the next clock minute', async () => {
    const { clock, store, admit } = quotasOf();
    try {
      expect(await admit(who('alice'), metered)).toBeUndefined();
      expect(await admit(who('alice'), metered)).toBeUndefined();
      expect(await admit(who('alice'), metered)).toEqual({
        ok: false,
        code: 'QUOTA_EXCEEDED',
        message:
          "alice has started its 2 calls for this minute under access rule 'metered' (quota.callsPerMinute); retry in 40 s",
        retryAfterMs: 40_000,
      });
      // Another subject, and the same subject from another issuer, have counts of their own.
      expect(await admit(who('bob'), metered)).toBeUndefined();
      expect(await admit(who('alice', 'https://other.example'), metered)).toBeUndefined();
      clock.advance(39_999);
      expect(await admit(who('alice'), metered)).toMatchObject({ code: 'QUOTA_EXCEEDED', retryAfterMs: 1 });
      clock.advance(1);
      expect(await admit(who('alice'), metered)).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe('quota.inFlight', () => {
  const one: RuleQuota = { rule: 'one-at-a-time', limits: { inFlight: 1 } };

  it("refuses an identity's second call while its first runs, admits others, and admits again once the first is released", async () => {
    const { store, quotas } = quotasOf();
    try {
      const first = await quotas.admit(who('alice'), one);
      if (!('release' in first)) throw new Error('the first call was refused');
      expect(await quotas.admit(who('alice'), one)).toEqual({
        refused: {
          ok: false,
          code: 'QUOTA_EXCEEDED',
          message:
            "alice already has 1 call running, the most access rule 'one-at-a-time' allows at once (quota.inFlight); retry when one ends",
        },
      });
      const bob = await quotas.admit(who('bob'), one);
      expect(bob).toHaveProperty('release');
      first.release();
      const again = await quotas.admit(who('alice'), one);
      expect(again).toHaveProperty('release');
    } finally {
      await store.close();
    }
  });

  it('frees the slot of a call refused by its minute quota', async () => {
    const { store, quotas } = quotasOf();
    const both: RuleQuota = { rule: 'both', limits: { inFlight: 1, callsPerMinute: 1 } };
    try {
      const first = await quotas.admit(who('alice'), both);
      if (!('release' in first)) throw new Error('the first call was refused');
      first.release();
      // Over the minute's quota: refused, and its inFlight slot is not kept.
      expect(await quotas.admit(who('alice'), both)).toMatchObject({
        refused: { code: 'QUOTA_EXCEEDED', message: expect.stringContaining('quota.callsPerMinute') },
      });
      expect(await quotas.admit(who('alice'), both)).toMatchObject({
        refused: { message: expect.stringContaining('quota.callsPerMinute') },
      });
    } finally {
      await store.close();
    }
  });
});
