/**
 * The session table of `serve --http` (core/mcp-server/sessions/session-table.ts) on the stage: who is
 * admitted when the server, a client or an identity is full, which session makes room, what a
 * request in flight and a listening GET stream count for, and the idle sweep on a ManualClock.
 * No server and no socket: a session's SDK server is a stand-in that records its close, and a
 * response is an emitter the test closes. What a client sees over HTTP (the 429 and 503 answers,
 * a session of another identity refused) is in test/mcp/http*.test.ts and test/auth/serve-auth.test.ts.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { SessionTable } from '#internal/core/mcp-server/sessions/session-table.js';
import { ManualClock } from '../helpers.js';

const IDLE_MS = 60_000;

/** What the table keeps of a session, with a server and a toolshed session that record being closed. */
function session(client: string, owner = '', name = client) {
  const closed = { server: false, session: false };
  const entry = {
    server: {
      close: async () => {
        closed.server = true;
      },
      getClientVersion: () => ({ name, version: '1.0.0' }),
    },
    transport: {},
    session: {
      rounds: {
        close: () => {
          closed.session = true;
        },
      },
    },
    client,
    owner,
  };
  return { entry: entry as unknown as Parameters<SessionTable['add']>[1], closed };
}

/** Admits and adds a session of `client` (for `owner`) as `id`; fails the test if it is refused. */
async function open(table: SessionTable, id: string, client: string, owner?: { key: string; max?: number }) {
  const admitted = await table.admit(client, owner);
  if (!('release' in admitted)) throw new Error(`${id} refused: ${admitted.message}`);
  const made = session(client, owner?.key ?? '');
  table.add(id, made.entry);
  admitted.release();
  return made.closed;
}

/** A request of `method` on session `id`, in flight until the returned function closes its response. */
function request(table: SessionTable, id: string, method = 'POST'): () => void {
  const res = new EventEmitter();
  table.track(table.get(id)!, method, res as unknown as ServerResponse);
  return () => res.emit('close');
}

describe('a full server', () => {
  it('makes room by closing the longest-idle session, whoever opened it, and counts it', async () => {
    const clock = new ManualClock();
    const table = new SessionTable(IDLE_MS, 2, 2, clock);
    const first = await open(table, 'one', 'a');
    clock.advance(1_000);
    await open(table, 'two', 'b');
    clock.advance(1_000);
    request(table, 'two')();
    await open(table, 'three', 'c');
    expect(table.get('one')).toBeUndefined();
    expect(first).toEqual({ server: true, session: true });
    expect([table.get('two'), table.get('three')].every(Boolean)).toBe(true);
    expect(table.evicted).toBe(1);
    await table.closeAll();
  });

  it('answers 503 only while every session has a request in flight, and admits once one is answered', async () => {
    const table = new SessionTable(IDLE_MS, 2, 2, new ManualClock());
    await open(table, 'one', 'a');
    await open(table, 'two', 'b');
    const answerOne = request(table, 'one');
    request(table, 'two');
    expect(await table.admit('c')).toEqual({
      status: 503,
      message: 'Too many sessions open, each with a request in flight; retry later',
    });
    answerOne();
    await open(table, 'three', 'c');
    expect(table.get('one')).toBeUndefined();
    expect(table.size).toBe(2);
    await table.closeAll();
  });

  it('counts a GET stream as seen, not as a request in flight: a session that only listens makes room', async () => {
    const table = new SessionTable(IDLE_MS, 1, 1, new ManualClock());
    await open(table, 'listening', 'a');
    request(table, 'listening', 'GET');
    await open(table, 'next', 'b');
    expect(table.get('listening')).toBeUndefined();
    await table.closeAll();
  });

  it('counts sessions still opening: a burst of opens cannot pass the cap, and a released slot is free again', async () => {
    const table = new SessionTable(IDLE_MS, 2, 2, new ManualClock());
    const [one, two] = [await table.admit('a'), await table.admit('b')];
    expect(await table.admit('c')).toMatchObject({ status: 503 });
    if (!('release' in one) || !('release' in two)) throw new Error('the first two opens are admitted');
    one.release();
    one.release();
    const three = await table.admit('c');
    expect('release' in three).toBe(true);
    expect(await table.admit('d')).toMatchObject({ status: 503 });
  });
});

