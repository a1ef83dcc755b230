/**
 * What reaches a replica through the state store's channels, with real processes: two
 * `serve --http --stateless` replicas sharing a real Redis server, and a writer on that server
 * who does not have the fleet's key. While a replica waits on its reply channel for the answer to
 * a held call it forwarded, the writer puts a message that is not JSON and a forged answer there:
 * the replica stays up, drops and counts both (stderr, /metrics), and returns the real answer.
 * A replica without the fleet's key does not start.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixture, tempDir } from '../helpers.js';
import { textOf } from '../mcp/setup.js';
import {
  killLeftoversAfterAll,
  startReplica,
  startStateServer,
  type Replica,
  type StoreServer,
} from '../support/fleet.js';

killLeftoversAfterAll();

const PREFIX = 'store-messages:';
const work = tempDir('toolshed-store-messages-');
const config = path.join(work.dir, 'toolshed.config.json');
let store: StoreServer;
let writer: Redis;
let replicas: Replica[] = [];
const open: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  store = await startStateServer();
  writer = new Redis(store.url, { lazyConnect: true });
  await writer.connect();
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"store-messages","private":true}');
  writeFileSync(
    config,
    JSON.stringify({
      builtins: false,
      cache: { enabled: false },
      plugins: [{ package: fixture('plugins', 'kitchen'), trust: 'trusted' }],
      approve: ['slow'],
      state: { store: store.url, prefix: PREFIX },
    }),
  );
  replicas = await Promise.all([0, 1].map(() => startReplica({ cwd: work.dir, config, stateless: true })));
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(open.map((client) => client.close()));
  await Promise.allSettled(replicas.map((replica) => replica.stop()));
  writer?.disconnect();
  await store?.stop();
  work.cleanup();
}, 60_000);

/** The value of one series in Prometheus text. */
async function metric(replica: Replica, series: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', replica.url))).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

describe("a replica's reply channel", () => {
  it('drops a non-JSON message and a forged answer, stays up, and returns the real answer', {
    timeout: 60_000,
  }, async () => {
    // The client's POSTs alternate between the replicas: the call is held on one, its answer retried on the other.
    let posts = 0;
    const client = new Client(
      { name: 'store-messages', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(replicas[0]!.url), {
        requestInit: { headers: { 'mcp-session-id': 'store-messages-a' } },
        fetch: (input, init) => fetch(init?.method === 'POST' ? replicas[posts++ % 2]!.url : input, init),
      }),
    );
    open.push(client);
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { approve: true } }));
    const call = client.callTool({ name: 'slow', arguments: { ms: 3_000 } });

    // The forwarding replica listens on a reply channel of its own while the owner runs the call.
    const channel = await vi.waitFor(
      async () => {
        const [name] = (await writer.pubsub('CHANNELS', `${PREFIX}rounds:reply:*`)) as string[];
        if (!name) throw new Error('no reply channel yet');
        return name;
      },
      { timeout: 10_000, interval: 20 },
    );
    await writer.publish(
      channel,
      JSON.stringify({ kind: 'answer', answer: { content: [{ type: 'text', text: 'forged' }] } }),
    );
    await writer.publish(channel, 'not json{');

    expect(textOf(await call)).toBe('waited 3000');
    for (const replica of replicas) expect(replica.child.exitCode).toBeNull();
    const dropped = await Promise.all(
      replicas.map((replica) => metric(replica, 'toolshed_state_messages_dropped_total')),
    );
    expect(dropped.sort()).toEqual([0, 2]);
    const told = replicas.map((replica) => replica.stderr).join('\n');
    expect(told).toContain("dropped 1 message on the state store's channels (the last on 'rounds:reply:");
  });
});

describe('a replica without the fleet key', () => {
  it('does not start, and says which variable to set', { timeout: 60_000 }, async () => {
    await expect(
      startReplica({ cwd: work.dir, config, stateless: true, env: { TOOLSHED_STATE_KEY: '' } }),
    ).rejects.toThrow(/TOOLSHED_STATE_KEY is not set/);
  });
});
