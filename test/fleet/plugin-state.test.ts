/**
 * Plugins' ctx.session on a fleet: two hosts sharing a real Redis server, a host on the default
 * memory store, and a host whose store is down. The fixture plugins (test/fixtures/plugin-state)
 * run in both tiers (stash-a trusted, in worker threads; stash-b untrusted, in its own child
 * process) and reach for what they must not: other sessions, other plugins, keys that look like
 * paths or store keys, huge and non-JSON values, a ctx kept after its call ended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixture, fixtureOptions, ManualClock } from '../helpers.js';
import { killLeftoversAfterAll, FLEET_KEY, freePort, startStateServer, type StoreServer } from '../support/fleet.js';

killLeftoversAfterAll();

let server: StoreServer;
let first: ToolHost;
let second: ToolHost;
let memory: ToolHost;
let down: ToolHost;
let unreachable: string;
/** the memory host's clock: its store expires values on it (a Redis server expires them on its own) */
const memoryClock = new ManualClock(Date.now());

/** A host with both stash plugins on `store`; stash-b may call stash-a's a_get and a_set. */
function host(store: string, sessionTtlMs = 3_600_000, clock?: ManualClock): Promise<ToolHost> {
  return createToolHost(
    fixtureOptions([], {
      env: { PATH: process.env.PATH, TOOLSHED_STATE_KEY: FLEET_KEY },
      ...(clock ? { clock } : {}),
      config: {
        plugins: [
          { package: fixture('plugin-state', 'stash-a'), trust: 'trusted' },
          { package: fixture('plugin-state', 'stash-b'), trust: 'untrusted', grant: { callTools: ['a_get', 'a_set'] } },
        ],
        state: { store, prefix: 'plugin-state-test:', sessionTtlMs },
        limits: { threads: 1 },
      },
    }),
  );
}

/**
 * A tool's result, parsed when it is an object (the call must succeed: the fixture reports ctx.session's errors as
 * values).
 */
async function call(on: ToolHost, name: string, args: Record<string, unknown>, sessionId?: string): Promise<any> {
  const outcome = await on.call(name, args, sessionId === undefined ? {} : { sessionId });
  if (!outcome.ok) throw new Error(`${name} failed: ${outcome.code}: ${outcome.message}`);
  return outcome.text.startsWith('{') ? JSON.parse(outcome.text) : outcome.text;
}

