/**
 * Shared setup of the MCP-server toolset tests: the real servers from npm, a fixture server, and hosts that wait for
 * changes.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolHost, type HostReport, type McpServerEntry, type ToolHost, type ToolHostOptions } from 'toolshed';
import { fixture, ManualClock } from '../helpers.js';

const require = createRequire(import.meta.url);

/** The entry script of an installed `@modelcontextprotocol/server-*` package. */
export function serverScript(name: 'everything' | 'filesystem' | 'memory'): string {
  return path.join(
    path.dirname(require.resolve(`@modelcontextprotocol/server-${name}/package.json`)),
    'dist',
    'index.js',
  );
}

/** The fixture MCP server (list changes, cancellations, exits on demand). */
export const DYNAMIC = fixture('mcp-servers', 'dynamic', 'server.mjs');

/** The fixture MCP server on the SDK's v2 packages (2026-07-28 and 2025; `legacy` and `strict` modes are 2025 only). */
export const MODERN = fixture('mcp-servers', 'modern', 'server.mjs');

/** The CLI entry. */
export const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));

/** What a CLI run printed, and how it ended (spawnSync's fields). */
export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI with `args` and resolves once it has exited: spawnSync's result, without blocking,
 * so a test can run the commands that only read side by side (each waits on its servers' start
 * and close more than it computes).
 */
export function runCli(
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * Folder the hosts run in: inside the repository, so `npx <server>` finds the
 * servers installed as devDependencies, as it would in an app that installed them.
 */
export const PROJECT = fixture('mcp-servers');

/** A host of MCP servers only (no builtins, no manifest cache). */
export function serversHost(
  mcpServers: Record<string, McpServerEntry>,
  extra: { config?: Record<string, unknown>; env?: Record<string, string | undefined> } & Omit<
    Partial<ToolHostOptions>,
    'config' | 'env'
  > = {},
): Promise<ToolHost> {
  const { config, env, ...rest } = extra;
  return createToolHost({
    cwd: PROJECT,
    env: env ?? { PATH: process.env.PATH },
    ...rest,
    config: { builtins: false, cache: { enabled: false }, mcpServers, ...config },
  });
}

/**
 * The hosts of one test file. `open` starts one; `release()` (in afterEach) starts closing the
 * hosts the test opened without waiting for them, and `closeAll()` (in afterAll) waits for every
 * close, failing if one failed. Why not wait in afterEach: a server that outlives its closed stdin
 * holds a close for the SDK's 2 s grace before SIGTERM. server-everything does when it is closed
 * within 350 ms of its start (its delayed roots/list request then waits for an answer that never
 * comes), so a short test of it would wait 2 s for nothing after it ended.
 */
export class FileHosts {
  private readonly running: ToolHost[] = [];
  private readonly closing: Array<Promise<unknown>> = [];

  /** A host of `serversHost(...args)`, closed in teardown. */
  async open(...args: Parameters<typeof serversHost>): Promise<ToolHost> {
    return this.add(await serversHost(...args));
  }

  /**
   * One host of the dynamic fixture server (`DYNAMIC`, with `entry` laid over its config), on a
   * ManualClock its restarts and re-lists wait on: started on the first call, the same one after.
   */
  dynamicOnce(entry: Partial<McpServerEntry> = {}): () => Promise<{ host: ToolHost; clock: ManualClock }> {
    let started: Promise<{ host: ToolHost; clock: ManualClock }> | undefined;
    return () =>
      (started ??= (async () => {
        const clock = new ManualClock();
        return {
          host: await this.open(
            { dynamic: { command: 'node', args: [DYNAMIC], ...entry } as McpServerEntry },
            { clock },
          ),
          clock,
        };
      })());
  }

  /** Closes `host` in teardown. */
  add(host: ToolHost): ToolHost {
    this.running.push(host);
    return host;
  }

  /** Starts closing every host opened so far. */
  release(): void {
    for (const host of this.running.splice(0)) {
      this.closing.push(
        host.close().then(
          () => undefined,
          (error: unknown) => ({ error }),
        ),
      );
    }
  }

  /** Closes every host, and waits for every close started before. */
  async closeAll(): Promise<void> {
    this.release();
    const failed = (await Promise.all(this.closing.splice(0))).find((outcome) => outcome !== undefined) as
      | { error: unknown }
      | undefined;
    if (failed) throw failed.error;
  }
}

/**
 * Resolves with the report once `predicate` holds, re-checking on every 'change'
 * and every 50 ms (a server's connection state shows in explain even when no tool changed).
 */
export function until(
  host: ToolHost,
  predicate: (report: HostReport) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<HostReport> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const report = host.explain();
      if (!predicate(report)) return false;
      cleanup();
      resolve(report);
      return true;
    };
    const onChange = () => void check();
    const poll = setInterval(onChange, 50);
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(
          `timed out waiting for ${what}; last report: ${JSON.stringify(host.explain().plugins.map((p) => p.mcp ?? p.name))}`,
        ),
      );
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      clearInterval(poll);
      host.off('change', onChange);
    };
    host.on('change', onChange);
    check();
  });
}

/** The report of one MCP server (`mcp:<name>`). */
export function server(report: HostReport, name: string) {
  const plugin = report.plugins.find((p) => p.name === `mcp:${name}`);
  if (!plugin?.mcp) throw new Error(`no MCP server ${name} in the report`);
  return plugin.mcp;
}

/** The names in `definitions()`. */
export async function exposedNames(host: ToolHost): Promise<string[]> {
  return (await host.definitions({ format: 'mcp' })).map((d) => d.name);
}
