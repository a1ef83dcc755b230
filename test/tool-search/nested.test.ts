/**
 * tool_search called by a plugin through ctx.callTool: a trusted plugin may
 * (it runs in the caller's session), an untrusted one may not (no grant names it).
 */
import { describe, expect, it } from 'vitest';
import { fixture, fixtureOptions, withHost } from '../helpers.js';

const RELAY = fixture('security', 'relay');
const options = (trust: 'trusted' | 'untrusted') => {
  const base = fixtureOptions(['catalog'], { config: { defer: ['github', 'slack'] } });
  const config = base.config as { plugins: unknown[] };
  return {
    ...base,
    config: {
      ...config,
      plugins: [...config.plugins, { package: RELAY, trust, grant: { callTools: ['echo_other'] } }],
    },
  } as typeof base;
};
const relay = async (host: { dispatch(n: string, a: unknown, o?: unknown): Promise<string> }) =>
  JSON.parse(
    await host.dispatch(
      'relay_call',
      { name: 'tool_search', args: { query: 'slack message', limit: 1 } },
      { sessionId: 'r' },
    ),
  );

describe('tool_search through ctx.callTool', () => {
  it('a trusted plugin may search, in the calling session', async () => {
    await withHost(options('trusted'), async (host) => {
      const out = await relay(host);
      expect(out.ok).toBe(true);
      expect(out.value.tools[0].name).toBe('slack_send_message');
      expect((await host.definitions({ sessionId: 'r' })).map((t) => t.function.name)).toContain('slack_send_message');
    });
  });

  it('an untrusted plugin may not: PERMISSION_DENIED, and nothing is loaded', async () => {
    await withHost(options('untrusted'), async (host) => {
      const out = await relay(host);
      expect(out).toMatchObject({ ok: false, code: 'PERMISSION_DENIED' });
      expect(out.message).toContain('untrusted plugin toolshed-plugin-relay');
      expect(host.explain().search.sessions).toEqual([]);
    });
  });
});
