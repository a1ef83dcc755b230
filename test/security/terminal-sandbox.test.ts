/**
 * The terminal's commands in the shell sandbox (real bubblewrap, through a real
 * host): they cannot read the host's environment or a file outside the
 * workspace, cannot reach the network, and can build and run code inside the
 * workspace. Read-only and off modes, and the fallback without bubblewrap,
 * which explain and the summary report.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { tempDir, suiteHome } from '../helpers.js';
import { processesMentioning, toolshedInProcess } from './helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const SECRET = 'hunter2-terminal-sandbox';

let work: ReturnType<typeof tempDir>;
let ws: string;
let outside: string;
let server: net.Server;
let port: number;

beforeAll(async () => {
  work = tempDir('toolshed-term-');
  ws = path.join(work.dir, 'workspace');
  outside = path.join(work.dir, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET\n');
  server = net.createServer((socket) => socket.end('hello\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  work.cleanup();
});

/**
 * A host with the terminal, its plugin options `options`, and `config` besides. The manifest
 * cache is on, as for users (the suite's own cache folder): only the first host extracts the
 * terminal's manifest in a worker; the sandbox check runs in every host's own pool all the same.
 */
function terminalHost(
  options: Record<string, unknown> | undefined,
  env: Record<string, string | undefined> = {},
  config: Record<string, unknown> = {},
): Promise<ToolHost> {
  return createToolHost({
    cwd: work.dir,
    root: ws,
    env: { PATH: process.env.PATH, ...env },
    config: {
      enable: ['terminal'],
      cache: { enabled: true },
      ...(options ? { plugins: [{ package: '@toolshed/terminal', options }] } : {}),
      ...config,
    },
  });
}

async function withTerminal<T>(
  options: Record<string, unknown> | undefined,
  fn: (host: ToolHost) => Promise<T>,
  env: Record<string, string | undefined> = {},
  config: Record<string, unknown> = {},
): Promise<T> {
  const host = await terminalHost(options, env, config);
  try {
    return await fn(host);
  } finally {
    await host.close();
  }
}

/**
 * The toolshed CLI as a child (not spawnSync: the tests' own loopback server keeps answering meanwhile); its exit
 * status and output.
 */
function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: unknown; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { encoding: 'utf8', env: { ...suiteHome(), PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ status: error ? (error.code ?? error.signal) : 0, stdout, stderr }),
    );
  });
}

const run = async (host: ToolHost, command: string, extra: Record<string, unknown> = {}) =>
  JSON.parse(await host.dispatch('terminal', { command, ...extra })) as {
    exitCode: number;
    output: string;
    timedOut: boolean;
    error?: string;
    code?: string;
  };

describe('terminal in the sandbox (default: workspace-write)', () => {
  // One host for the tests that only run commands in the default sandbox.
  let host: ToolHost;
  beforeAll(async () => {
    host = await terminalHost(undefined);
  });
  afterAll(async () => {
    await host?.close();
  });

  it("cannot read the host's environment through /proc (the host started with a secret in it)", async () => {
    // /proc/PID/environ shows the environment a process started with, so the host here is a fresh CLI process.
    const call = async (options?: Record<string, unknown>) => {
      const config = path.join(work.dir, `environ-${options ? 'off' : 'on'}.json`);
      writeFileSync(
        config,
        JSON.stringify({
          enable: ['terminal'],
          root: './workspace',
          cache: { enabled: true },
          ...(options ? { plugins: [{ package: '@toolshed/terminal', options }] } : {}),
        }),
      );
      const command = `tr '\\0' '\\n' < /proc/$PPID/environ; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; echo done`;
      const result = await cli(['call', 'terminal', JSON.stringify({ command }), '--config', config], {
        TOOLSHED_TEST_TERMINAL_SECRET: SECRET,
      });
      return JSON.parse(result.stdout).output as string;
    };
    // Both at once: each is a CLI process of its own.
    const [sandboxed, unsandboxed] = await Promise.all([call(), call({ sandbox: 'off' })]);
    expect(sandboxed).toContain('done');
    expect(sandboxed).not.toContain(SECRET);
    // The same command unsandboxed prints it: the check above can fail.
    expect(unsandboxed).toContain(SECRET);
  });

  it('cannot read a file outside the workspace, by path or through ..', async () => {
    const out = await run(host, `cat ${path.join(outside, 'secret.txt')}; cat ../outside/secret.txt; ls /root`);
    expect(out.output).not.toContain('TOP SECRET');
    expect(out.output).toContain('No such file or directory');
  });

  it("cannot reach the network, not even the host's loopback", async () => {
    const out = await run(host, `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected; echo exit=$?`);
    expect(out.output).not.toContain('connected');
  });

  it('can build and run code in the workspace, and what it writes stays there', async () => {
    const out = await run(
      host,
      `mkdir -p build && printf 'console.log(6 * 7)\\n' > build/answer.js && node build/answer.js | tee build/answer.txt && echo tmp > /tmp/scratch && cat /tmp/scratch`,
    );
    expect(out).toMatchObject({ exitCode: 0, output: '42\ntmp\n' });
    expect(readFileSync(path.join(ws, 'build', 'answer.txt'), 'utf8')).toBe('42\n');
    // /tmp is the sandbox's own.
    expect(existsSync('/tmp/scratch') && readFileSync('/tmp/scratch', 'utf8') === 'tmp\n').toBe(false);
  });

  it('output full of control characters still comes back as JSON (the cap counts its escapes)', async () => {
    // 30,000 ESC characters are 180,000 characters of JSON: the host used to cut that inside the output string.
    const out = await run(host, `printf '%*s' 30000 '' | tr ' ' '\\033'; echo done`);
    expect(out.exitCode).toBe(0);
    expect(out.output.endsWith('done\n')).toBe(true);
    expect(out.output).toContain('characters omitted');
  });

  it('comes back as JSON under a result cap the operator set lower than its own', async () => {
    // The host caps at limits.maxResultChars when that is lower than the terminal's own cap: the
    // terminal fits its result to the call's cap (ctx.maxResultChars), or the host would cut it inside the output.
    await withTerminal(
      undefined,
      async (capped) => {
        const text = await capped.dispatch('terminal', { command: `printf '%*s' 20000 '' | tr ' ' a; echo done` });
        expect(text.length).toBeLessThanOrEqual(10_000);
        const out = JSON.parse(text) as { exitCode: number; output: string; note?: string };
        expect(out.exitCode).toBe(0);
        expect(out.output.endsWith('done\n')).toBe(true);
        expect(out.output).toContain('characters omitted');
        expect(out.note).toContain('The output took more than 10000 characters as JSON');
      },
      {},
      { limits: { maxResultChars: 10_000 } },
    );
  });

  it('kills everything the command started on timeout', async () => {
    const marker = `toolshed-sandbox-marker-${process.pid}`;
    const out = await run(host, `sleep 300 & sleep 301; : ${marker}`, { timeoutMs: 500 });
    expect(out.timedOut).toBe(true);
    expect(processesMentioning(marker)).toEqual([]);
  });

  it('explain says the commands are sandboxed, and what holds them', async () => {
    const terminal = host.explain().plugins.find((p) => p.name === '@toolshed/terminal')!;
    expect(terminal.permissions?.enforced).toMatchObject({
      fs: { by: 'sandbox', write: [ws] },
      network: { by: 'sandbox', allowed: false },
      note: 'terminal commands run sandboxed (workspace-write, no network)',
    });
  });
});

