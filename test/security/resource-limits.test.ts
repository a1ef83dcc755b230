/**
 * Resource limits (docs/security.md, "Resource limits"): every sandboxed child — a stdio MCP
 * server, a terminal command under real bubblewrap, an untrusted plugin's process — is stopped
 * past its process, memory or file-size limit with the limit named, while the host and its
 * other children go on serving. Real hostile fixtures: an SDK server and a plugin package that
 * fork, allocate and write, and a (bounded) fork bomb in the terminal.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { PRLIMIT_ENV, probeSandbox } from '#internal/boundary/launch/probe.js';
import { rlimitPlan } from '#internal/boundary/launch/resources.js';
import { launchCommand } from '#internal/boundary/launch/launch.js';
import { fixture, tempDir } from '../helpers.js';
import { processesMentioning } from './helpers.js';

const LIMITS = { processes: 64, memoryMb: 256, fileSizeMb: 16 };
const MB = 1024 * 1024;
const HOSTILE_SERVER = fixture('mcp-servers', 'hostile-resources');
const NODE_MODULES = path.resolve(fixture(), '..', '..', 'node_modules');
const HOG = fixture('security', 'resource-hog');

let work: ReturnType<typeof tempDir>;
const hosts: ToolHost[] = [];

beforeAll(() => {
  work = tempDir('toolshed-limits-');
  // CI installs bubblewrap and util-linux (.ci/run): without them these tests would prove nothing.
  const support = probeSandbox();
  if (!support.bwrap) throw new Error(`bubblewrap is needed for the resource-limit tests: ${support.bwrapReason}`);
  if (!support.prlimit) throw new Error(`prlimit(1) is needed for the resource-limit tests: ${support.prlimitReason}`);
});

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  // Every process a hostile child started is gone with it.
  await expect.poll(() => processesMentioning('sleep\u0000600').length, { timeout: 10_000 }).toBe(0);
});

afterAll(() => work.cleanup());

async function open(options: Parameters<typeof createToolHost>[0]): Promise<ToolHost> {
  const host = await createToolHost(options);
  hosts.push(host);
  return host;
}

/**
 * A host with the hostile server (limited) and a second, well-behaved copy of it (default limits);
 * closed by the file's afterEach unless `managed` is false (then its test closes it).
 */
function serversHost({ managed = true } = {}): Promise<ToolHost> {
  // Started through a shell, so it is a system program: no Node permission model stops it from forking.
  const entry = (name: string) => ({
    command: '/bin/sh',
    args: ['-c', `exec node ${path.join(HOSTILE_SERVER, 'server.mjs')}`],
    prefix: `${name}_`,
    grant: { fsRead: [NODE_MODULES, HOSTILE_SERVER], fsWrite: [work.dir] },
  });
  return (managed ? open : createToolHost)({
    cwd: work.dir,
    env: { PATH: process.env.PATH },
    config: {
      builtins: false,
      cache: { enabled: false },
      mcpServers: { hostile: { ...entry('hostile'), resources: LIMITS }, other: entry('other') },
    },
  });
}

function mcpReport(host: ToolHost, name: string) {
  return host.explain().plugins.find((p) => p.name === `mcp:${name}`)!.mcp!;
}

