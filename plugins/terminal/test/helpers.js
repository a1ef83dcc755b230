import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import plugin from '../index.js';

/** The terminal tool's handler. */
export const terminal = plugin.tools.find((t) => t.name === 'terminal').handler;

/**
 * A handler context like the host's, rooted at `cwd`, with its AbortController exposed.
 * These tests are about running and killing commands, so the sandbox is off unless asked
 * for; the sandbox itself is tested through a real host in test/security/terminal-sandbox.test.ts.
 */
export function makeCtx(cwd, extra = {}) {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    controller,
    env: {},
    log() {},
    progress() {},
    cwd,
    roots: { read: [cwd], write: [cwd] },
    options: { sandbox: 'off' },
    ...extra,
  };
}

/** A fresh temporary directory (symlinks resolved, as `pwd -P` prints it) and its remover. */
export async function tempDir() {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'toolshed-terminal-')));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** True when no live process has this pid (a zombie awaiting its reaper counts as dead). */
export async function isGone(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  const { readFile } = await import('node:fs/promises');
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // Field 3 is the state; it follows the parenthesised command name.
  return stat === '' || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}
