/**
 * Real fleet components for the fleet tests: a Valkey or Redis server, replicas
 * of `toolshed serve --http` (separate processes), and haproxy or nginx in
 * front of them. Each starts on free loopback ports and is stopped by `stop()`; tests
 * call it in afterAll, and a file that starts any calls `killLeftoversAfterAll()` at its
 * top, so whatever it started and did not stop (a beforeAll that failed half way) is
 * killed when the file ends and nothing outlives it. `npm test`
 * installs the servers (scripts/test-prerequisites.mjs: Debian's redis-server, haproxy and
 * nginx); a test that needs one and does not find it fails, it is never skipped.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { suiteHome, until } from '../helpers.js';

/** Every process this file started that has not exited. */
const live = new Set<ChildProcess>();

/** Registers `child` so it cannot outlive the test file. */
function track<T extends ChildProcess>(child: T): T {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/**
 * The safety net behind each test's own stop(): kills, when the calling test file ends, every
 * process started here that is still running. Each file that starts any calls it at its top
 * level: the files of a vitest worker share this module (isolate: false), so a hook registered
 * here at import would run for the first of them only.
 */
export function killLeftoversAfterAll(): void {
  afterAll(async () => {
    await Promise.all(
      [...live].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
  });
}

/** The CLI entry replicas run. */
const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));

/** A started process and how to stop it. */
export interface Started {
  child: ChildProcess;
  /** kill -9, as a crash would */
  kill(): void;
  /** SIGTERM, then waits for the exit */
  stop(): Promise<void>;
}

function started(child: ChildProcess): Started {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    child,
    kill: () => void child.kill('SIGKILL'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A free TCP port on loopback (free when asked; a server started on it right after gets it). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Binaries found so far, by the names asked for: each is looked for once per vitest worker. */
const found = new Map<string, string>();

/** The first of `names` found on PATH (or in /usr/sbin, where Debian puts haproxy), else throws. */
function binary(...names: string[]): string {
  const known = found.get(names.join(' '));
  if (known) return known;
  const file = lookUp(names);
  found.set(names.join(' '), file);
  return file;
}

/** Looks for `names` in PATH's folders (and /usr/sbin, /usr/bin): the first that answers `--version` or `-v`. */
function lookUp(names: string[]): string {
  for (const name of names) {
    for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/bin']) {
      const file = path.join(dir, name);
      if (!existsSync(file)) continue;
      if (
        spawnSync(file, ['--version'], { stdio: 'ignore' }).status === 0 ||
        spawnSync(file, ['-v'], { stdio: 'ignore' }).status === 0
      )
        return file;
    }
  }
  throw new Error(`none of ${names.join(', ')} is installed (npm test installs them: scripts/test-prerequisites.mjs)`);
}

/** Resolves with the first match of `pattern` in the child's output, rejects when it exits first. */
function waitFor(
  child: ChildProcess,
  stream: 'stdout' | 'stderr',
  pattern: RegExp,
  what: string,
): Promise<RegExpExecArray> {
  let text = '';
  return new Promise((resolve, reject) => {
    child[stream]!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = pattern.exec(text);
      if (match) resolve(match);
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`${what} exited (${code ?? signal}) before it was ready:\n${text.slice(-2000)}`)),
    );
  });
}

/** A Valkey or Redis server with no persistence, on a free port. */
export interface StoreServer extends Started {
  url: string;
}

/** Starts `valkey-server` (or `redis-server`) on a free loopback port. */
export async function startStateServer(): Promise<StoreServer> {
  const bin = binary('valkey-server', 'redis-server');
  const port = await freePort();
  const child = track(
    spawn(
      bin,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    ),
  );
  await waitFor(child, 'stdout', /Ready to accept connections/, 'the state store server');
  return { ...started(child), url: `redis://127.0.0.1:${port}` };
}

/**
 * The fleet's message key (docs/fleet.md#the-fleets-message-key): every replica started here
 * has it, and a host made in a test that shares a store with them must have it too.
 */
export const FLEET_KEY = 'fleet-test-key-0123456789abcdef0123456789abcdef';

