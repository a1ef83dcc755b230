import { beforeEach, describe, expect, it, vi } from 'vitest';
import plugin from '../index.js';
import { LIST_KEY } from '../lib/store.js';
import { MAX_TODOS, applyWrite } from '../lib/todo.js';
import { handler, makeCtx } from './helpers.js';

const write = handler('todo_write');
const read = handler('todo_read');
/** One context per session, as the host keeps one ctx.session per session (and plugin). */
const sessions = new Map();
const ctxFor = (sessionId) => {
  if (!sessions.has(sessionId)) sessions.set(sessionId, makeCtx(sessionId));
  return sessions.get(sessionId);
};
beforeEach(() => sessions.clear());

describe('todo_write and todo_read', () => {
  it('starts empty', async () => {
    expect(await read({}, ctxFor('s1'))).toEqual({
      sessionId: 's1',
      todos: [],
      counts: { total: 0, pending: 0, in_progress: 0, done: 0 },
    });
  });

  it('writes a list, assigning ids and default status, and returns it whole', async () => {
    const result = await write(
      { todos: [{ content: 'Read the code' }, { content: 'Fix the bug', status: 'in_progress' }] },
      ctxFor('s1'),
    );
    expect(result).toEqual({
      sessionId: 's1',
      todos: [
        { id: '1', content: 'Read the code', status: 'pending' },
        { id: '2', content: 'Fix the bug', status: 'in_progress' },
      ],
      counts: { total: 2, pending: 1, in_progress: 1, done: 0 },
    });
  });

  it('keeps the list in ctx.session, so a fresh module instance (another worker or replica) reads it', async () => {
    const ctx = makeCtx('s1');
    await write({ todos: [{ content: 'one' }, { content: 'two' }] }, ctx);
    expect(ctx.sessionValues()[LIST_KEY].todos).toHaveLength(2);
    vi.resetModules();
    const fresh = (await import('../index.js')).default;
    const freshRead = fresh.tools.find((t) => t.name === 'todo_read').handler;
    expect((await freshRead({}, ctx)).todos.map((t) => t.content)).toEqual(['one', 'two']);
  });

  it('keeps sessions apart', async () => {
    await write({ todos: [{ content: 'for A' }] }, ctxFor('A'));
    await write({ todos: [{ content: 'for B' }] }, ctxFor('B'));
    expect((await read({}, ctxFor('A'))).todos.map((t) => t.content)).toEqual(['for A']);
    expect((await read({}, ctxFor('B'))).todos.map((t) => t.content)).toEqual(['for B']);
    expect((await read({}, ctxFor('C'))).todos).toEqual([]);
  });

  it('gives a call without a session id a list of its own, reported with sessionId null', async () => {
    const ctx = makeCtx(undefined);
    expect(await write({ todos: [{ content: 'x' }] }, ctx)).toMatchObject({
      sessionId: null,
      todos: [{ content: 'x' }],
    });
    expect(await read({}, makeCtx(undefined))).toMatchObject({ sessionId: null, todos: [] });
    expect(await read({}, ctxFor('default'))).toMatchObject({ todos: [] });
  });

  it('replaces the whole list when merge is false', async () => {
    await write({ todos: [{ content: 'old 1' }, { content: 'old 2' }] }, ctxFor('s'));
    const result = await write({ todos: [{ content: 'new' }] }, ctxFor('s'));
    // Ids keep counting up, so "1" never names a different task than before.
    expect(result.todos).toEqual([{ id: '3', content: 'new', status: 'pending' }]);
  });

  it('merges: updates only given fields of existing ids and appends new tasks', async () => {
    await write({ todos: [{ content: 'a' }, { content: 'b' }, { content: 'c' }] }, ctxFor('s'));
    const result = await write(
      { merge: true, todos: [{ id: '2', status: 'done' }, { id: '3', content: 'c, revised' }, { content: 'd' }] },
      ctxFor('s'),
    );
    expect(result.todos).toEqual([
      { id: '1', content: 'a', status: 'pending' },
      { id: '2', content: 'b', status: 'done' },
      { id: '3', content: 'c, revised', status: 'pending' },
      { id: '4', content: 'd', status: 'pending' },
    ]);
    expect(result.counts).toEqual({ total: 4, pending: 3, in_progress: 0, done: 1 });
  });

  it('keeps ids the model chose and never hands them out again', async () => {
    const result = await write(
      { todos: [{ content: 'auto' }, { id: '1', content: 'mine' }, { id: 'setup', content: 'named' }] },
      ctxFor('s'),
    );
    expect(result.todos.map((t) => t.id)).toEqual(['2', '1', 'setup']);
    const more = await write({ merge: true, todos: [{ content: 'next' }] }, ctxFor('s'));
    expect(more.todos.at(-1).id).toBe('3');
  });

  it('rejects a new task without content, and repeated ids', async () => {
    await expect(write({ merge: true, todos: [{ id: '9', status: 'done' }] }, ctxFor('s'))).rejects.toThrow(
      'todos[0] (id "9", not in the list) has no content. A new task needs content; to update a task, give the id of an existing one.',
    );
    await expect(write({ todos: [{ status: 'pending' }] }, ctxFor('s'))).rejects.toThrow(/todos\[0\] has no content/);
    await expect(
      write(
        {
          todos: [
            { id: 'x', content: 'a' },
            { id: 'x', content: 'b' },
          ],
        },
        ctxFor('s'),
      ),
    ).rejects.toThrow(/"x" appears more than once/);
    expect((await read({}, ctxFor('s'))).todos).toEqual([]);
  });

  it('caps the list length', () => {
    const list = { version: 1, sessionId: 's', updatedAt: '', nextId: 1, todos: [] };
    const items = Array.from({ length: MAX_TODOS + 1 }, (_, i) => ({ content: `t${i}` }));
    expect(() => applyWrite(list, items)).toThrow(`over the limit of ${MAX_TODOS}`);
  });

  it('reports a damaged list, and a full rewrite recovers it', async () => {
    const ctx = makeCtx('s');
    await write({ todos: [{ content: 'x' }] }, ctx);
    await ctx.session.set(LIST_KEY, { not: 'a list' });
    await expect(read({}, ctx)).rejects.toThrow(/is damaged.*merge set to false/);
    await expect(write({ merge: true, todos: [{ content: 'y' }] }, ctx)).rejects.toThrow(/is damaged/);
    expect((await write({ todos: [{ content: 'fresh' }] }, ctx)).todos).toEqual([
      { id: '1', content: 'fresh', status: 'pending' },
    ]);
  });

  it('says what to do when the list is too large for ctx.session', async () => {
    const todos = Array.from({ length: MAX_TODOS }, (_, i) => ({ content: `${i} ${'é'.repeat(1900)}` }));
    await expect(write({ todos }, makeCtx('big'))).rejects.toThrow(
      /too large to keep .*at most 262144 bytes.*remove finished ones/,
    );
  });

  it('a list expires with the session state (state.sessionTtlMs after its last write)', async () => {
    let now = 1_000;
    const ctx = makeCtx('s', { sessionTtlMs: 60_000, now: () => now });
    await write({ todos: [{ content: 'x' }] }, ctx);
    now += 59_999;
    expect((await read({}, ctx)).todos).toHaveLength(1);
    now += 1;
    expect((await read({}, ctx)).todos).toEqual([]);
  });

  it('needs no permissions and lets execute_code use both tools', () => {
    expect(plugin.permissions).toEqual({ network: false });
    expect(plugin.tools.map((t) => [t.name, t.toolset, t.codeCallable])).toEqual([
      ['todo_write', 'todo', true],
      ['todo_read', 'todo', true],
    ]);
  });
});
