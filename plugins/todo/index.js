// @ts-check
import { defaultTodoDir } from './lib/store.js';
import { todoReadTool, todoWriteTool } from './lib/todo.js';

/** The `todo` toolset: a task list per session, kept on disk so any worker can serve it. */
export default {
  apiVersion: 1,
  toolsets: { todo: { description: 'Keep a task list for the session' } },
  // The lists live outside the project; an operator who sets TOOLSHED_TODO_DIR must grant that folder instead.
  permissions: { network: false, env: ['TOOLSHED_TODO_DIR', 'XDG_STATE_HOME'], fsRead: [defaultTodoDir()], fsWrite: [defaultTodoDir()] },
  tools: [todoWriteTool, todoReadTool],
};
