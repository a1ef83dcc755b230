// @ts-check
import { createHash } from 'node:crypto';
import { mkdir, rmdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import envPaths from 'env-paths';
// toolshed's own per-user state rules.
// toolshed's toolkit, `toolshed/toolkit` (docs/plugins.md, "The toolkit"), by the path of its file in the
// package: this plugin ships inside toolshed under a package.json of its own, where Node does not resolve
// the name 'toolshed' (self-reference stops at the nearest package.json). A third-party plugin imports 'toolshed/toolkit'.
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from '../../../dist/sandbox/toolkit.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/**
 * One task.
 * @typedef {{ id: string, content: string, status: 'pending' | 'in_progress' | 'done' }} Todo
 */

/**
 * What a session's file holds. `nextId` only grows, so an id is never reused for a
 * different task within a session, even after the list is replaced.
 * @typedef {{ version: 1, sessionId: string, updatedAt: string, nextId: number, todos: Todo[] }} TodoList
 */

/** Session id used when the host passes none. */
export const DEFAULT_SESSION = 'default';
/** A lock older than this is taken to be left over from a crashed call. */
const STALE_LOCK_MS = 10_000;
/** How long a call waits for another call on the same session to finish. */
const LOCK_WAIT_MS = 5_000;

/**
 * Where the lists live when TOOLSHED_TODO_DIR is not set: the user's own state folder
 * (`$XDG_STATE_HOME/toolshed/todo`, by default `~/.local/state/toolshed/todo`, on Linux;
 * the toolshed data folder from env-paths elsewhere), never a predictable name in the
 * shared temp dir, where another user could plant or read the files.
 * @param {Readonly<Record<string, string | undefined>>} [env] the granted environment
 */
export function defaultTodoDir(env = {}) {
  if (process.platform === 'linux') {
    const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(os.homedir(), '.local', 'state');
    return path.join(state, 'toolshed', 'todo');
  }
  return path.join(envPaths('toolshed', { suffix: '' }).data, 'todo');
}

/** The directory holding the lists: TOOLSHED_TODO_DIR, or {@link defaultTodoDir}. */
export function todoDir(/** @type {ToolContext} */ ctx) {
  return ctx.env?.TOOLSHED_TODO_DIR || defaultTodoDir(ctx.env);
}

/**
 * {@link todoDir}, created 0700 and checked to be this user's alone, on every call: a
 * folder another user created, can write, or turned into a link is refused (PERMISSION_DENIED).
 */
export function privateTodoDir(/** @type {ToolContext} */ ctx) {
  return ensurePrivateDir(todoDir(ctx));
}

/**
 * The file for a session: a readable, path-safe form of the id plus a hash of the
 * raw id, so "a/b" and "a_b" cannot share a file and no id can escape the directory.
 */
export function sessionFile(/** @type {string} */ dir, /** @type {string} */ sessionId) {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  const hash = createHash('sha256').update(sessionId).digest('hex').slice(0, 12);
  return path.join(dir, `${safe}-${hash}.json`);
}

/** An empty list for a session. */
export function emptyList(/** @type {string} */ sessionId) {
  return /** @type {TodoList} */ ({ version: 1, sessionId, updatedAt: new Date(0).toISOString(), nextId: 1, todos: [] });
}

/** Reads a session's list; a missing file is an empty list, a damaged one an error that says how to recover. */
export async function readList(/** @type {string} */ file, /** @type {string} */ sessionId) {
  const text = readPrivateFile(file);
  if (text === undefined) return emptyList(sessionId);
  try {
    const data = JSON.parse(text);
    if (!Array.isArray(data?.todos)) throw new Error('no todos array');
    return /** @type {TodoList} */ ({ ...emptyList(sessionId), ...data });
  } catch (err) {
    throw new Error(`The saved task list (${file}) is damaged: ${/** @type {Error} */ (err).message}. ` + 'Write the whole list again with merge set to false to replace it.', { cause: err });
  }
}

/** Saves a session's list atomically, readable only by this user (tasks may mention private things). */
export async function writeList(/** @type {string} */ file, /** @type {TodoList} */ list) {
  writePrivateFile(file, `${JSON.stringify(list, null, 2)}\n`);
}

/**
 * Runs `fn` while holding a lock on `file`. Handlers run in a pool of workers, so two
 * calls for one session can overlap; without the lock a merge could lose an update.
 * The lock is a directory because mkdir is atomic on every local filesystem.
 * @template T
 * @param {string} file
 * @param {() => Promise<T>} fn
 * @param {AbortSignal} [signal]
 * @returns {Promise<T>}
 */
export async function withLock(file, fn, signal) {
  const lock = `${file}.lock`;
  const giveUp = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(lock, { mode: 0o700 });
      break;
    } catch (err) {
      if (/** @type {any} */ (err).code !== 'EEXIST') throw err;
    }
    const age = await stat(lock).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > STALE_LOCK_MS) {
      await rmdir(lock).catch(() => {});
      continue;
    }
    if (Date.now() > giveUp) {
      throw new Error('The task list is busy with another update that has not finished; try again.');
    }
    await sleep(5 + Math.random() * 20, undefined, { signal });
  }
  try {
    return await fn();
  } finally {
    await rmdir(lock).catch(() => {});
  }
}
