/**
 * The stand-in hosts' one forwarder (core/host/forward.ts) and the reloading host's count of calls
 * in flight (core/host/reloading-host.ts), on the stage: which host each member reaches, what waits,
 * and when a swapped-out host is idle. Through real hosts: test/mcp/reloading-host.test.ts,
 * test/fleet/ops.test.ts (the opening host).
 */
import { describe, expect, it } from 'vitest';
import { forwardingHost, MEMBERS, type LaterMember } from '#internal/core/host/forward.js';
import { InFlight } from '#internal/core/host/reloading-host.js';
import type { ToolHost } from 'toolshed';

/** A host whose every member says which host answered. */
function fakeHost(name: string): ToolHost {
  const host = {
    config: { root: name },
    state: name,
    clock: name,
    explain: () => `${name}: explain`,
    invalidateChecks: () => `${name}: invalidated`,
    use: () => () => {},
    view: () => host,
    as: () => host,
    definitions: async () => [`${name}: definitions`],
    dispatch: async (tool: string) => `${name}: ${tool}`,
    call: async (tool: string) => ({ ok: true, text: `${name}: ${tool}` }),
    refresh: async () => `${name}: refresh`,
    acceptDefinitions: async () => [],
    on: () => host,
    off: () => host,
    close: async () => {},
  };
  return host as unknown as ToolHost;
}

/** A stand-in over `current()`, logging which members went through `later`. */
function standIn(current: () => ToolHost, waited: LaterMember[]) {
  return forwardingHost<ToolHost>(
    {
      now: current,
      later: (member, use) => {
        waited.push(member);
        return use(current());
      },
    },
    { on: () => undefined as never, off: () => undefined as never, close: async () => {} },
  );
}

describe('the forwarding host', () => {
  it('reads values and calls synchronous members on the host of the moment', () => {
    let current = fakeHost('a');
    const host = standIn(() => current, []);
    expect(host.state).toBe('a');
    expect(host.explain()).toBe('a: explain');
    current = fakeHost('b');
    expect(host.state).toBe('b');
    expect(host.invalidateChecks()).toBe('b: invalidated');
  });

  it('sends asynchronous members through `later`, and answers with the stand-in where the host answers itself', async () => {
    const waited: LaterMember[] = [];
    const host = standIn(() => fakeHost('a'), waited);
    expect(await host.dispatch('read')).toBe('a: read');
    expect(await host.call('read')).toEqual({ ok: true, text: 'a: read' });
    await host.refresh();
    expect(waited).toEqual(['dispatch', 'call', 'refresh']);
    expect(host.view({})).toBe(host);
  });

  it('keeps the members the stand-in implements itself', () => {
    const own = () => 'own explain';
    const host = forwardingHost<ToolHost>(
      { now: () => fakeHost('a'), later: (_member, use) => use(fakeHost('a')) },
      { explain: own as never, on: () => undefined as never, off: () => undefined as never, close: async () => {} },
    );
    expect(host.explain()).toBe('own explain');
    expect(Object.keys(MEMBERS).every((member) => member in host)).toBe(true);
  });
});

describe('calls in flight on a host', () => {
  it('is idle at once with no call, and once its last call ends otherwise', async () => {
    const inFlight = new InFlight();
    const host = fakeHost('a');
    await inFlight.idle(host);
    let finish!: () => void;
    const running = inFlight.run(host, () => new Promise<string>((resolve) => (finish = () => resolve('done'))));
    let idle = false;
    const waiting = inFlight.idle(host).then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    finish();
    expect(await running).toBe('done');
    await waiting;
    expect(idle).toBe(true);
  });
});
