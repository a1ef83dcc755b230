// @ts-check
import { todoReadTool, todoWriteTool } from './lib/todo.js';

/** The `todo` toolset: a task list per session, kept in ctx.session so any worker or replica can serve it. */
export default {
  apiVersion: 1,
  toolsets: { todo: { description: 'Keep a task list for the session' } },
  permissions: { network: false },
  tools: [todoWriteTool, todoReadTool],
};