describe('terminal sandbox modes', () => {
  it('read-only: reads the workspace, writes nothing', async () => {
    writeFileSync(path.join(ws, 'readme.txt'), 'in the workspace\n');
    await withTerminal({ sandbox: 'read-only' }, async (host) => {
      const out = await run(host, 'cat readme.txt; touch new.txt; echo written=$?');
      expect(out.output).toContain('in the workspace');
      expect(out.output).toContain('Read-only file system');
      expect(existsSync(path.join(ws, 'new.txt'))).toBe(false);
    });
  });

  it('network: true in the options lets commands reach the network', async () => {
    await withTerminal({ network: true }, async (host) => {
      expect((await run(host, `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`)).output).toBe('hello\n');
    });
  });

  it("off: today's behaviour, and explain says so", async () => {
    await withTerminal({ sandbox: 'off' }, async (host) => {
      expect((await run(host, `cat ${path.join(outside, 'secret.txt')}`)).output).toBe('TOP SECRET\n');
      const terminal = host.explain().plugins.find((p) => p.name === '@toolshed/terminal')!;
      expect(terminal.permissions?.enforced).toMatchObject({
        fs: 'declared, not enforced',
        note: "terminal is not sandboxed: options.sandbox is 'off'",
      });
    });
  });

  it('an unknown mode hides the tool with the reason', async () => {
    await withTerminal({ sandbox: 'strict' }, async (host) => {
      const out = await run(host, 'true');
      expect(out.code).toBe('TOOL_NOT_EXPOSED');
      expect(out.error).toContain("options.sandbox is \"strict\"; use one of 'workspace-write', 'read-only', 'off'");
    });
  });
});

describe('terminal without bubblewrap', () => {
  const bwrapOff = { TOOLSHED_SANDBOX_BWRAP: 'off' };
  beforeAll(() => {
    process.env.TOOLSHED_SANDBOX_BWRAP = 'off';
  });
  afterAll(() => {
    delete process.env.TOOLSHED_SANDBOX_BWRAP;
  });

  it("runs as today by default, and explain and the summary say 'terminal is not sandboxed here'", async () => {
    await withTerminal(
      undefined,
      async (host) => {
        expect((await run(host, `cat ${path.join(outside, 'secret.txt')}`)).output).toBe('TOP SECRET\n');
        const terminal = host.explain().plugins.find((p) => p.name === '@toolshed/terminal')!;
        expect(terminal.permissions?.enforced.note).toMatch(
          /^terminal is not sandboxed here: bubblewrap disabled by TOOLSHED_SANDBOX_BWRAP=off/,
        );
      },
      bwrapOff,
    );
    writeFileSync(
      path.join(work.dir, 'toolshed.config.json'),
      JSON.stringify({ enable: ['terminal'], root: './workspace' }),
    );
    // The CLI's summary, through its main() here (TOOLSHED_SANDBOX_BWRAP=off is set for this block).
    const summary = await toolshedInProcess(['--config', path.join(work.dir, 'toolshed.config.json')], {
      cwd: work.dir,
      env: bwrapOff,
    });
    expect(summary.stdout).toContain(
      'terminal is not sandboxed here: bubblewrap disabled by TOOLSHED_SANDBOX_BWRAP=off',
    );
  });

  it('hides the tool when a mode was asked for that needs bubblewrap', async () => {
    await withTerminal(
      { sandbox: 'workspace-write' },
      async (host) => {
        const out = await run(host, 'true');
        expect(out.code).toBe('TOOL_NOT_EXPOSED');
        expect(out.error).toContain("options.sandbox 'workspace-write' needs bubblewrap");
      },
      bwrapOff,
    );
  });
});