describe("a client's share", () => {
  it("closes the client's own idlest session for its new one, never another client's", async () => {
    const clock = new ManualClock();
    const table = new SessionTable(IDLE_MS, 10, 2, clock);
    await open(table, 'other', 'b');
    clock.advance(1_000);
    await open(table, 'a1', 'a');
    clock.advance(1_000);
    await open(table, 'a2', 'a');
    await open(table, 'a3', 'a');
    expect(table.get('a1')).toBeUndefined();
    expect(table.get('other')).toBeDefined();
    expect(table.size).toBe(3);
    await table.closeAll();
  });

  it('answers 429 naming its share when each of its sessions has a request in flight', async () => {
    const table = new SessionTable(IDLE_MS, 10, 2, new ManualClock());
    await open(table, 'a1', 'a');
    await open(table, 'a2', 'a');
    request(table, 'a1');
    request(table, 'a2');
    expect(await table.admit('a')).toEqual({
      status: 429,
      message: 'Too many sessions for this client: it holds 2, the most is 2; close one (DELETE /mcp) or retry later',
    });
    expect('release' in (await table.admit('b'))).toBe(true);
    await table.closeAll();
  });
});

describe("an identity's quota.sessions", () => {
  it("holds an identity to its rule's number, its own idlest making room, and answers 429 naming the rule when all are busy", async () => {
    const clock = new ManualClock();
    const table = new SessionTable(IDLE_MS, 10, 10, clock);
    const alice = { key: 'alice', max: 2 };
    await open(table, 'bob', 'cli', { key: 'bob' });
    clock.advance(1_000);
    await open(table, 'alice1', 'cli', alice);
    clock.advance(1_000);
    await open(table, 'alice2', 'cli', alice);
    await open(table, 'alice3', 'cli', alice);
    expect(table.get('alice1')).toBeUndefined();
    expect(table.get('bob')).toBeDefined();
    request(table, 'alice2');
    request(table, 'alice3');
    expect(await table.admit('cli', alice)).toEqual({
      status: 429,
      message:
        'Too many sessions for this identity: it holds 2, its access rule allows 2; close one (DELETE /mcp) or retry later',
    });
    expect('release' in (await table.admit('cli', { key: 'bob' }))).toBe(true);
    await table.closeAll();
  });
});

describe('the idle sweep', () => {
  it('closes a session idle for idleMs, spares one with a request in flight, and runs only while sessions are open', async () => {
    const clock = new ManualClock();
    const table = new SessionTable(IDLE_MS, 10, 10, clock);
    expect(clock.pending).toBe(0);
    const idle = await open(table, 'idle', 'a');
    await open(table, 'busy', 'b');
    const answer = request(table, 'busy');
    expect(clock.pending).toBe(1);
    await clock.advanceAsync(IDLE_MS + IDLE_MS / 4);
    expect(table.get('idle')).toBeUndefined();
    expect(idle).toEqual({ server: true, session: true });
    expect(table.get('busy')).toBeDefined();
    answer();
    await clock.advanceAsync(IDLE_MS + IDLE_MS / 4);
    expect(table.size).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('counts the end of a request as activity: a long call does not leave its session at the edge of expiry', async () => {
    const clock = new ManualClock();
    const table = new SessionTable(IDLE_MS, 10, 10, clock);
    await open(table, 'one', 'a');
    const answer = request(table, 'one');
    clock.advance(5 * IDLE_MS);
    answer();
    await table.sweep();
    expect(table.get('one')).toBeDefined();
    clock.advance(IDLE_MS);
    await table.sweep();
    expect(table.get('one')).toBeUndefined();
  });
});

describe('the list others see', () => {
  it('names each session with its identity, client and times, and carries no server, transport or held calls', async () => {
    const clock = new ManualClock(5_000);
    const table = new SessionTable(IDLE_MS, 10, 10, clock);
    await open(table, 'one', 'a');
    const identity = { subject: 'alice', issuer: 'https://issuer.example', scopes: [], claims: {} };
    const admitted = await table.admit('b', { key: 'alice' });
    if (!('release' in admitted)) throw new Error('admitted');
    table.add('two', { ...session('b', 'alice', 'inspector').entry, identity });
    clock.advance(2_000);
    request(table, 'one', 'GET');
    expect(table.list()).toEqual([
      { id: 'one', client: 'a 1.0.0', openedAt: 5_000, lastSeen: 7_000 },
      { id: 'two', identity, client: 'inspector 1.0.0', openedAt: 5_000, lastSeen: 5_000 },
    ]);
    await table.closeAll();
    expect(table.list()).toEqual([]);
    expect(clock.pending).toBe(0);
  });
});