describe('a hostile stdio MCP server', () => {
  // One host for the file size limit and then the process limit: the refused write leaves the
  // server serving (the test checks it), and the process limit is the one that stops it. The
  // memory limit, which stops it too, gets a host of its own.
  let limited: Promise<ToolHost> | undefined;
  const limitedHost = () => (limited ??= serversHost({ managed: false }));
  afterAll(async () => {
    await (await limited)?.close();
  });

  it('cannot write a file past its file size limit (2 GB asked for): the write fails with EFBIG', async () => {
    const host = await limitedHost();
    const file = path.join(work.dir, 'huge-from-server');
    const out = await host.call('write', { file, mb: 2048 });
    expect(out).toMatchObject({ ok: false });
    expect(out.ok ? '' : out.message).toContain('EFBIG');
    expect(statSync(file).size).toBe(16 * MB);
    expect(await host.call('ping', {})).toMatchObject({ ok: true, text: 'pong' });
  });

  it('is stopped past its process limit (300 processes asked for), the limit named; the other server still serves', async () => {
    const host = await limitedHost();
    // This test stops the server: the file's afterEach closes the host and sees its processes gone.
    hosts.push(host);
    expect(mcpReport(host, 'hostile').protections!.resources).toMatchObject({
      processes: { limit: 64 },
      memoryMb: { limit: 256 },
      fileSizeMb: { limit: 16, by: 'kernel' },
    });
    const out = await host.call('fork', { count: 300 });
    expect(out).toMatchObject({ ok: false, code: 'TOOL_CRASHED' });
    expect(out.ok ? '' : out.message).toContain(
      'the MCP server hostile was stopped by toolshed: it went over its process limit of 64 processes and threads (resources.processes)',
    );
    expect(await host.call('other_ping', {})).toMatchObject({ ok: true, text: 'pong' });
  });

  it('is stopped past its memory limit (1.5 GB asked for), the limit named; the other server still serves', async () => {
    const host = await serversHost();
    const out = await host.call('allocate', { mb: 1536 });
    expect(out).toMatchObject({ ok: false, code: 'TOOL_CRASHED' });
    expect(out.ok ? '' : out.message).toContain('it went over its memory limit of 256 MB (resources.memoryMb)');
    expect(await host.call('other_allocate', { mb: 32 })).toMatchObject({ ok: true, text: 'holding 32 MB' });
  });
});

describe('without prlimit (TOOLSHED_SANDBOX_PRLIMIT=off)', () => {
  afterEach(() => {
    delete process.env[PRLIMIT_ENV];
  });

  it('says plainly which limits are not in force, and the watchdog still stops a server past its memory limit', async () => {
    process.env[PRLIMIT_ENV] = 'off';
    const host = await serversHost();
    const resources = mcpReport(host, 'hostile').protections!.resources!;
    expect(resources.fileSizeMb).toEqual({
      limit: 16,
      by: 'none',
      how: `not in force: rlimits disabled by ${PRLIMIT_ENV}=off in the host's environment`,
    });
    expect(resources.memoryMb.by).toBe('watchdog');
    expect(host.explain().protection.notInForce).toContain(
      `mcp:hostile: file size limit 16 MB not in force: rlimits disabled by ${PRLIMIT_ENV}=off in the host's environment`,
    );
    const out = await host.call('allocate', { mb: 1536 });
    expect(out).toMatchObject({ ok: false, code: 'TOOL_CRASHED' });
    expect(out.ok ? '' : out.message).toContain('it went over its memory limit of 256 MB (resources.memoryMb)');
  });
});

