/**
 * The todo plugin on two `toolshed serve --http --stateless` replicas that share nothing but a
 * real Redis server (each has its own home and state folder, as on two machines): a list written
 * through one is read through the other, by real MCP SDK clients giving the same session id. The
 * plugin runs untrusted here, in each replica's child process (the thread tier crosses hosts in
 * plugin-state.test.ts). Another session, and a client that sends none, see no list of it. Each
 * replica's own state folder holds no trust record, so they start with --trust-config.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import {
  killLeftoversAfterAll,
  startReplica,
  startStateServer,
  type Replica,
  type StoreServer,
} from '../support/fleet.js';

killLeftoversAfterAll();

const work = tempDir('toolshed-plugin-state-replicas-');
let store: StoreServer;
const replicas: Replica[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  store = await startStateServer();
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"plugin-state-replicas","private":true}');
  const config = {
    builtins: false,
    cache: { enabled: false },
    plugins: [{ package: '@toolshed/todo', trust: 'untrusted' }],
    state: { store: store.url },
  };
  writeFileSync(path.join(work.dir, 'toolshed.config.json'), JSON.stringify(config));
  for (const name of ['one', 'two']) {
    const home = path.join(work.dir, `home-${name}`);
    mkdirSync(home, { mode: 0o700 });
    replicas.push(
      await startReplica({
        cwd: work.dir,
        config: path.join(work.dir, 'toolshed.config.json'),
        stateless: true,
        args: ['--trust-config'],
        env: { HOME: home, XDG_STATE_HOME: path.join(home, 'state'), XDG_CACHE_HOME: path.join(home, 'cache') },
      }),
    );
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all(replicas.map((replica) => replica.stop()));
  await store?.stop();
  work.cleanup();
});

/** A client of `replica`, in session `sessionId` (none: the client sends no session id). */
async function connect(replica: Replica, sessionId?: string): Promise<Client> {
  const client = new Client({ name: 'plugin-state-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(replica.url), sessionId === undefined ? {} : { sessionId }),
  );
  clients.push(client);
  return client;
}

async function todos(
  client: Client,
  name: 'todo_read' | 'todo_write',
  args: Record<string, unknown> = {},
): Promise<{ sessionId: string | null; todos: Array<{ content: string; status: string }> }> {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: Array<{ text: string }>;
    isError?: boolean;
  };
  if (result.isError) throw new Error(result.content[0]!.text);
  return JSON.parse(result.content[0]!.text);
}

describe('the todo plugin on stateless replicas sharing a Redis server', () => {
  it('reads through one replica the list written through the other, every time', async () => {
    const session = randomUUID();
    const [one, two] = [await connect(replicas[0]!, session), await connect(replicas[1]!, session)];
    await todos(one, 'todo_write', { todos: [{ content: 'plan', status: 'in_progress' }, { content: 'ship' }] });
    for (let round = 0; round < 6; round++) {
      const [writer, reader] = round % 2 ? [two, one] : [one, two];
      await todos(writer, 'todo_write', { merge: true, todos: [{ content: `step ${round}` }] });
      const read = await todos(reader, 'todo_read');
      expect(read.sessionId).toBe(session);
      expect(read.todos.map((t) => t.content)).toEqual([
        'plan',
        'ship',
        ...Array.from({ length: round + 1 }, (_, i) => `step ${i}`),
      ]);
    }
  });

  it('shows another session, and a client without a session id, no list but its own', async () => {
    const session = randomUUID();
    await todos(await connect(replicas[0]!, session), 'todo_write', { todos: [{ content: 'private' }] });
    expect((await todos(await connect(replicas[1]!, randomUUID()), 'todo_read')).todos).toEqual([]);
    const anonymous = await connect(replicas[1]!);
    expect((await todos(anonymous, 'todo_read')).todos).toEqual([]);
  });
});
