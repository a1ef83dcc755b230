/**
 * Imported first by the process-tier child's entry (child-main.ts), before any plugin code:
 * takes away the process-level powers Node's permission model leaves to
 * untrusted code.
 * - Signals: `process.kill`, and `process._debugProcess`, which sends SIGUSR1
 *   and so opens the inspector of any process it names, the host included.
 *   They reach beyond the child wherever no PID namespace is in force.
 * - Nested Workers: a plugin could multiply its threads and heaps past the child's one thread and heap limit.
 * - Unix domain sockets: they reach host services through the filesystem.
 * The originals are never reachable from plugin code: nothing else in this
 * child holds a reference to them, and the replacements cannot be redefined.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { codedError } from '../../boundary/errors.js';

const require = createRequire(import.meta.url);

function denied(what: string): () => never {
  return () => {
    throw codedError('ERR_ACCESS_DENIED', `${what} is not allowed in the untrusted process tier`);
  };
}

function lock(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, writable: false, configurable: false, enumerable: true });
}

for (const name of ['kill', '_kill', '_debugProcess', '_debugEnd', '_linkedBinding'])
  lock(process, name, denied(`process.${name}`));

const os = require('node:os') as Record<string, unknown>;
lock(os, 'setPriority', denied('os.setPriority'));

const workerThreads = require('node:worker_threads') as Record<string, unknown>;
lock(workerThreads, 'Worker', function Worker() {
  denied('starting a Worker')();
});

// Unix domain sockets are files, not network: a network namespace does not
// stop a connect to /var/run/docker.sock or to a socket the host listens on,
// and neither does the permission model before Node 25 (nor after it, for a
// plugin granted the network: --allow-net). Refused here for every client (net,
// http's socketPath, tls, fetch) since all of them connect through Socket#connect.
// The child's own channel needs none of this: it reads stdin and writes fd 3 with fs.
const net = require('node:net') as typeof import('node:net');

function isPipeName(value: unknown): boolean {
  return typeof value === 'string' && !(Number(value) >= 0);
}

/** Own-property copy (getters run once), so what is checked is what is used. */
function snapshot(options: Record<string, unknown>): Record<string, unknown> {
  return { ...options };
}

function refusePaths(args: unknown[], what: string, extra: readonly string[] = []): unknown[] {
  const first = args[0];
  if (isPipeName(first)) denied(what)();
  const normalized = Array.isArray(first);
  const options = normalized ? first[0] : first;
  if (typeof options !== 'object' || options === null) return args;
  const copy = snapshot(options as Record<string, unknown>);
  if (copy.path != null || extra.some((key) => copy[key] != null)) denied(what)();
  if (!normalized) return [copy, ...args.slice(1)];
  // net.connect passes an array tagged with a private symbol; keep the tag so it is not normalized again.
  const array = [copy, ...(first as unknown[]).slice(1)] as unknown[] & Record<symbol, unknown>;
  for (const symbol of Object.getOwnPropertySymbols(first))
    array[symbol] = (first as unknown as Record<symbol, unknown>)[symbol];
  return [array, ...args.slice(1)];
}

const connect = net.Socket.prototype.connect as (...args: unknown[]) => unknown;
lock(net.Socket.prototype, 'connect', function (this: unknown, ...args: unknown[]) {
  return connect.apply(this, refusePaths(args, 'connecting to a Unix domain socket'));
});
const listen = net.Server.prototype.listen as (...args: unknown[]) => unknown;
lock(net.Server.prototype, 'listen', function (this: unknown, ...args: unknown[]) {
  return listen.apply(
    this,
    refusePaths(args, 'listening on a Unix domain socket or an inherited handle', ['fd', 'handle', '_handle']),
  );
});

// Makes `import { Worker } from 'node:worker_threads'` see the replacements too.
syncBuiltinESMExports();
