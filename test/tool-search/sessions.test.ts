/**
 * Per-session loaded sets: isolated between sessions, bounded (LRU of
 * sessions, least recently found tool past maxTools), expired after a TTL,
 * and shown by explain.
 */
import { describe, expect, it } from 'vitest';
import type { OpenAITool, ToolHost } from 'toolshed';
import { fixtureOptions, ManualClock, withHost } from '../helpers.js';

const names = (tools: OpenAITool[]) => tools.map((t) => t.function.name);
const find = async (host: ToolHost, query: string, sessionId: string) => {
  const text = await host.dispatch('tool_search', { query, limit: 1 }, { sessionId });
  return (JSON.parse(text) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
};
const options = (sessions: Record<string, number>, clock = new ManualClock()) =>
  fixtureOptions(['catalog'], { clock, config: { defer: ['*'], search: { sessions } } });

describe('per-session loaded sets', () => {
  it('keep sessions apart and show in explain', async () => {
    const clock = new ManualClock();
    await withHost(options({}, clock), async (host) => {
      expect(await find(host, 'github issue', 'alice')).toEqual(['github_create_issue']);
      clock.advance(500);
      expect(await find(host, 'slack message', 'bob')).toEqual(['slack_send_message']);
      expect(names(await host.definitions({ sessionId: 'alice' }))).toEqual(['tool_search', 'github_create_issue']);
      expect(names(await host.definitions({ sessionId: 'bob' }))).toEqual(['tool_search', 'slack_send_message']);
      clock.advance(250);
      // Most recently used first; alice was just used by definitions().
      expect(host.explain().search.sessions).toEqual([
        { id: 'bob', tools: ['slack_send_message'], idleMs: 250 },
        { id: 'alice', tools: ['github_create_issue'], idleMs: 250 },
      ]);
    });
  });

  it('drop the least recently used session past sessions.max', async () => {
    await withHost(options({ max: 2 }), async (host) => {
      await find(host, 'github issue', 's1');
      await find(host, 'slack message', 's2');
      await host.definitions({ sessionId: 's1' }); // s1 is now more recent than s2
      await find(host, 'calendar event', 's3');
      expect(host.explain().search.sessions.map((s) => s.id)).toEqual(['s3', 's1']);
      expect(names(await host.definitions({ sessionId: 's2' }))).toEqual(['tool_search']);
      expect(names(await host.definitions({ sessionId: 's1' }))).toEqual(['tool_search', 'github_create_issue']);
    });
  });

  it('expire a session unused for sessions.ttlMs; any use restarts the clock', async () => {
    const clock = new ManualClock();
    await withHost(options({ ttlMs: 1000 }, clock), async (host) => {
      await find(host, 'github issue', 'a');
      await find(host, 'slack message', 'b');
      clock.advance(800);
      await host.definitions({ sessionId: 'a' });
      clock.advance(400);
      expect(names(await host.definitions({ sessionId: 'a' }))).toEqual(['tool_search', 'github_create_issue']);
      expect(names(await host.definitions({ sessionId: 'b' }))).toEqual(['tool_search']);
      clock.advance(1001);
      expect(names(await host.definitions({ sessionId: 'a' }))).toEqual(['tool_search']);
      expect(host.explain().search.sessions).toEqual([]);
    });
  });

  it('unload the least recently found tool past sessions.maxTools, keeping load order for the rest', async () => {
    const clock = new ManualClock();
    await withHost(options({ maxTools: 2 }, clock), async (host) => {
      await find(host, 'github issue', 's');
      clock.advance(1);
      await find(host, 'slack message', 's');
      clock.advance(1);
      await find(host, 'github issue', 's'); // found again: now the most recently found
      clock.advance(1);
      await find(host, 'calendar event', 's');
      expect(names(await host.definitions({ sessionId: 's' }))).toEqual([
        'tool_search',
        'github_create_issue',
        'calendar_create_event',
      ]);
    });
  });
});
