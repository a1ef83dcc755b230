/**
 * The resource guard of a program the host cannot watch itself (a stdio MCP
 * server, which the MCP SDK spawns): a small node process, run on the host's
 * side as `node limits-guard.js <limits JSON> -- <launcher command…>`, that
 * starts the sandboxed program in its own process group with the same stdio,
 * watches its tasks and memory (resource-watch.ts), and stops the whole group
 * when it goes over a limit. Its last line on stderr says which limit
 * ("stopped by toolshed: it went over its memory limit of 256 MB
 * (resources.memoryMb)"), so the host's report and the failed call name it.
 * It exits as the program did; SIGTERM, SIGINT and SIGHUP are passed on.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { overLimitMessage, SIGXFSZ_EXIT, type ResourceLimits } from './resources.js';
import { watchResources } from './resource-watch.js';

/** What the guard's first argument carries. */
export interface GuardSettings {
  limits: ResourceLimits;
}

const STOPPED = 'stopped by toolshed';

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone
  }
}

function main(argv: string[]): void {
  const split = argv.indexOf('--');
  if (split !== 1 || argv.length < 3) {
    process.stderr.write('limits-guard: usage: limits-guard.js <settings JSON> -- <command> [args…]\n');
    process.exit(2);
  }
  const { limits } = JSON.parse(argv[0]!) as GuardSettings;
  const [command, ...args] = argv.slice(2);
  const child = spawn(command!, args, { stdio: 'inherit', detached: true });
  let stopped = false;
  const unwatch = child.pid === undefined ? () => {} : watchResources(child.pid, limits, (over) => {
    stopped = true;
    process.stderr.write(`${STOPPED}: ${overLimitMessage(over.limit, limits, over.seen)}\n`);
    killGroup(child.pid, 'SIGKILL');
  });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => killGroup(child.pid, signal));
  child.once('error', (error) => {
    process.stderr.write(`limits-guard: could not start ${command}: ${error.message}\n`);
    process.exit(127);
  });
  child.once('exit', (code, signal) => {
    unwatch();
    // A write past RLIMIT_FSIZE kills a process with SIGXFSZ (a launcher reports it as 128 + 25).
    if (!stopped && (signal === 'SIGXFSZ' || code === SIGXFSZ_EXIT)) process.stderr.write(`${STOPPED}: ${overLimitMessage('fileSizeMb', limits)}\n`);
    killGroup(child.pid, 'SIGKILL');
    process.exitCode = stopped ? 128 + constants.signals.SIGKILL : (code ?? 128 + (signal ? constants.signals[signal] : 0));
  });
}

main(process.argv.slice(2));
