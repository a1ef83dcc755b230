import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import plugin from '../index.js';

/** The handler of the tool named `name`. */
export function handler(name) {
  const found = plugin.tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found.handler;
}

/** A handler context like the host's: the todo dir granted through env, an optional session id. */
export function makeCtx(cwd, todoDir, sessionId) {
  const controller = new AbortController();
  return { signal: controller.signal, env: { TOOLSHED_TODO_DIR: todoDir }, log() {}, progress() {}, cwd, sessionId };
}

/** A fresh temporary directory and its remover. */
export async function tempDir() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'toolshed-todo-test-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
