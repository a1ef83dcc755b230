/** Shared helpers of the security suite: hosts with untrusted fixture plugins, and facts about processes. */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'vitest';
import type { ToolHost, ToolHostOptions } from 'toolshed';
import { fixture, tempDir } from '../helpers.js';

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
export function untrustedOptions(plugins: UntrustedPlugin[], extra: Omit<Partial<ToolHostOptions>, 'config'> & { config?: Record<string, unknown> } = {}): ToolHostOptions {
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
export async function unixServer(reply: string): Promise<{ path: string; connections(): number; close(): Promise<void> }> {
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
 * `toolshed ARGS` in `cwd`, run by the CLI's own main() (what bin/toolshed.js runs) in this
 * process, with `env` set for the run (and restored) and output as a piped process writes it:
 * each command a start of its own, without a Node start each. Its exit code and output.
 */
export async function toolshedInProcess(args: string[], { cwd, env = {} }: { cwd: string; env?: Record<string, string | undefined> }): Promise<{ code: number; stdout: string; stderr: string }> {
  // Loaded here, not with this module: most security files never run the CLI.
  const [{ main }, { styleFor }, { visible }] = await Promise.all([import('#internal/core/cli/main.js'), import('#internal/core/cli/style.js'), import('#internal/core/text/visible.js')]);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
  const plain = styleFor({ isTTY: false });
  const io = { out: (text: string) => void stdout.push(line(text)), err: (text: string) => void stderr.push(line(visible(text))), style: plain, errStyle: plain, errIsTTY: false, outIsTTY: false, readStdin: () => '' };
  const savedCwd = process.cwd();
  const savedEnv = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  const setEnv = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  process.chdir(cwd);
  setEnv(env);
  try {
    const code = await main(args, io);
    return { code, stdout: stdout.join(''), stderr: stderr.join('') };
  } finally {
    process.chdir(savedCwd);
    setEnv(savedEnv);
  }
}
