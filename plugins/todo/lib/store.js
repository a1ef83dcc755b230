// @ts-check
/**
 * Where a session's list lives: in `ctx.session` under one key, so the host keeps it in its
 * state store (this process's memory, or the Valkey/Redis server a fleet shares) and every
 * worker, child process and replica that serves the session reads the same list.
 */

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/**
 * One task.
 * @typedef {{ id: string, content: string, status: 'pending' | 'in_progress' | 'done' }} Todo
 */

/**
 * What a session's list holds. `nextId` only grows, so an id is never reused for a
 * different task within a session, even after the list is replaced.
 * @typedef {{ version: 1, sessionId: string, updatedAt: string, nextId: number, todos: Todo[] }} TodoList
 */

/** The `ctx.session` key of the list. */
export const LIST_KEY = 'list';

/** The session id a list records when the call has none (its list is then the call's own). */
export const NO_SESSION = '';

/** An empty list for a session. */
export function emptyList(/** @type {string} */ sessionId) {
  return /** @type {TodoList} */ ({
    version: 1,
    sessionId,
    updatedAt: new Date(0).toISOString(),
    nextId: 1,
    todos: [],
  });
}

/** Reads the session's list; none yet is an empty list, a damaged one an error that says how to recover. */
export async function readList(/** @type {ToolContext} */ ctx) {
  const sessionId = ctx.sessionId ?? NO_SESSION;
  const data = /** @type {any} */ (await ctx.session.get(LIST_KEY));
  if (data === undefined) return emptyList(sessionId);
  if (!Array.isArray(data?.todos))
    throw new Error(
      'The saved task list is damaged (it has no todos array). Write the whole list again with merge set to ' +
        'false to replace it.',
    );
  return /** @type {TodoList} */ ({ ...emptyList(sessionId), ...data, sessionId });
}

/** Saves the session's list; one too large to keep is an error that says what to do. */
export async function writeList(/** @type {ToolContext} */ ctx, /** @type {TodoList} */ list) {
  try {
    await ctx.session.set(LIST_KEY, list);
  } catch (err) {
    if (/** @type {any} */ (err).code !== 'STATE_REFUSED') throw err;
    throw new Error(
      `The task list is too large to keep (${/** @type {Error} */ (err).message}). Shorten the tasks, or ` +
        `remove finished ones by writing the list with merge false.`,
      { cause: err },
    );
  }
}