/** A running `toolshed serve --http` replica. */
export interface Replica extends Started {
  /** its MCP endpoint, `http://127.0.0.1:PORT/mcp` */
  url: string;
  /** `127.0.0.1:PORT` */
  address: string;
  /** what it wrote to stderr so far */
  readonly stderr: string;
}

/** How replicas are started. */
export interface ReplicaOptions {
  /** the project folder (its config is found there, or named by `config`) */
  cwd: string;
  config?: string;
  stateless?: boolean;
  /** more `serve` arguments */
  args?: readonly string[];
  /** more environment variables (TOOLSHED_STATE_KEY is FLEET_KEY unless given) */
  env?: Readonly<Record<string, string>>;
  /** a port of its own (default: a free one, so a replica restarted on it comes back at the same address) */
  port?: number;
}

/** Starts one replica and waits until it listens. */
export async function startReplica(options: ReplicaOptions): Promise<Replica> {
  const port = options.port ?? (await freePort());
  const args = [
    BIN,
    'serve',
    '--http',
    `127.0.0.1:${port}`,
    ...(options.stateless ? ['--stateless'] : []),
    ...(options.config ? ['--config', options.config] : []),
    ...(options.args ?? []),
  ];
  const child = track(
    spawn(process.execPath, args, {
      cwd: options.cwd,
      env: { ...suiteHome(), PATH: process.env.PATH ?? '', TOOLSHED_STATE_KEY: FLEET_KEY, ...options.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const match = await waitFor(child, 'stderr', /listening on (http:\/\/\S+\/mcp)/, `replica on port ${port}`);
  return {
    ...started(child),
    url: match[1]!,
    address: `127.0.0.1:${port}`,
    get stderr() {
      return stderr;
    },
  };
}

/**
 * The calls running on `replica` now, by its /metrics (`toolshed_calls_in_flight`, every plugin): what a test waits on
 * before it kills a replica under load.
 */
export async function callsInFlight(replica: Replica): Promise<number> {
  const text = await (await fetch(`http://${replica.address}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('toolshed_calls_in_flight{')) total += Number(line.split(' ').at(-1));
  return total;
}

/** haproxy in front of replicas. */
export interface Balancer extends Started {
  /** the MCP endpoint through the balancer */
  url: string;
  /** where haproxy's config was written */
  configFile: string;
}

/** haproxy, whose warnings can be waited for. */
export interface Haproxy extends Balancer {
  /** Resolves once haproxy's health check has marked the server named `name` DOWN (its own warning line says so). */
  down(name: string): Promise<void>;
}

/**
 * Starts haproxy with `config`, a haproxy.cfg in which `{{PORT}}` is the port
 * to listen on and `{{SERVERS}}` the `server` lines of `backends` (each
 * `name address` plus `serverOptions`). The shipped configurations in
 * `deploy/` are written with these two placeholders, so the tests run them as
 * they are. `port` is the one to listen on (default: a free one), for replicas
 * that must know the balancer's URL before it starts (`--public-url`).
 */
export async function startHaproxy(
  config: string,
  backends: readonly string[],
  dir: string,
  serverOptions = 'check inter 500ms fall 1 rise 1',
  port?: number,
): Promise<Haproxy> {
  const bin = binary('haproxy');
  port ??= await freePort();
  const servers = backends
    .map((address, index) => `    server replica${index + 1} ${address} ${serverOptions}`)
    .join('\n');
  const configFile = path.join(dir, `haproxy-${port}.cfg`);
  writeFileSync(configFile, config.replaceAll('{{PORT}}', String(port)).replaceAll('{{SERVERS}}', servers));
  const check = spawnSync(bin, ['-c', '-f', configFile], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy refused ${configFile}:\n${check.stdout}${check.stderr}`);
  // -db: stay in the foreground, log to stderr.
  const child = track(spawn(bin, ['-db', '-f', configFile], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stdout!.resume();
  await waitUntilListening(port, child);
  const down = (name: string) => {
    const line = new RegExp(`Server \\S+/${name.replaceAll('.', '\\.')} is DOWN`);
    return new Promise<void>((resolve, reject) => {
      const look = () => {
        if (!line.test(output)) return false;
        child.stderr!.off('data', look);
        resolve();
        return true;
      };
      if (look()) return;
      child.stderr!.on('data', look);
      child.once('exit', () =>
        reject(new Error(`haproxy exited before it marked ${name} down:\n${output.slice(-2000)}`)),
      );
    });
  };
  return { ...started(child), url: `http://127.0.0.1:${port}/mcp`, configFile, down };
}

/**
 * The text of each nginx placeholder for `backends`, named replica1, replica2…
 * in order (start the replicas with `--replica replicaN` for the stateful
 * configuration): `{{SERVERS}}` the pool's `server` lines; `{{REPLICAS}}` an
 * upstream per replica, its own server first and the others as backups (a
 * request for a dead replica's session reaches a live one, which answers that
 * the session ended); `{{ROUTES}}` the `map` lines from a session id's
 * `NAME.` prefix to that upstream.
 */
function nginxPlaceholders(backends: readonly string[]): Record<string, string> {
  const names = backends.map((_, index) => `replica${index + 1}`);
  const servers = backends.map((address) => `    server ${address} max_fails=1 fail_timeout=1s;`).join('\n');
  const replicas = backends
    .map((address, index) => {
      const backups = backends.filter((_, other) => other !== index).map((other) => `    server ${other} backup;`);
      return [`upstream ${names[index]} {`, `    server ${address} max_fails=1 fail_timeout=1s;`, ...backups, '}'].join(
        '\n',
      );
    })
    .join('\n');
  const routes = names.map((name) => `    ~^${name}\\. ${name};`).join('\n');
  return { SERVERS: servers, REPLICAS: replicas, ROUTES: routes };
}

/**
 * Starts nginx with `config`, one of the shipped `deploy/nginx-*.conf` files:
 * an `http`-level snippet (what goes in `conf.d/`) with `{{PORT}}` and the
 * placeholders of nginxPlaceholders. A main file written next to it in `dir`
 * includes it, and keeps the pid file and temp paths in `dir` and the error
 * log on stderr, so nginx runs as any user, in the foreground.
 */
export async function startNginx(
  config: string,
  backends: readonly string[],
  dir: string,
  port?: number,
): Promise<Balancer> {
  const bin = binary('nginx');
  port ??= await freePort();
  const prefix = path.join(dir, `nginx-${port}`);
  mkdirSync(path.join(prefix, 'temp'), { recursive: true });
  let text = config.replaceAll('{{PORT}}', String(port));
  for (const [name, value] of Object.entries(nginxPlaceholders(backends))) text = text.replaceAll(`{{${name}}}`, value);
  const configFile = path.join(prefix, 'toolshed.conf');
  writeFileSync(configFile, text);
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((kind) => `    ${kind}_temp_path temp/${kind};`)
    .join('\n');
  const main = path.join(prefix, 'nginx.conf');
  writeFileSync(
    main,
    `pid nginx.pid;\nerror_log stderr warn;\nevents { worker_connections 1024; }\nhttp {\n    access_log off;\n${temps}\n    include toolshed.conf;\n}\n`,
  );
  const args = ['-p', prefix, '-c', main, '-g', 'daemon off; master_process on; worker_processes 1;'];
  const check = spawnSync(bin, [...args, '-t'], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx refused ${configFile}:\n${check.stdout}${check.stderr}`);
  const child = track(spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  await waitUntilListening(port, child);
  return { ...started(child), url: `http://127.0.0.1:${port}/mcp`, configFile };
}

/** Resolves once something accepts connections on `port`; rejects when `child` exits first, or after 5 s. */
async function waitUntilListening(port: number, child: ChildProcess): Promise<void> {
  await until(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the process for port ${port} exited (${child.exitCode ?? child.signalCode})`);
      return new Promise<boolean>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
    },
    { timeoutMs: 5_000, intervalMs: 25, what: `something listening on port ${port}` },
  );
}
