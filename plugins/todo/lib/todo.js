// @ts-check
import { emptyList, NO_SESSION, readList, writeList } from './store.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */
/** @typedef {import('./store.js').Todo} Todo */
/** @typedef {import('./store.js').TodoList} TodoList */
/** @typedef {{ id?: string, content?: string, status?: Todo['status'] }} TodoInput */

/** The statuses a task can have, in the order they happen. */
export const STATUSES = /** @type {const} */ (['pending', 'in_progress', 'done']);
/** Most tasks a list may hold. */
export const MAX_TODOS = 200;

/**
 * What both tools return: the session (null: the call has none, and the list is its own), the whole list and a count
 * per status.
 */
function view(/** @type {TodoList} */ list, /** @type {ToolContext} */ ctx) {
  const counts = { total: list.todos.length, pending: 0, in_progress: 0, done: 0 };
  for (const t of list.todos) counts[t.status]++;
  return {
    sessionId: ctx.sessionId ?? null,
    todos: list.todos.map(({ id, content, status }) => ({ id, content, status })),
    counts,
  };
}

/** Rejects a call that names the same id twice, which would make the outcome order-dependent. */
function checkDistinctIds(/** @type {TodoInput[]} */ items) {
  const seen = new Set();
  for (const item of items) {
    if (item.id === undefined) continue;
    if (seen.has(item.id))
      throw new Error(`The id "${item.id}" appears more than once in todos; give each task its own id.`);
    seen.add(item.id);
  }
}

/**
 * Builds a new task from an input item. An item without an id gets the next number
 * that no task in the list or in this call uses.
 */
function create(
  /** @type {TodoInput} */ item,
  /** @type {number} */ index,
  /** @type {{ next: number, taken: Set<string> }} */ ids,
) {
  if (item.content === undefined || item.content.trim() === '') {
    const which = item.id === undefined ? `todos[${index}]` : `todos[${index}] (id "${item.id}", not in the list)`;
    throw new Error(
      `${which} has no content. A new task needs content; to update a task, give the id of an existing one.`,
    );
  }
  let id = item.id;
  if (id === undefined) {
    while (ids.taken.has(String(ids.next))) ids.next++;
    id = String(ids.next++);
  }
  ids.taken.add(id);
  return /** @type {Todo} */ ({ id, content: item.content.trim(), status: item.status ?? 'pending' });
}

/**
 * Applies a write to a list. Replace: the list becomes exactly `items`. Merge: items
 * whose id exists update those tasks (only the fields given), the rest are appended.
 */
export function applyWrite(/** @type {TodoList} */ list, /** @type {TodoInput[]} */ items, merge = false) {
  checkDistinctIds(items);
  /** @type {Todo[]} */
  const todos = merge ? list.todos.map((t) => ({ ...t })) : [];
  const taken = new Set([...todos.map((t) => t.id), ...items.flatMap((i) => (i.id === undefined ? [] : [i.id]))]);
  const ids = { next: list.nextId, taken };
  const byId = new Map(todos.map((t) => [t.id, t]));
  items.forEach((item, index) => {
    const existing = item.id !== undefined ? byId.get(item.id) : undefined;
    if (existing) {
      if (item.content !== undefined && item.content.trim() !== '') existing.content = item.content.trim();
      if (item.status !== undefined) existing.status = item.status;
      return;
    }
    const todo = create(item, index, ids);
    todos.push(todo);
    byId.set(todo.id, todo);
  });
  // Ids the model chose ("7") must not be handed out again later.
  for (const t of todos) {
    const n = Number(t.id);
    if (Number.isSafeInteger(n) && n >= ids.next) ids.next = n + 1;
  }
  if (todos.length > MAX_TODOS) {
    throw new Error(
      `The list would hold ${todos.length} tasks, over the limit of ${MAX_TODOS}. Remove finished tasks by ` +
        `writing the list with merge false.`,
    );
  }
  return { ...list, nextId: ids.next, todos, updatedAt: new Date().toISOString() };
}

/**
 * @param {{ todos: TodoInput[], merge?: boolean }} args
 * @param {ToolContext} ctx
 */
async function todoWrite(args, ctx) {
  const merge = args.merge ?? false;
  // A replacement does not depend on the old tasks, so it also recovers a damaged list.
  const current = await readList(ctx).catch((err) => {
    if (merge) throw err;
    return null;
  });
  const next = applyWrite(current ?? emptyList(ctx.sessionId ?? NO_SESSION), args.todos, merge);
  await writeList(ctx, next);
  return view(next, ctx);
}

/**
 * @param {Record<string, never>} _args
 * @param {ToolContext} ctx
 */
async function todoRead(_args, ctx) {
  return view(await readList(ctx), ctx);
}

const todoItemSchema = {
  type: 'object',
  properties: {
    id: {
      type: 'string',
      pattern: '^[A-Za-z0-9_.-]{1,64}$',
      description: 'The task id. Give it to update an existing task; omit it for a new task (an id is assigned).',
    },
    content: {
      type: 'string',
      maxLength: 2000,
      description: 'What the task is, in one short imperative sentence. Required for a new task.',
    },
    status: {
      type: 'string',
      enum: [...STATUSES],
      description: 'pending (default for a new task), in_progress or done.',
    },
  },
  additionalProperties: false,
};

/** The `todo_write` tool: replaces the session's task list, or merges changes into it. */
export const todoWriteTool = {
  name: 'todo_write',
  toolset: 'todo',
  description:
    'Plan and track multi-step work with a task list kept for this session. With merge false (default) the ' +
    'list becomes ' +
    ('exactly the given todos; with merge true, todos with an existing id update only the fields given (e.g. ' +
      '{"id": "2", ') +
    ('"status": "done"}) and the others are added. Returns the whole list as {sessionId, todos: [{id, content, ' +
      'status}], ') +
    'counts}. Keep one task in_progress at a time and mark tasks done as soon as they are finished.',
  parameters: {
    type: 'object',
    properties: {
      todos: {
        type: 'array',
        maxItems: MAX_TODOS,
        items: todoItemSchema,
        description: 'Tasks to write: the complete list (merge false) or the tasks to add or change (merge true).',
      },
      merge: {
        type: 'boolean',
        description: 'true: update and add to the current list; false (default): replace the list.',
      },
    },
    required: ['todos'],
    additionalProperties: false,
  },
  limits: { timeoutMs: 15_000 },
  codeCallable: true,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: todoWrite,
};

/** The `todo_read` tool: returns the session's current task list. */
export const todoReadTool = {
  name: 'todo_read',
  toolset: 'todo',
  description:
    "Show this session's task list: {sessionId, todos: [{id, content, status}], counts}. Empty until tasks are " +
    'written.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  limits: { timeoutMs: 15_000 },
  codeCallable: true,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: todoRead,
};
