/**
 * The unit project's setup file: a unit test tests a pure stage, so starting a worker, a
 * child process or a network socket fails the test at once, naming what it tried and where
 * such a test belongs. Node's built-in modules share one object between `import x from` and
 * the named imports (after syncBuiltinESMExports), so replacing the functions here covers
 * every importer, Piscina and fetch included.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import workerThreads from 'node:worker_threads';

function refuse(what: string): never {
  throw new Error(
    `a unit test may not ${what}: test the pure stage (the Clock, test/support/registry-fixture.ts), or move the file to the integration project (vitest.config.ts)`,
  );
}

const mutableChildProcess = childProcess as unknown as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync'] as const) {
  mutableChildProcess[name] = () => refuse(`start a child process (child_process.${name})`);
}
net.Server.prototype.listen = function listen(): never {
  return refuse('listen on a socket');
};
net.Socket.prototype.connect = function connect(): never {
  return refuse('open a network connection');
};
(workerThreads as unknown as Record<string, unknown>).Worker = class RefusedWorker {
  constructor() {
    refuse('start a worker thread');
  }
};
syncBuiltinESMExports();
