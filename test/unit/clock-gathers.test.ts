/**
 * The short waits that gather work, and the sweep of idle HTTP sessions, on a ManualClock: the
 * audit log's 10 ms gather, the console's 10 ms flush and 15 s ping, and `serve --http`'s
 * session table closing what has been idle for sessionIdleMs. No worker, child or socket.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuditSink } from '#internal/core/call/audit-sink.js';
import { EventStreams } from '#internal/core/console/event-stream.js';
import { SessionTable } from '#internal/core/mcp-server/sessions/session-table.js';
import { InputRounds } from '#internal/core/mcp-server/protocol/input-rounds.js';
import { ManualClock, tempDir } from '../helpers.js';

const dirs: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.cleanup();
});

describe('the audit sink', () => {
  it('gathers the lines of 10 ms of its clock into one write', async () => {
    const dir = tempDir('toolshed-clock-audit-');
    dirs.push(dir);
    const file = path.join(dir.dir, 'audit.jsonl');
    const clock = new ManualClock(0);
    const sink = await AuditSink.open(file, () => {}, clock);
    sink.write('{"n":1}');
    clock.advance(5);
    sink.write('{"n":2}');
    expect(clock.pending).toBe(1);
    clock.advance(4);
    expect(sink.report().written).toBe(0);
    clock.advance(1);
    expect(clock.pending).toBe(0);
    await vi.waitFor(() => expect(sink.report().written).toBe(2));
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    await sink.close();
  });
});

/** A response the event streams write to: what it was sent, as text. */
function response() {
  const emitter = new EventEmitter();
  const sent: string[] = [];
  const res = Object.assign(emitter, {
    writableLength: 0,
    setHeader() {},
    writeHead() {
      return res;
    },
    write(text: string) {
      sent.push(text);
      return true;
    },
    end() {},
    destroy() {},
  });
  return { res, sent };
}

describe("the console's event streams", () => {
  it('write events 10 ms after the first of them, together, and ping an idle stream every 15 s', () => {
    const clock = new ManualClock(0);
    const streams = new EventStreams(clock);
    const { res, sent } = response();
    streams.open(res as never, false, { hello: true });
    streams.send('call', { n: 1 });
    expect(sent).toEqual([]);
    clock.advance(10);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBe('event: hello\ndata: {"hello":true}\n\nevent: call\ndata: {"n":1}\n\n');
    clock.advance(14_989);
    expect(sent).toHaveLength(1);
    // The ping falls due at 15 s and is written 10 ms later.
    clock.advance(11);
    expect(sent.at(-1)).toBe(': ping\n\n');
    streams.close();
    expect(clock.pending).toBe(0);
  });
});

describe("serve --http's session table", () => {
  const fakeServer = () => ({ close: vi.fn(async () => {}), getClientVersion: () => undefined });

  it('closes a session idle for sessionIdleMs on the sweep after, keeps a newer one, and stops sweeping when empty', () => {
    const clock = new ManualClock(0);
    const table = new SessionTable(1_000, 10, 10, clock);
    const first = fakeServer();
    const second = fakeServer();
    const rounds = new InputRounds(undefined, clock);
    table.add('first', { server: first as never, transport: {} as never, session: { rounds }, client: 'c', owner: '' });
    clock.advance(500);
    table.add('second', {
      server: second as never,
      transport: {} as never,
      session: { rounds: new InputRounds(undefined, clock) },
      client: 'c',
      owner: '',
    });
    // Sweeps every 250 ms: at 1 s the first has been idle 1 s, the second 0.5 s.
    clock.advance(499);
    expect(table.size).toBe(2);
    clock.advance(1);
    expect(table.size).toBe(1);
    expect(table.get('second')).toBeDefined();
    expect(first.close).toHaveBeenCalled();
    clock.advance(500);
    expect(table.size).toBe(0);
    expect(second.close).toHaveBeenCalled();
    expect(clock.pending).toBe(0);
  });

  it('counts a session with a request in flight as busy however long it runs, and idle again from its end', () => {
    const clock = new ManualClock(0);
    const table = new SessionTable(1_000, 10, 10, clock);
    table.add('s', {
      server: fakeServer() as never,
      transport: {} as never,
      session: { rounds: new InputRounds(undefined, clock) },
      client: 'c',
      owner: '',
    });
    const res = new EventEmitter();
    table.track(table.get('s')!, 'POST', res as never);
    clock.advance(10_000);
    expect(table.size).toBe(1);
    res.emit('close');
    clock.advance(999);
    expect(table.size).toBe(1);
    clock.advance(250);
    expect(table.size).toBe(0);
  });
});