beforeAll(async () => {
  server = await startStateServer();
  unreachable = `redis://127.0.0.1:${await freePort()}`;
  [first, second, memory, down] = await Promise.all([
    host(server.url),
    host(server.url),
    host('memory', 1_000, memoryClock),
    host(unreachable),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([first, second, memory, down].map((each) => each?.close()));
  await server?.stop();
});

describe.each(['a', 'b'])('ctx.session of stash-%s (a: thread tier, b: process tier)', (p) => {
  it('a value set through one host is read through the other', async () => {
    const session = `shared-${p}`;
    expect(await call(first, `${p}_set`, { key: 'list', value: { todos: ['one', 'two'] } }, session)).toEqual({
      ok: true,
      value: null,
    });
    expect(await call(second, `${p}_get`, { key: 'list' }, session)).toEqual({
      sessionId: session,
      ok: true,
      value: { todos: ['one', 'two'] },
    });
    expect(await call(second, `${p}_delete`, { key: 'list' }, session)).toEqual({ ok: true, value: null });
    expect((await call(first, `${p}_get`, { key: 'list' }, session)).value).toBeNull();
  });

  it('keeps sessions and plugins apart, whatever the key', async () => {
    const other = p === 'a' ? 'b' : 'a';
    const keys = [
      'k',
      `../${other}/k`,
      '../../k',
      `plugin-state:session:s2:stash-${other}`,
      'plugin-state:session:s2:stash-a:k',
      '*',
      '',
    ];
    for (const key of keys.slice(0, -1))
      expect((await call(first, `${p}_set`, { key, value: key }, `s1-${p}`)).ok).toBe(true);
    for (const key of keys.slice(0, -1)) {
      expect((await call(second, `${p}_get`, { key }, `s1-${p}`)).value).toBe(key);
      expect((await call(second, `${p}_get`, { key }, `s2-${p}`)).value).toBeNull();
      expect((await call(second, `${other}_get`, { key }, `s1-${p}`)).value).toBeNull();
      expect((await call(second, `${p}_get`, { key })).value).toBeNull();
    }
    expect(await call(first, `${p}_set`, { key: '', value: 1 }, `s1-${p}`)).toMatchObject({
      ok: false,
      code: 'STATE_REFUSED',
      message: 'ctx.session: a key must be a non-empty string',
    });
  });

  it('refuses huge keys, huge values, too much in all, bad ttls and non-JSON values, with STATE_REFUSED', async () => {
    const session = `limits-${p}`;
    expect(await call(first, `${p}_set`, { key: 'k'.repeat(257), value: 1 }, session)).toMatchObject({
      ok: false,
      code: 'STATE_REFUSED',
      message: expect.stringContaining('at most 256 characters'),
    });
    expect(await call(first, `${p}_set`, { key: 'k'.repeat(256), value: 1 }, session)).toMatchObject({ ok: true });
    expect(await call(first, `${p}_set`, { key: 'big', value: 'x'.repeat(262_143) }, session)).toMatchObject({
      ok: false,
      code: 'STATE_REFUSED',
      message: expect.stringContaining('at most 262144 bytes of JSON; this one has 262145'),
    });
    expect(await call(first, `${p}_set`, { key: 'ttl', value: 1, ttlMs: -1 }, session)).toMatchObject({
      ok: false,
      code: 'STATE_REFUSED',
      message: expect.stringContaining('ttlMs must be a positive number'),
    });
    for (const kind of ['function', 'bigint', 'undefined', 'circular']) {
      expect(await call(first, `${p}_set_bad`, { kind }, session)).toMatchObject({
        ok: false,
        code: 'STATE_REFUSED',
        message: expect.stringContaining('the value is not JSON'),
      });
    }
    // Five values of 200,002 bytes (and a 262-byte key) fit in 1 MiB; the sixth does not, and is not stored.
    expect(await call(second, `${p}_fill`, { count: 10, bytes: 200_000 }, session)).toMatchObject({
      stored: 5,
      ok: false,
      code: 'STATE_REFUSED',
      message: expect.stringContaining('at most 1048576 bytes in a session'),
    });
    expect((await call(first, `${p}_get`, { key: 'fill-5' }, session)).value).toBeNull();
    // Another session has its own allowance.
    expect(await call(first, `${p}_fill`, { count: 2, bytes: 200_000 }, `${session}-other`)).toEqual({
      stored: 2,
      ok: true,
    });
  });

  it('refuses a ctx kept past the end of its call', async () => {
    expect(await call(first, `${p}_leak`, {}, `leak-${p}`)).toBe('kept');
    const late = await call(first, `${p}_use_leaked`, { key: 'late' }, `leak-${p}`);
    const refused = {
      ok: false,
      code: 'STATE_REFUSED',
      message: 'ctx.session is only available to a handler while its call is running',
    };
    expect(late).toEqual({ set: refused, get: refused });
    expect((await call(second, `${p}_get`, { key: 'late' }, `leak-${p}`)).value).toBeNull();
  });

  it('a value expires after its ttlMs', async () => {
    const session = `ttl-${p}`;
    await call(first, `${p}_set`, { key: 'short', value: 'soon gone', ttlMs: 300 }, session);
    await call(first, `${p}_set`, { key: 'long', value: 'stays' }, session);
    // Redis expires it on its own clock: the test waits until it has.
    await expect
      .poll(async () => (await call(second, `${p}_get`, { key: 'short' }, session)).value, { timeout: 20_000 })
      .toBeNull();
    expect((await call(second, `${p}_get`, { key: 'long' }, session)).value).toBe('stays');
  });
});

describe('a call without a session id', () => {
  it('shares state with the calls it makes through ctx.callTool, and with no other request', async () => {
    // a_call → a_set writes in the call's own scope; a_call then reads it there.
    expect(await call(first, 'a_call', { tool: 'a_set', args: { key: 'n', value: 1 }, key: 'n' })).toEqual({
      called: { ok: true, value: null },
      here: 1,
    });
    // An untrusted plugin's chain too: b_call → a_set, then b reads its own (empty) state and a reads a's.
    expect(await call(first, 'b_call', { tool: 'a_set', args: { key: 'n', value: 2 }, key: 'n' })).toEqual({
      called: { ok: true, value: null },
      here: null,
    });
    expect(await call(first, 'b_call', { tool: 'a_get', args: { key: 'n' }, key: 'n' })).toMatchObject({
      called: { sessionId: null, value: null },
    });
    // Nothing of those calls is left for the next request, on this host or another.
    expect((await call(first, 'a_get', { key: 'n' })).value).toBeNull();
    expect((await call(second, 'a_get', { key: 'n' })).value).toBeNull();
    expect(await call(first, 'a_set', { key: 'alone', value: 1 })).toEqual({ ok: true, value: null });
    expect((await call(first, 'a_get', { key: 'alone' })).value).toBeNull();
  });

  it('a nested call in a session writes in that session (its own plugin)', async () => {
    expect(
      (await call(first, 'b_call', { tool: 'a_set', args: { key: 'via-b', value: 'nested' } }, 'nested')).called,
    ).toEqual({ ok: true, value: null });
    expect((await call(second, 'a_get', { key: 'via-b' }, 'nested')).value).toBe('nested');
    expect((await call(second, 'b_get', { key: 'via-b' }, 'nested')).value).toBeNull();
  });
});

describe('the memory store (the default), within one host', () => {
  it('keeps a session across calls in both tiers, and caps ttlMs at state.sessionTtlMs', async () => {
    for (const p of ['a', 'b']) {
      await call(memory, `${p}_set`, { key: 'k', value: [p], ttlMs: 3_600_000 }, 'mem');
      expect((await call(memory, `${p}_get`, { key: 'k' }, 'mem')).value).toEqual([p]);
      expect((await call(memory, `${p}_get`, { key: 'k' }, 'other')).value).toBeNull();
    }
    // sessionTtlMs is 1000 on this host: the hour asked for is cut to a second.
    memoryClock.advance(999);
    expect((await call(memory, 'a_get', { key: 'k' }, 'mem')).value).toEqual(['a']);
    memoryClock.advance(1);
    expect((await call(memory, 'a_get', { key: 'k' }, 'mem')).value).toBeNull();
  });
});

describe('a state store that is down', () => {
  it('fails ctx.session fast with STATE_UNAVAILABLE, and the rest of the call works', async () => {
    for (const p of ['a', 'b']) {
      const started = Date.now();
      const result = await call(down, `${p}_get`, { key: 'k' }, 'down');
      expect(result).toMatchObject({
        sessionId: 'down',
        ok: false,
        code: 'STATE_UNAVAILABLE',
        message: expect.stringContaining("ctx.session: the state store could not get 'k'"),
      });
      // Well before an MCP client's 30 s timeout.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(await call(down, `${p}_set`, { key: 'k', value: 1 }, 'down')).toMatchObject({
        ok: false,
        code: 'STATE_UNAVAILABLE',
      });
      expect(await call(down, `${p}_leak`, {}, 'down')).toBe('kept');
    }
  });
});
