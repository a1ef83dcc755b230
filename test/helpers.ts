/** Shared test helpers: fixture paths, temp dirs, a controllable clock and a host that always closes. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolHost, type ToolHost, type ToolHostOptions } from 'toolshed';

/** Absolute path of a file or folder under test/fixtures. */
export function fixture(...parts: string[]): string {
  return path.join(fileURLToPath(new URL('./fixtures/', import.meta.url)), ...parts);
}

/** A fresh temp folder; remove it with the returned cleanup. */
export function tempDir(prefix = 'toolshed-test-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The suite's own state and cache folders (vitest.config.ts) as env entries: a child
 * spawned with a hand-made env must get them too, or it reads and writes the trust
 * records and caches of the person running the suite.
 */
export function suiteHome(): { XDG_STATE_HOME?: string; XDG_CACHE_HOME?: string } {
  return {
    ...(process.env.XDG_STATE_HOME ? { XDG_STATE_HOME: process.env.XDG_STATE_HOME } : {}),
    ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}),
  };
}

let scratch: string | undefined;

/** A temp folder shared by one test file, removed when the process exits (fixture plugins may write to their cwd). */
export function scratchDir(): string {
  if (!scratch) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolshed-scratch-'));
    scratch = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return scratch;
}

/** A clock the test moves by hand. */
export class ManualClock {
  constructor(public time = 1_000_000) {}
  now = (): number => this.time;
  advance(ms: number): void {
    this.time += ms;
  }
}

/** Creates a host, runs `fn`, and closes the host whatever happens. */
export async function withHost<T>(options: ToolHostOptions, fn: (host: ToolHost) => Promise<T>): Promise<T> {
  const host = await createToolHost(options);
  try {
    return await fn(host);
  } finally {
    await host.close();
  }
}

/**
 * Host options for fixture plugins only (no builtins, no manifest cache), with a minimal env.
 * Fixture plugins are marked trusted (thread tier) and granted what they request.
 */
export function fixtureOptions(plugins: string[], extra: Omit<Partial<ToolHostOptions>, 'config'> & { config?: Record<string, unknown> } = {}): ToolHostOptions {
  const { config, ...rest } = extra;
  return {
    cwd: rest.cwd ?? scratchDir(),
    env: rest.env ?? { PATH: process.env.PATH },
    ...rest,
    config: { builtins: false, cache: { enabled: false }, plugins: plugins.map((p) => ({ package: fixture('plugins', p), trust: 'trusted' as const })), ...config },
  };
}
