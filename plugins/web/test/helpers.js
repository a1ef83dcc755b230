import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import plugin from '../index.js';

/** The tool object named `name` from this plugin. */
export function tool(name) {
  const found = plugin.tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

/**
 * A handler context like the host's, rooted at `cwd`, with its AbortController exposed.
 * The test servers listen on loopback, which web_fetch refuses unless the operator allows it.
 */
export function makeCtx(cwd, extra = {}) {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    controller,
    env: { WEB_FETCH_ALLOW_CIDRS: '127.0.0.0/8' },
    log() {},
    progress() {},
    cwd,
    ...extra,
  };
}

/** A fresh temporary directory and its remover. */
export async function tempDir() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'toolshed-web-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
