/**
 * Quotas of an access rule: `callsPerMinute` counted in the state store per clock minute (the
 * memory store, and a real Valkey/Redis server shared by two hosts, stopped to see the quota
 * fail closed unless the rule says `onStoreDown: 'allow'`), `inFlight` counted per process.
 * Only the calls the identity makes count, not the nested calls its tools make. Over quota:
 * QUOTA_EXCEEDED, naming the quota and when to retry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type Identity, type ToolHost } from 'toolshed';
import { fixtureOptions, ManualClock } from '../helpers.js';
import { FLEET_KEY, killLeftoversAfterAll, startStateServer, type StoreServer } from '../support/fleet.js';

killLeftoversAfterAll();

const who = (subject: string): Identity => ({ subject, scopes: [], claims: { sub: subject } });
const parse = (text: string) => JSON.parse(text) as { error: string; code: string; retryAfterMs?: number };
/** 20 s into a clock minute, so a window has 40 s left. */
const minuteClock = () => new ManualClock(60_000 * 29_000_000 + 20_000);

describe('quota.callsPerMinute with the memory store', () => {
  const clock = minuteClock();
  let host: ToolHost;
  beforeAll(async () => {
    host = await createToolHost(
      fixtureOptions(['notes'], { clock, config: { access: [{ name: 'metered', quota: { callsPerMinute: 2 } }] } }),
    );
  }, 60_000);
  afterAll(() => host.close());

  it('refuses the call past the quota with when to retry, and admits again in the next minute', async () => {
    const alice = host.as(who('alice'));
    const bob = host.as(who('bob'));
    try {
      // summarize_note calls read_note through ctx.callTool: that nested call rides on its caller's.
      expect(await alice.dispatch('summarize_note', { id: 'a' })).toBe('summary of: note a');
      expect(await alice.dispatch('summarize_note', { id: 'b' })).toBe('summary of: note b');
      const over = parse(await alice.dispatch('read_note', { id: 'c' }));
      expect(over).toEqual({
        code: 'QUOTA_EXCEEDED',
        error:
          "alice has started its 2 calls for this minute under access rule 'metered' (quota.callsPerMinute); retry in 40 s",
        retryAfterMs: 40_000,
      });
      expect(await alice.call('read_note', { id: 'c' })).toMatchObject({
        ok: false,
        code: 'QUOTA_EXCEEDED',
        retryAfterMs: 40_000,
      });
      // Each identity has its own count; the host itself has no quota.
      expect(await bob.dispatch('read_note', { id: 'c' })).toBe('note c');
      expect(await host.dispatch('read_note', { id: 'c' })).toBe('note c');
      clock.advance(40_000);
      expect(await alice.dispatch('read_note', { id: 'c' })).toBe('note c');
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  it('counts refused calls too: an unknown tool, invalid arguments', async () => {
    clock.advance(60_000);
    const dana = host.as(who('dana'));
    try {
      expect(parse(await dana.dispatch('no_such_tool', {})).code).toBe('UNKNOWN_TOOL');
      expect(parse(await dana.dispatch('read_note', {})).code).toBe('INVALID_ARGUMENTS');
      expect(parse(await dana.dispatch('read_note', { id: 'a' })).code).toBe('QUOTA_EXCEEDED');
    } finally {
      await dana.close();
    }
  });

  it('counts the identity, not the view: a second view of it shares the count', async () => {
    clock.advance(60_000);
    const first = host.as(who('carol'));
    const second = host.as(who('carol'));
    try {
      expect(await first.dispatch('read_note', { id: 'a' })).toBe('note a');
      expect(await second.dispatch('read_note', { id: 'a' })).toBe('note a');
      expect(parse(await first.dispatch('read_note', { id: 'a' })).code).toBe('QUOTA_EXCEEDED');
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe('quota.callsPerMinute shared by two hosts through a Valkey or Redis server', () => {
  const clock = minuteClock();
  let server: StoreServer;
  let one: ToolHost;
  let two: ToolHost;
  const warnings: string[] = [];
  beforeAll(async () => {
    server = await startStateServer();
    const access = [
      { name: 'metered', when: { subject: ['alice', 'bob'] }, quota: { callsPerMinute: 3 } },
      { name: 'lenient', when: { subject: 'carol' }, quota: { callsPerMinute: 3, onStoreDown: 'allow' } },
    ];
    const options = () =>
      fixtureOptions(['notes'], {
        clock,
        env: { PATH: process.env.PATH, TOOLSHED_STATE_KEY: FLEET_KEY },
        config: { state: { store: server.url, prefix: 'quota-test:' }, access },
      });
    one = await createToolHost(options());
    two = await createToolHost(options());
    one.on('warning', (message) => warnings.push(message));
  }, 60_000);
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await server?.stop();
  });

  it('counts the calls made on either host against one quota', async () => {
    const onOne = one.as(who('alice'));
    const onTwo = two.as(who('alice'));
    try {
      expect(await onOne.dispatch('read_note', { id: 'a' })).toBe('note a');
      expect(await onTwo.dispatch('read_note', { id: 'b' })).toBe('note b');
      expect(await onOne.dispatch('read_note', { id: 'c' })).toBe('note c');
      expect(parse(await onTwo.dispatch('read_note', { id: 'd' }))).toMatchObject({
        code: 'QUOTA_EXCEEDED',
        retryAfterMs: 40_000,
      });
      expect(parse(await onOne.dispatch('read_note', { id: 'd' })).code).toBe('QUOTA_EXCEEDED');
    } finally {
      await onOne.close();
      await onTwo.close();
    }
  }, 60_000);

  // Past one call each, the outage is the stage's (test/unit/quota.test.ts: 0 of 5 under a quota
  // of 3, and one warning per rule however many calls): each call here waits for the client's next
  // reconnect to fail, and those come slower the longer the server is down.
  it('refuses calls while the store is down, unless the rule chose onStoreDown: allow, and tells the operator', async () => {
    const bob = one.as(who('bob'));
    const carol = one.as(who('carol'));
    try {
      await server.stop();
      expect(await bob.call('read_note', { id: 'n0' })).toEqual({
        ok: false,
        code: 'STATE_UNAVAILABLE',
        message:
          "bob's calls cannot be counted against quota.callsPerMinute of access rule 'metered': the state store is unreachable, so the call was refused (quota.onStoreDown: 'refuse'); retry when it is back",
      });
      // The operator's choice: carol's rule lets them through, uncounted.
      expect(await carol.dispatch('read_note', { id: 'a' })).toBe('note a');
      // One warning per rule for the outage, naming what is in force.
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
    } finally {
      await bob.close();
      await carol.close();
    }
  }, 60_000);
});

describe('quota.inFlight', () => {
  let host: ToolHost;
  let release: () => void = () => {};
  let entered: () => void = () => {};
  beforeAll(async () => {
    host = await createToolHost(
      fixtureOptions(['kitchen'], { config: { access: [{ name: 'one-at-a-time', quota: { inFlight: 1 } }] } }),
    );
    // A call asked to hold waits here, admitted and running, until the test releases it.
    host.use({
      beforeCall: async (call) => {
        if ((call.args as { hold?: boolean }).hold) {
          entered();
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        }
      },
    });
  }, 60_000);
  afterAll(() => host.close());

  it('refuses a second call while one runs, and admits it once that one ended', async () => {
    const alice = host.as(who('alice'));
    const bob = host.as(who('bob'));
    try {
      const running = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const first = alice.dispatch('slow', { ms: 10, hold: true });
      await running;
      expect(parse(await alice.dispatch('echo', { x: 1 }))).toEqual({
        code: 'QUOTA_EXCEEDED',
        error:
          "alice already has 1 call running, the most access rule 'one-at-a-time' allows at once (quota.inFlight); retry when one ends",
      });
      expect(await bob.dispatch('echo', { x: 2 })).toBe('{"x":2}');
      release();
      expect(await first).toBe('waited 10');
      expect(await alice.dispatch('echo', { x: 3 })).toBe('{"x":3}');
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  it('frees the slot of a call that failed', async () => {
    const alice = host.as(who('alice'));
    try {
      expect(parse(await alice.dispatch('throws', {})).code).toBe('TOOL_FAILED');
      expect(parse(await alice.dispatch('no_such_tool', {})).code).toBe('UNKNOWN_TOOL');
      expect(await alice.dispatch('echo', { x: 4 })).toBe('{"x":4}');
    } finally {
      await alice.close();
    }
  });
});
