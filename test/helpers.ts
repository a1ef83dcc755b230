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

/**
 * A clock the test moves by hand (the host option `clock`): `now()` reads `time`, and timers set
 * through it fire only when `advance` moves past them, in order of when they are due (ties in the
 * order they were set), with `time` at each one's due moment while it runs. `advanceAsync` lets
 * promise callbacks run after each timer, for code that sets its next timer after an await.
 */
export class ManualClock {
  private readonly timers = new Map<number, { at: number; seq: number; fn: () => void }>();
  private ids = 0;
  constructor(public time = 1_000_000) {}
  now = (): number => this.time;
  setTimeout = (fn: () => void, ms: number): number => {
    const id = ++this.ids;
    this.timers.set(id, { at: this.time + Math.max(0, ms), seq: id, fn });
    return id;
  };
  clearTimeout = (handle: unknown): void => {
    this.timers.delete(handle as number);
  };
  /** timers set and not yet fired or cleared */
  get pending(): number {
    return this.timers.size;
  }
  /** when the next timer falls due, if one is set */
  next(): number | undefined {
    let at: number | undefined;
    for (const timer of this.timers.values()) if (at === undefined || timer.at < at) at = timer.at;
    return at;
  }
  /** Moves time on by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.time + ms;
    for (let next = this.due(target); next; next = this.due(target)) this.fire(next);
    this.time = target;
  }
  /** `advance`, letting pending promise callbacks (and I/O callbacks) run after each timer fires. */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.time + ms;
    await settle();
    for (let next = this.due(target); next; next = this.due(target)) {
      this.fire(next);
      await settle();
    }
    this.time = target;
  }
  private due(target: number): number | undefined {
    let found: { id: number; at: number; seq: number } | undefined;
    for (const [id, timer] of this.timers)
      if (timer.at <= target && (!found || timer.at < found.at || (timer.at === found.at && timer.seq < found.seq)))
        found = { id, ...timer };
    return found?.id;
  }
  private fire(id: number): void {
    const timer = this.timers.get(id)!;
    this.timers.delete(id);
    this.time = Math.max(this.time, timer.at);
    timer.fn();
  }
}

/**
 * Real time, moved on by hand: `now()` is Date.now() plus what `advance` added, and timers stay
 * the real ones (the clock has none of its own). For a host whose other waits (audit writes,
 * session sweeps, restarts) run as usual while a test jumps past an expiry.
 */
export class SkewedClock {
  offset = 0;
  now = (): number => Date.now() + this.offset;
  advance(ms: number): void {
    this.offset += ms;
  }
}

/** Lets every pending promise callback and the I/O callbacks queued behind them run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Waits until `condition` holds (returns truthy, and does not throw), checking every `intervalMs`;
 * fails after `timeoutMs` with `what`. For code outside a test body (vi.waitFor and expect.poll
 * do the same inside one): the deadline is for failure, never the expected path.
 */
export async function until<T>(
  condition: () => T | Promise<T>,
  {
    timeoutMs = 10_000,
    intervalMs = 20,
    what = 'the condition',
  }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<Exclude<T, undefined | null | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: unknown;
    try {
      const value = await condition();
      if (value) return value as Exclude<T, undefined | null | false>;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline)
      throw new Error(
        `${what} did not hold within ${timeoutMs} ms${last ? `: ${(last as Error).message ?? String(last)}` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
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
export function fixtureOptions(
  plugins: string[],
  extra: Omit<Partial<ToolHostOptions>, 'config'> & { config?: Record<string, unknown> } = {},
): ToolHostOptions {
  const { config, ...rest } = extra;
  return {
    cwd: rest.cwd ?? scratchDir(),
    env: rest.env ?? { PATH: process.env.PATH },
    ...rest,
    config: {
      builtins: false,
      plugins: plugins.map((p) => ({ package: fixture('plugins', p), trust: 'trusted' as const })),
      ...config,
    },
  };
}

/** What a `toolshed` command did: its exit code, and what it wrote to stdout and stderr. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `toolshed ARGS` run by the CLI's own main() (what bin/toolshed.js runs) in this process, as a
 * child in `cwd` with environment `env` and `input` on a piped stdin would run it, without a Node
 * start: the command's folder is `cwd` (main's io, so the process's own stays), the host's checks
 * and grants see `env` and nothing else, and the variables toolshed reads from the process (its
 * state and cache folders, TOOLSHED_*: none but env's) hold env's values for the run. Output as a pipe
 * gets it: no colour, stderr's control characters shown as text. The command's host is closed
 * before main returns; the environment and any signal or stderr listener it left are restored.
 * What only a real process shows (a start, a signal, a terminal, the process's cwd) needs a child.
 * @example
 * const { code, stdout } = await toolshedMain(['list', '--format', 'names'], { cwd: work.dir });
 */
export async function toolshedMain(
  args: string[],
  {
    cwd,
    env = { ...suiteHome(), PATH: process.env.PATH ?? '' },
    input = '',
  }: { cwd: string; env?: Record<string, string | undefined>; input?: string },
): Promise<CliRun> {
  // Loaded here, not with this module: most files never run the CLI.
  const [{ main }, { styleFor }, { visible }] = await Promise.all([
    import('#internal/core/cli/main.js'),
    import('#internal/core/cli/style.js'),
    import('#internal/core/text/visible.js'),
  ]);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
  const style = styleFor({ isTTY: false }, env);
  const io = {
    out: (text: string) => void stdout.push(line(text)),
    err: (text: string) => void stderr.push(line(visible(text))),
    style,
    errStyle: style,
    errIsTTY: false,
    outIsTTY: false,
    readStdin: () => input,
    cwd,
    env,
  };
  // toolshed's own switches (TOOLSHED_*) are exactly env's, as in a child given env.
  const own = Object.keys(process.env).filter((name) => name.startsWith('TOOLSHED_') && !(name in env));
  const run = { ...env, ...Object.fromEntries(own.map((name) => [name, undefined])) };
  const saved = Object.fromEntries(Object.keys(run).map((name) => [name, process.env[name]]));
  const setEnv = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  // serve and ui listen for signals until they stop, and keep a lost stderr from ending the process.
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const before = {
    SIGINT: process.listeners('SIGINT'),
    SIGTERM: process.listeners('SIGTERM'),
    stderr: process.stderr.listeners('error'),
  };
  setEnv(run);
  try {
    const code = await main(args, io);
    return { code, stdout: stdout.join(''), stderr: stderr.join('') };
  } finally {
    setEnv(saved);
    for (const signal of signals)
      for (const listener of process.listeners(signal))
        if (!before[signal].includes(listener)) process.off(signal, listener);
    for (const listener of process.stderr.listeners('error'))
      if (!before.stderr.includes(listener)) process.stderr.off('error', listener as (error: Error) => void);
  }
}
