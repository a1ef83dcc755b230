/**
 * createTestContext() is built by the code that builds a real call's ctx in the host's workers
 * (boundary/tool-context.ts): the same handler, called once with a test context and once through a
 * real host (a Piscina worker), sees a frozen env, roots and options, callTool arguments that default
 * to {}, and a failed nested call thrown as an Error with its code.
 */
import { describe, expect, it } from 'vitest';
import { createTestContext } from 'toolshed/plugin';
import { fixture, fixtureOptions, withHost } from '../helpers.js';

const { report } = (await import(fixture('plugins', 'ctx-report', 'index.js'))) as {
  report: (args: { call: string }, ctx: unknown) => Promise<unknown>;
};
const options = { nested: { deep: [1] } };

/** What the handler reports from inside a real host, called as the model would call it. */
async function inHost(call: string): Promise<unknown> {
  const hostOptions = fixtureOptions([], {
    config: { plugins: [{ package: fixture('plugins', 'ctx-report'), trust: 'trusted', options }] },
  });
  return withHost(hostOptions, async (host) =>
    JSON.parse(await host.dispatch('ctx_report', { call }, { sessionId: 's1' })),
  );
}

describe('createTestContext and the real ctx', () => {
  it('agree on a nested call with no arguments: they default to {}', async () => {
    const real = await inHost('echo_args');
    const test = await report(
      { call: 'echo_args' },
      createTestContext({ options, sessionId: 's1', env: { A: 'a' }, callTool: (_name, args) => args }),
    );
    expect(real).toEqual({ frozen: { env: true, roots: true, options: true }, nested: { value: {} }, sessionId: 's1' });
    expect(test).toEqual(real);
  });

  it('agree on a failed nested call: an Error carrying its code', async () => {
    const real = await inHost('no_such_tool');
    const test = await report({ call: 'no_such_tool' }, createTestContext({ options, sessionId: 's1' }));
    expect(real).toMatchObject({ nested: { error: true, code: 'UNKNOWN_TOOL', message: 'string' } });
    expect(test).toEqual(real);
  });

  it('leaves the objects a test passed in unfrozen', () => {
    const roots = { read: ['/r'], write: ['/w'] };
    const mine = { nested: { deep: [1] } };
    const ctx = createTestContext({ roots, options: mine });
    expect([Object.isFrozen(ctx.roots.read), Object.isFrozen(ctx.options)]).toEqual([true, true]);
    expect([Object.isFrozen(roots.read), Object.isFrozen(mine.nested)]).toEqual([false, false]);
  });
});
