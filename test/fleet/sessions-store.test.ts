/**
 * Tool search's loaded sets in the state store, host by host: two hosts
 * sharing a real Redis server see one session's loaded set, concurrent
 * searches of one session on both keep each other's tools, and a store that
 * is down costs a session its loaded tools (one warning), never a listing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixtureOptions } from '../helpers.js';
import { killLeftoversAfterAll, FLEET_KEY, freePort, startStateServer, type StoreServer } from '../support/fleet.js';

killLeftoversAfterAll();

let store: StoreServer;
const hosts: ToolHost[] = [];

beforeAll(async () => {
  store = await startStateServer();
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(hosts.map((host) => host.close()));
  await store?.stop();
}, 60_000);

async function host(url: string, prefix: string): Promise<ToolHost> {
  const opened = await createToolHost(
    fixtureOptions(['catalog'], {
      env: { PATH: process.env.PATH, TOOLSHED_STATE_KEY: FLEET_KEY },
      config: { defer: ['*'], state: { store: url, prefix } },
    }),
  );
  hosts.push(opened);
  return opened;
}

const names = (tools: Array<{ function: { name: string } }>) => tools.map((tool) => tool.function.name);
const find = async (on: ToolHost, query: string, sessionId: string) =>
  JSON.parse(await on.dispatch('tool_search', { query, limit: 1 }, { sessionId })).tools.map(
    (t: { name: string }) => t.name,
  );

describe('loaded sets in a shared store', () => {
  it("shows a session's loaded tools on another host, and keeps concurrent searches of one session on two hosts", {
    timeout: 60_000,
  }, async () => {
    const [a, b] = await Promise.all([host(store.url, 'loaded-1:'), host(store.url, 'loaded-1:')]);
    expect(await find(a, 'post to a slack channel', 's1')).toEqual(['slack_send_message']);
    expect(names(await b.definitions({ sessionId: 's1' }))).toEqual(['tool_search', 'slack_send_message']);
    // Ten sessions, each searched on both hosts at once for two different tools: none loses one.
    const sessions = Array.from({ length: 10 }, (_, i) => `c${i}`);
    await Promise.all(
      sessions.flatMap((id) => [find(a, 'open a github issue', id), find(b, 'create a calendar event', id)]),
    );
    for (const id of sessions) {
      expect(names(await a.definitions({ sessionId: id })).sort()).toEqual([
        'calendar_create_event',
        'github_create_issue',
        'tool_search',
      ]);
    }
    // explain reports the sessions this host served, with the tools as it last read them.
    expect(
      a
        .explain()
        .search.sessions.find((session) => session.id === 'c0')
        ?.tools.sort(),
    ).toEqual(['calendar_create_event', 'github_create_issue']);
  });

  it('lists without loaded tools while the store is down, with one warning, and does not hang', {
    timeout: 60_000,
  }, async () => {
    const down = await host(`redis://127.0.0.1:${await freePort()}`, 'down:');
    const warnings: string[] = [];
    down.on('warning', (message) => warnings.push(message));
    const started = Date.now();
    // The search still answers (its hits are in the result), it just cannot load them.
    expect(await find(down, 'post to a slack channel', 's')).toEqual(['slack_send_message']);
    expect(names(await down.definitions({ sessionId: 's' }))).toEqual(['tool_search']);
    expect(names(await down.definitions({ sessionId: 's' }))).toEqual(['tool_search']);
    // Within a generous bound: the store fails fast, far before a client's 30 s timeout.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(warnings.filter((message) => message.includes('state store'))).toHaveLength(1);
  });
});
