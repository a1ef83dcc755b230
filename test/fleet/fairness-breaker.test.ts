/**
 * The breaker a fleet shares (`limits.breaker.shared`): three real `toolshed serve
 * --http` replicas and a real Redis server, one SDK client (its own session) on
 * each replica. A tool crashing `failures` times across the fleet, no replica
 * alone reaching the limit, is taken out of service on every replica.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { textOf } from '../mcp/setup.js';
import {
  killLeftoversAfterAll,
  startReplica,
  startStateServer,
  type Replica,
  type StoreServer,
} from '../support/fleet.js';

killLeftoversAfterAll();

const work = tempDir();
let server: StoreServer | undefined;
const replicas: Replica[] = [];
const clients: Client[] = [];

/** A trusted plugin whose tool crashes its worker when asked. */
function writeProject(storeUrl: string): void {
  const dir = path.join(work.dir, 'plugin-flaky');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'toolshed-plugin-flaky',
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
      toolshed: { apiVersion: 1 },
    }),
  );
  writeFileSync(
    path.join(dir, 'index.js'),
    `export default { apiVersion: 1, tools: [{ name: 'flaky', description: 'Crashes its worker when asked.', parameters: { type: 'object' }, handler: ({ crash }) => (crash ? process.exit(3) : 'fine') }] };\n`,
  );
  const config = {
    builtins: false,
    cache: { enabled: false },
    plugins: [{ package: dir, trust: 'trusted' }],
    state: { store: storeUrl, prefix: 'fairness:' },
    limits: { threads: 1, breaker: { failures: 4, shared: true } },
  };
  writeFileSync(path.join(work.dir, '.toolshedrc.json'), JSON.stringify(config));
}

beforeAll(async () => {
  server = await startStateServer();
  writeProject(server.url);
  replicas.push(...(await Promise.all([0, 1, 2].map(() => startReplica({ cwd: work.dir, args: ['--trust-config'] })))));
  for (const replica of replicas) {
    const client = new Client({ name: 'fairness-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(replica.url)));
    clients.push(client);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await Promise.all(replicas.map((replica) => replica.stop()));
  await server?.stop();
  work.cleanup();
}, 60_000);

const call = async (client: Client, args: Record<string, unknown>) =>
  textOf(await client.callTool({ name: 'flaky', arguments: args }));

describe('limits.breaker.shared', () => {
  it('opens on every replica after failures counted across the fleet, none of them alone reaching the limit', async () => {
    // 4 crashes: 2 on the first replica, 1 on each other one, from three sessions.
    for (const index of [0, 1, 2, 0]) expect(await call(clients[index]!, { crash: true })).toContain('TOOL_CRASHED');
    for (const client of clients) {
      // The opening travels by publish: each replica refuses once it has heard.
      await expect.poll(() => call(client, {})).not.toBe('fine');
      const reply = await call(client, {});
      expect(reply).toContain('TOOL_NOT_EXPOSED');
      expect(reply).toContain('crashed 4 times in 60 s across the fleet');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).not.toContain('flaky');
    }
  }, 60_000);
});
