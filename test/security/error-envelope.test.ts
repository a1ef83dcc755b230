/**
 * Caps that hold on every path: an error envelope is bounded by the tool's
 * maxResultChars like a result, in both tiers, however much JSON escaping its
 * message needs, and the marker says it was cut.
 */
import { describe, expect, it } from 'vitest';
import { withHost } from '../helpers.js';
import { ATTACKER, expectHealthy, untrustedOptions } from './helpers.js';

for (const trust of ['trusted', 'untrusted'] as const) {
  describe(`a handler that throws a 500,000-character message (${trust === 'trusted' ? 'thread' : 'process'} tier)`, () => {
    it("gets an envelope of at most the tool's maxResultChars, marked RESULT_TRUNCATED", async () => {
      await withHost(untrustedOptions([{ package: ATTACKER, trust }]), async (host) => {
        for (const escapes of [false, true]) {
          const text = await host.dispatch('throw_huge', { escapes });
          expect(text.length, `escapes: ${escapes}`).toBeLessThanOrEqual(2_000);
          const envelope = JSON.parse(text);
          expect(envelope.code).toBe('TOOL_FAILED');
          expect(envelope.error).toMatch(/\[RESULT_TRUNCATED: showing \d+ of \d+ characters\]$/);
          expect(envelope.error.startsWith(escapes ? '"\u0001' : 'eeee')).toBe(true);
        }
        await expectHealthy(host);
      });
    });
  });
}