describe('the terminal under bubblewrap', () => {
  let ws: string;
  // One host for the three commands: each is stopped on its own, and the file's afterEach sees what it started gone
  // before the next.
  let shared: ToolHost;
  beforeAll(async () => {
    ws = path.join(work.dir, 'ws');
    mkdirSync(ws, { recursive: true });
    shared = await createToolHost({
      cwd: ws,
      env: { PATH: process.env.PATH },
      config: {
        cache: { enabled: false },
        enable: ['terminal'],
        plugins: [{ package: '@toolshed/terminal', resources: LIMITS }],
      },
    });
  });
  afterAll(async () => {
    await shared?.close();
  });

  const terminalHost = async (): Promise<ToolHost> => shared;

  it('stops a fork bomb at the process limit, the limit named', async () => {
    const host = await terminalHost();
    // A classic bomb, bounded (depth 9: at most ~1000 processes) so it ends even if no limit held it.
    const bomb = 'b(){ [ "$1" -lt 9 ] && { b $(($1+1)) | b $(($1+1)) & }; sleep 600; }; b 0';
    const out = await host.call('terminal', { command: bomb, timeoutMs: 120_000 });
    expect(out).toMatchObject({ ok: false });
    expect(out.ok ? '' : out.message).toContain(
      'The command was stopped: it went over its process limit of 64 processes and threads (resources.processes)',
    );
    expect(await host.call('terminal', { command: 'echo still here' })).toMatchObject({ ok: true });
    // explain says what holds each limit of the terminal's commands.
    expect(host.explain().protection.resources['@toolshed/terminal']).toMatchObject({
      processes: { limit: 64 },
      memoryMb: { limit: 256 },
      fileSizeMb: { limit: 16, by: 'kernel' },
    });
  });

  it('stops a memory hog at the memory limit, the limit named', async () => {
    const host = await terminalHost();
    const hog = `node -e 'const a=[];(function f(){a.push(Buffer.alloc(16<<20,1)); if (a.length<96) setImmediate(f); else setTimeout(()=>{},60000)})()'`;
    const out = await host.call('terminal', { command: hog, timeoutMs: 120_000 });
    expect(out).toMatchObject({ ok: false });
    expect(out.ok ? '' : out.message).toContain('it went over its memory limit of 256 MB (resources.memoryMb)');
  });

  it('stops `head -c 2G` at the file size limit, the limit named', async () => {
    const host = await terminalHost();
    const out = await host.call('terminal', { command: 'head -c 2G /dev/urandom > big; echo exit=$?' });
    expect(out.ok).toBe(true);
    const result = JSON.parse(out.ok ? out.text : '{}') as { note?: string; output: string };
    expect(result.output).toContain('exit=153');
    expect(result.note).toContain(
      'A process was stopped by SIGXFSZ: it went over its file size limit of 16 MB (resources.fileSizeMb)',
    );
    expect(statSync(path.join(ws, 'big')).size).toBe(16 * MB);
  });
});

describe('an untrusted plugin', () => {
  // One host for both tests: the first ends with the fresh child the second runs in.
  let shared: ToolHost;
  beforeAll(async () => {
    mkdirSync(path.join(work.dir, 'out'), { recursive: true });
    shared = await createToolHost({
      cwd: work.dir,
      env: { PATH: process.env.PATH },
      config: {
        builtins: false,
        cache: { enabled: false },
        resources: LIMITS,
        plugins: [{ package: HOG, trust: 'untrusted', grant: { fsWrite: ['./out'] } }],
      },
    });
  });
  afterAll(async () => {
    await shared?.close();
  });

  const hogHost = async (): Promise<ToolHost> => shared;

  it('is stopped past its memory limit (off-heap), the limit named; the next call gets a fresh child', async () => {
    const host = await hogHost();
    expect(host.explain().plugins[0]!.protections!.resources).toMatchObject({
      memoryMb: { limit: 256 },
      fileSizeMb: { limit: 16, by: 'kernel' },
    });
    const out = await host.call('allocate', { mb: 1536 });
    expect(out).toMatchObject({ ok: false, code: 'TOOL_CRASHED' });
    expect(out.ok ? '' : out.message).toContain(
      'was stopped: it went over its memory limit of 256 MB (resources.memoryMb)',
    );
    expect(await host.call('ping', {})).toMatchObject({ ok: true, text: 'pong' });
  });

  it('cannot fork at all (Node permission model), and cannot write past its file size limit', async () => {
    const host = await hogHost();
    const forked = await host.call('fork', { count: 300 });
    expect(JSON.parse(forked.ok ? forked.text : '{}')).toMatchObject({ started: 0, errors: ['ERR_ACCESS_DENIED'] });
    const file = path.join(work.dir, 'out', 'huge-from-plugin');
    const wrote = await host.call('write', { file, mb: 2048 });
    expect(wrote, JSON.stringify(wrote)).toMatchObject({ ok: true });
    expect(JSON.parse(wrote.ok ? wrote.text : '{}')).toEqual({ written: 16 * MB, code: 'EFBIG' });
    expect(await host.call('ping', {})).toMatchObject({ ok: true, text: 'pong' });
  });
});

