/**
 * The host side of ctx.session, as plugin code that bypasses its own ctx would reach it: the
 * `session` method of the host RPC takes whatever arrives (objects for strings, strings that are
 * not JSON, unknown operations, another call's id), coerces it field by field, and scopes every
 * operation to the running call's session and plugin in the state store.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { hostRpc } from '#internal/core/runners/host-rpc.js';
import { sessionHook, StateScope } from '#internal/core/call/plugin-state.js';
import { MemoryStore } from '#internal/core/state/store.js';
import type { CallHooks } from '#internal/core/runners/runner.js';

const store = new MemoryStore();
afterAll(() => store.close());

/** An RPC endpoint with one running call, `call-1`, of plugin `stash` in session `s1`. */
function endpoint() {
  const hooks: CallHooks = {
    callTool: async () => ({ ok: true, text: '' }),
    session: sessionHook(store, new StateScope('s1'), 'stash', 60_000),
  };
  const calls = new Map([['call-1', hooks]]);
  return hostRpc(calls);
}

describe('the host RPC behind ctx.session', () => {
  const rpc = endpoint();
  const send = (request: unknown, callId = 'call-1') => rpc.session(callId, request as never);

  it('scopes a value to the call’s session and plugin, whatever the key says', async () => {
    expect(await send({ op: 'set', key: '../other/k', value: '"v"' })).toEqual({ ok: true });
    expect(await store.mapGet('plugin-state:session:s1:stash')).toEqual({
      '../other/k': expect.stringMatching(/^\d+:"v"$/),
    });
    expect(await send({ op: 'get', key: '../other/k' })).toEqual({ ok: true, value: '"v"' });
  });

  it('refuses what plugin code could send past its ctx', async () => {
    const refused = { ok: false, code: 'STATE_REFUSED' };
    expect(await send({ op: 'set', key: { toString: () => 'k' }, value: '1' })).toMatchObject({
      ...refused,
      message: 'ctx.session: a key must be a non-empty string',
    });
    expect(await send({ op: 'set', key: 'k', value: { not: 'text' } })).toMatchObject({
      ...refused,
      message: expect.stringContaining('the value is not JSON'),
    });
    expect(await send({ op: 'set', key: 'k', value: '{ not json' })).toMatchObject({
      ...refused,
      message: expect.stringContaining('the value is not JSON text'),
    });
    expect(await send({ op: 'set', key: 'k', value: `"${'x'.repeat(300_000)}"` })).toMatchObject({
      ...refused,
      message: expect.stringContaining('at most 262144 bytes'),
    });
    expect(await send({ op: 'set', key: 'k'.repeat(10_000), value: '1' })).toMatchObject({
      ...refused,
      message: expect.stringContaining('at most 256 characters'),
    });
    expect(await send({ op: 'set', key: 'k', value: '1', ttlMs: '1000' })).toMatchObject({
      ...refused,
      message: expect.stringContaining('ttlMs must be a positive number'),
    });
    expect(await send({ op: 'keys', key: '*' })).toEqual({ ...refused, message: 'ctx.session: unknown operation' });
    expect(await send(null)).toEqual({ ...refused, message: 'ctx.session: unknown operation' });
    expect(await send({ op: 'get', key: 'k' }, 'another-call')).toEqual({
      ...refused,
      message: 'ctx.session is only available to a handler while its call is running',
    });
    expect(await store.mapGet('plugin-state:session:s1:stash')).not.toHaveProperty('k');
  });

  it('gives a call without a session id a scope of its own, emptied when the call ends', async () => {
    const scope = new StateScope(undefined);
    const hook = sessionHook(store, scope, 'stash', 60_000);
    expect(await hook({ op: 'set', key: 'k', value: '1' })).toEqual({ ok: true });
    const key = scope.mapKey('stash');
    expect(key).toMatch(/^plugin-state:call:[0-9a-f-]{36}:stash$/);
    expect(await store.mapGet(key)).toHaveProperty('k');
    await scope.end(store);
    expect(await store.mapGet(key)).toEqual({});
    expect(new StateScope(undefined).mapKey('stash')).not.toBe(key);
  });
});
