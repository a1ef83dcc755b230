/** Shared helpers of the security suite: hosts with untrusted fixture plugins, and facts about processes. */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'vitest';
import type { ToolHost, ToolHostOptions } from 'toolshed';
import { type CliRun, fixture, tempDir, toolshedMain } from '../helpers.js';

/** The hostile fixture plugin: every tool is an attack. */
export const ATTACKER = fixture('security', 'attacker');

/** A plugin entry as an operator writes it for a third-party package. */
export interface UntrustedPlugin {
  package: string;
  trust?: 'trusted' | 'untrusted';
  grant?: { network?: boolean; env?: string[]; fsRead?: string[]; fsWrite?: string[] };
}

/**
 * Host options with only the given plugins, untrusted unless said otherwise, and a minimal env. The
 * manifest cache is on, as users have it: a file's first host of a plugin extracts its manifest in a
 * child, the later ones read it (each test file has its own cache key: test/file-state.ts).
 */
export function untrustedOptions(
  plugins: UntrustedPlugin[],
  extra: Omit<Partial<ToolHostOptions>, 'config'> & { config?: Record<string, unknown> } = {},
): ToolHostOptions {
  const { config, ...rest } = extra;
  return {
    cwd: rest.cwd ?? fixture(),
    env: rest.env ?? { PATH: process.env.PATH },
    ...rest,
    config: { builtins: false, plugins: plugins.map((p) => ({ trust: 'untrusted', ...p })), ...config },
  };
}

/** Calls a tool and parses its JSON result (or its error envelope). */
export async function call(host: ToolHost, name: string, args: unknown = {}): Promise<any> {
  const text = await host.dispatch(name, args);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The host answers, and a fresh call to the same plugin works. */
export async function expectHealthy(host: ToolHost): Promise<void> {
  expect(await host.dispatch('ping', {})).toBe('pong');
}

/** Pids of live (not zombie) processes whose command line contains `marker`. */
export function processesMentioning(marker: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) out.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** Whether /proc is there to look at processes (Linux). */
export const HAS_PROC = existsSync('/proc/self/stat');

/** Runs `fn` with `name` set to `value` in the host's environment (the sandbox probes read it), then restores it. */
export async function withEnv<T>(name: string, value: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env[name];
  process.env[name] = value;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  }
}

/** A server listening on a Unix socket in a fresh temp folder, counting connections. */
export async function unixServer(
  reply: string,
): Promise<{ path: string; connections(): number; close(): Promise<void> }> {
  const work = tempDir('toolshed-sock-');
  const socketPath = path.join(work.dir, 'host.sock');
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    socket.on('error', () => {});
    socket.end(reply);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    path: socketPath,
    connections: () => count,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      work.cleanup();
    },
  };
}

/**
 * `toolshed ARGS` by main() in this process (toolshedMain), in `cwd`, with `env` laid over this
 * process's environment (a value of undefined removes the variable) as the command's and the host's.
 */
export function toolshedInProcess(
  args: string[],
  { cwd, env = {} }: { cwd: string; env?: Record<string, string | undefined> },
): Promise<CliRun> {
  const merged = Object.entries({ ...process.env, ...env }).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
  return toolshedMain(args, { cwd, env: Object.fromEntries(merged) });
}
