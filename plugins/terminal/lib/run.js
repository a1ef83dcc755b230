// @ts-check
import { spawn } from 'node:child_process';
import { HeadTailBuffer } from './output.js';
// toolshed/toolkit, by its path in the package (see sandbox.js).
import { overLimitMessage, watchResources } from '../../../dist/sandbox/toolkit.js';

/** Time a killed command gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2000;
/**
 * How long to wait, after the shell has exited, for background processes that
 * inherited its stdout/stderr to close them; past that their output is dropped.
 */
export const DRAIN_MS = 500;

/**
 * @typedef {object} RunOptions
 * @property {string} command   the bash command line
 * @property {{ command: string, args: string[] }} [launch] the program that runs it instead of `bash -c command` (the
 *           sandbox launcher)
 * @property {string} cwd
 * @property {Record<string, string>} env
 * @property {number} timeoutMs
 * @property {AbortSignal} [signal]
 * @property {number} headChars
 * @property {number} tailChars
 * @property {import('toolshed/toolkit').ResourceLimits} [limits] the command's limits: the whole group is killed past
 *           its process or memory limit
 */

/**
 * @typedef {object} RunResult
 * @property {number | null} exitCode
 * @property {string | null} signal   the signal that ended the shell, if any
 * @property {boolean} timedOut
 * @property {boolean} aborted
 * @property {boolean} detachedOutput  background processes still held the output when the shell exited
 * @property {number} durationMs
 * @property {string} output
 * @property {number} omittedChars
 * @property {string} [overLimit]  why the command was stopped at a limit ("it went over its memory limit of …")
 */

/**
 * Runs `bash -c command` (or `launch`, the sandbox launcher that starts it) as the leader
 * of a new process group, so a timeout or an abort can kill everything it started
 * (pipelines, subshells, `&` jobs, the sandbox), not just bash.
 * stdout and stderr are merged in arrival order.
 * @param {RunOptions} opts
 * @returns {Promise<RunResult>}
 */
export function runCommand(opts) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const output = new HeadTailBuffer(opts.headChars, opts.tailChars);
    const program = opts.launch ?? { command: 'bash', args: ['-c', opts.command] };
    const child = spawn(program.command, program.args, {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      // No stdin: a command waiting for input would otherwise hang until the timeout.
      stdio: ['ignore', 'pipe', 'pipe'],
    });

    let timedOut = false;
    let aborted = false;
    let killing = false;
    let detachedOutput = false;
    /** @type {{ code: number | null, signal: string | null } | undefined} */
    let exit;
    /** @type {NodeJS.Timeout | undefined} */
    let killTimer;
    /** @type {NodeJS.Timeout | undefined} */
    let drainTimer;
    let settled = false;
    /** @type {string | undefined} */
    let overLimit;

    const killGroup = (/** @type {NodeJS.Signals} */ sig) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // ESRCH: the whole group is already gone.
      }
    };
    const stop = () => {
      if (killing) return;
      killing = true;
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
    };
    const onAbort = () => {
      aborted = true;
      stop();
    };
    const timeout = setTimeout(() => {
      timedOut = true;
      stop();
    }, opts.timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const limits = opts.limits;
    const unwatch =
      limits && child.pid !== undefined
        ? watchResources(child.pid, limits, (over) => {
            overLimit = overLimitMessage(over.limit, limits, over.seen);
            killing = true;
            killGroup('SIGKILL');
          })
        : () => {};

    const cleanup = () => {
      unwatch();
      clearTimeout(timeout);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    const finish = () => {
      if (settled) return;
      settled = true;
      cleanup();
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        aborted,
        detachedOutput,
        durationMs: Math.round(performance.now() - started),
        output: output.toString(),
        omittedChars: output.omitted,
        ...(overLimit ? { overLimit } : {}),
      });
    };

    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (/** @type {string} */ chunk) => output.push(chunk));
    }
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(err);
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Members of the group that ignored SIGTERM must not outlive a killed command.
      if (killing) killGroup('SIGKILL');
      drainTimer = setTimeout(() => {
        detachedOutput = true;
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, DRAIN_MS);
    });
    child.on('close', finish);
  });
}