/** Runs `launch` (as the unprivileged user nobody when the suite runs as root) and resolves with its stdout. */
function runAsUser(launch: { command: string; args: string[]; env: Record<string, string> }): Promise<string> {
  const [command, args] =
    process.getuid?.() === 0
      ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', launch.command, ...launch.args]]
      : [launch.command, launch.args];
  return new Promise((resolve, reject) => {
    execFile(command as string, args as string[], { env: launch.env, timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}: ${stderr}`)) : resolve(stdout),
    );
  });
}

describe('RLIMIT_NPROC in a user namespace of its own', () => {
  it("stops a fork loop at the limit in each sandbox, counting only that sandbox's tasks (two at once)", async () => {
    // How many `sleep`s node can start before a spawn fails (EAGAIN); node's own threads count too.
    const script = `const {spawn}=require('child_process');let n=0,e;for(let i=0;i<200;i++){const c=spawn('sleep',['600'],{stdio:'ignore'});if(c.pid===undefined){c.on('error',()=>{});e='EAGAIN';break}n++}console.log(JSON.stringify({started:n,error:e}));process.exit(0)`;
    const nodePrefix = path.dirname(path.dirname(realpathSync(process.execPath)));
    const support = { ...probeSandbox(), bwrapUserNamespace: true, root: false };
    const launch = launchCommand(
      {
        command: realpathSync(process.execPath),
        args: ['-e', script],
        readPaths: [nodePrefix],
        writePaths: [],
        network: false,
        env: { PATH: '/usr/bin:/bin' },
        cwd: '/',
        runtime: 'system',
        resources: { processes: 40, memoryMb: 512, fileSizeMb: 16 },
      },
      support,
    );
    expect(launch.protections.resources!.processes.by).toBe('kernel');
    const alone = JSON.parse(await runAsUser(launch)) as { started: number; error?: string };
    expect(alone.error).toBe('EAGAIN');
    expect(alone.started).toBeGreaterThan(10);
    expect(alone.started).toBeLessThan(42);
    // Two at once: each still starts as many as alone, so neither counts the other's tasks.
    const both = (await Promise.all([runAsUser(launch), runAsUser(launch)])).map(
      (out) => JSON.parse(out) as { started: number },
    );
    for (const run of both) expect(Math.abs(run.started - alone.started)).toBeLessThanOrEqual(2);
  });
});

describe('what holds each limit', () => {
  it('leaves room for the runtime: node starts and allocates under the smallest memoryMb (Node 26 maps about 600 MB before it runs)', async () => {
    const prlimit = probeSandbox().prlimit;
    expect(prlimit, 'prlimit(1) is installed by .ci/run').toBeTruthy();
    const plan = rlimitPlan({ processes: 64, memoryMb: 32, fileSizeMb: 16 }, { prlimit: prlimit! }, false);
    const [command, ...args] = plan.prefix;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        command!,
        [
          ...args,
          process.execPath,
          '-e',
          'const b = Buffer.alloc(8e6, 1); new WebAssembly.Memory({ initial: 16 }); console.log(process.version, b.length)',
        ],
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    expect(out.trim()).toBe(`${process.version} 8000000`);
  });

  it('sets RLIMIT_NPROC only in a user namespace of its own, never for root, and says why', () => {
    const limits = { processes: 64, memoryMb: 256, fileSizeMb: 16 };
    const own = rlimitPlan(limits, { prlimit: '/usr/bin/prlimit' }, true);
    expect(own.prefix).toEqual([
      '/usr/bin/prlimit',
      '--nproc=66',
      `--data=${(512 + 1024) * MB}`,
      `--fsize=${16 * MB}`,
      '--',
    ]);
    expect(own.protections.processes.by).toBe('kernel');
    const root = rlimitPlan(limits, { prlimit: '/usr/bin/prlimit', root: true }, true);
    expect(root.prefix).not.toContain('--nproc=66');
    expect(root.protections.processes).toMatchObject({ by: 'watchdog', how: expect.stringContaining('root') });
    const shared = rlimitPlan(limits, { prlimit: '/usr/bin/prlimit' }, false);
    expect(shared.protections.processes.how).toContain('no user namespace of its own');
    const none = rlimitPlan(limits, { prlimitReason: 'prlimit(1) (util-linux) is not installed' }, true);
    expect(none.prefix).toEqual([]);
    expect(none.protections.fileSizeMb).toEqual({
      limit: 16,
      by: 'none',
      how: 'not in force: prlimit(1) (util-linux) is not installed',
    });
  });
});
