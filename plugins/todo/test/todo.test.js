import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import envPaths from 'env-paths';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import plugin from '../index.js';
import { sessionFile, todoDir } from '../lib/store.js';
import { MAX_TODOS, applyWrite } from '../lib/todo.js';
import { handler, makeCtx, tempDir } from './helpers.js';

const write = handler('todo_write');
const read = handler('todo_read');
let tmp;
let dir;
const ctxFor = (sessionId) => makeCtx(tmp.dir, dir, sessionId);

beforeEach(async () => {
  tmp = await tempDir();
  dir = path.join(tmp.dir, 'lists');
});
afterEach(() => tmp.remove());

describe('todo_write and todo_read', () => {
  it('starts empty', async () => {
    expect(await read({}, ctxFor('s1'))).toEqual({ sessionId: 's1', todos: [], counts: { total: 0, pending: 0, in_progress: 0, done: 0 } });
  });

  it('writes a list, assigning ids and default status, and returns it whole', async () => {
    const result = await write({ todos: [{ content: 'Read the code' }, { content: 'Fix the bug', status: 'in_progress' }] }, ctxFor('s1'));
    expect(result).toEqual({
      sessionId: 's1',
      todos: [
        { id: '1', content: 'Read the code', status: 'pending' },
        { id: '2', content: 'Fix the bug', status: 'in_progress' },
      ],
      counts: { total: 2, pending: 1, in_progress: 1, done: 0 },
    });
  });

  it('keeps the list across separate calls, as when workers are replaced', async () => {
    await write({ todos: [{ content: 'one' }, { content: 'two' }] }, ctxFor('s1'));
    // A fresh module instance has no memory of the first write: only the disk does.
    vi.resetModules();
    const fresh = (await import('../index.js')).default;
    const freshRead = fresh.tools.find((t) => t.name === 'todo_read').handler;
    expect((await freshRead({}, ctxFor('s1'))).todos.map((t) => t.content)).toEqual(['one', 'two']);
    expect(JSON.parse(await readFile(sessionFile(dir, 's1'), 'utf8')).todos).toHaveLength(2);
  });

  it('keeps sessions apart', async () => {
    await write({ todos: [{ content: 'for A' }] }, ctxFor('A'));
    await write({ todos: [{ content: 'for B' }] }, ctxFor('B'));
    expect((await read({}, ctxFor('A'))).todos.map((t) => t.content)).toEqual(['for A']);
    expect((await read({}, ctxFor('B'))).todos.map((t) => t.content)).toEqual(['for B']);
    expect((await read({}, ctxFor('C'))).todos).toEqual([]);
  });

  it("uses the 'default' session when the host gives none", async () => {
    await write({ todos: [{ content: 'x' }] }, ctxFor(undefined));
    expect(await read({}, ctxFor(undefined))).toMatchObject({ sessionId: 'default', todos: [{ content: 'x' }] });
    expect(await read({}, ctxFor('default'))).toMatchObject({ todos: [{ content: 'x' }] });
  });

  it('replaces the whole list when merge is false', async () => {
    await write({ todos: [{ content: 'old 1' }, { content: 'old 2' }] }, ctxFor('s'));
    const result = await write({ todos: [{ content: 'new' }] }, ctxFor('s'));
    // Ids keep counting up, so "1" never names a different task than before.
    expect(result.todos).toEqual([{ id: '3', content: 'new', status: 'pending' }]);
  });

  it('merges: updates only given fields of existing ids and appends new tasks', async () => {
    await write({ todos: [{ content: 'a' }, { content: 'b' }, { content: 'c' }] }, ctxFor('s'));
    const result = await write({ merge: true, todos: [{ id: '2', status: 'done' }, { id: '3', content: 'c, revised' }, { content: 'd' }] }, ctxFor('s'));
    expect(result.todos).toEqual([
      { id: '1', content: 'a', status: 'pending' },
      { id: '2', content: 'b', status: 'done' },
      { id: '3', content: 'c, revised', status: 'pending' },
      { id: '4', content: 'd', status: 'pending' },
    ]);
    expect(result.counts).toEqual({ total: 4, pending: 3, in_progress: 0, done: 1 });
  });

  it('keeps ids the model chose and never hands them out again', async () => {
    const result = await write({ todos: [{ content: 'auto' }, { id: '1', content: 'mine' }, { id: 'setup', content: 'named' }] }, ctxFor('s'));
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

  it('loses no update when calls for one session overlap', async () => {
    await write({ todos: [] }, ctxFor('busy'));
    await Promise.all(Array.from({ length: 12 }, (_, i) => write({ merge: true, todos: [{ content: `task ${i}` }] }, ctxFor('busy'))));
    const { todos } = await read({}, ctxFor('busy'));
    expect(todos).toHaveLength(12);
    expect(new Set(todos.map((t) => t.id)).size).toBe(12);
    expect((await readdir(dir)).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('stores each session in a safe file name inside the directory', async () => {
    await write({ todos: [{ content: 'x' }] }, ctxFor('../../etc/passwd'));
    await write({ todos: [{ content: 'y' }] }, ctxFor('a/b'));
    await write({ todos: [{ content: 'z' }] }, ctxFor('a_b'));
    const files = (await readdir(dir)).sort();
    expect(files).toHaveLength(3);
    for (const f of files) expect(f).toMatch(/^[A-Za-z0-9_-]+-[0-9a-f]{12}\.json$/);
    expect((await read({}, ctxFor('a/b'))).todos[0].content).toBe('y');
    expect((await read({}, ctxFor('a_b'))).todos[0].content).toBe('z');
    expect(path.dirname(sessionFile(dir, '../../etc/passwd'))).toBe(dir);
  });

  it('keeps the files private to the user', async () => {
    await write({ todos: [{ content: 'x' }] }, ctxFor('s'));
    expect((await stat(sessionFile(dir, 's'))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('reports a damaged file, and a full rewrite recovers it', async () => {
    await write({ todos: [{ content: 'x' }] }, ctxFor('s'));
    await writeFile(sessionFile(dir, 's'), '{ not json');
    await expect(read({}, ctxFor('s'))).rejects.toThrow(/is damaged.*merge set to false/);
    await expect(write({ merge: true, todos: [{ content: 'y' }] }, ctxFor('s'))).rejects.toThrow(/is damaged/);
    expect((await write({ todos: [{ content: 'fresh' }] }, ctxFor('s'))).todos).toEqual([{ id: '1', content: 'fresh', status: 'pending' }]);
  });

  it("defaults to the user's state folder, never the shared temp dir", () => {
    const expected = process.platform === 'linux' ? path.join(os.homedir(), '.local', 'state', 'toolshed', 'todo') : path.join(envPaths('toolshed', { suffix: '' }).data, 'todo');
    expect(todoDir({ env: {} })).toBe(expected);
    expect(todoDir({ env: {} }).startsWith(os.tmpdir())).toBe(false);
    if (process.platform === 'linux') expect(todoDir({ env: { XDG_STATE_HOME: '/state' } })).toBe('/state/toolshed/todo');
    expect(todoDir({ env: { TOOLSHED_TODO_DIR: '/x' } })).toBe('/x');
  });

  it('refuses a folder that others can write, and a planted link, without touching either', async () => {
    const open = path.join(tmp.dir, 'open');
    await mkdir(open, { mode: 0o777 });
    await chmod(open, 0o777);
    await expect(write({ todos: [{ content: 'x' }] }, makeCtx(dir, open, 's'))).rejects.toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringContaining('lets other users write to it') });
    const link = path.join(tmp.dir, 'link');
    await mkdir(dir, { mode: 0o700 });
    await symlink(dir, link);
    await expect(read({}, makeCtx(dir, link, 's'))).rejects.toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringContaining('is a symbolic link') });
    // A link planted in place of a session file is neither followed for reading nor written through.
    const target = path.join(tmp.dir, 'victim.txt');
    await writeFile(target, 'precious');
    await symlink(target, sessionFile(dir, 'planted'));
    await expect(read({}, ctxFor('planted'))).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(write({ todos: [{ content: 'x' }] }, ctxFor('planted'))).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(await readFile(target, 'utf8')).toBe('precious');
  });

  it('declares its env vars and lets execute_code use both tools', () => {
    expect(plugin.permissions.env).toEqual(['TOOLSHED_TODO_DIR', 'XDG_STATE_HOME']);
    expect(plugin.tools.map((t) => [t.name, t.toolset, t.codeCallable])).toEqual([
      ['todo_write', 'todo', true],
      ['todo_read', 'todo', true],
    ]);
  });
});
