// @ts-check
import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { childEnv } from './env.js';
import { fitJson } from './output.js';
import { runCommand } from './run.js';
import { checkSandbox, commandLimits, sandboxedLaunch, sandboxPlan, unsandboxedLaunch } from './sandbox.js';
// toolshed/toolkit, by its path in the package (see sandbox.js).
import {
  findProtected,
  overLimitMessage,
  protectedBy,
  protectedMessage,
  refuseCreated,
  SIGXFSZ_EXIT,
} from '../../../dist/sandbox/toolkit.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/** Timeout when the model gives none. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Longest timeout a call may ask for. */
export const MAX_TIMEOUT_MS = 600_000;
/** Characters kept from the start of the output. */
export const HEAD_CHARS = 15_000;
/** Characters kept from the end of the output, where errors and summaries usually are. */
export const TAIL_CHARS = 25_000;
/** The terminal's result cap (its maxResultChars): the output kept and room for the rest of the result. */
export const RESULT_CHARS = HEAD_CHARS + TAIL_CHARS + 2_000;

/** Resolves the working directory for the command and checks that it is a directory. */
async function workingDir(/** @type {ToolContext} */ ctx, /** @type {string | undefined} */ cwd) {
  const base = ctx.cwd ?? process.cwd();
  if (cwd === undefined) return base;
  const dir =
    cwd === '~' ? os.homedir() : cwd.startsWith('~/') ? path.join(os.homedir(), cwd.slice(2)) : path.resolve(base, cwd);
  const info = await stat(dir).catch(() => null);
  if (info === null) throw new Error(`cwd ${cwd} does not exist (resolved to ${dir}).`);
  if (!info.isDirectory()) throw new Error(`cwd ${cwd} is not a directory (resolved to ${dir}).`);
  return dir;
}

/**
 * @param {{ command: string, cwd?: string, timeoutMs?: number }} args
 * @param {ToolContext} ctx
 */
async function terminal(args, ctx) {
  if (ctx.signal?.aborted) throw new Error('The command was cancelled before it started.');
  const cwd = await workingDir(ctx, args.cwd);
  const timeoutMs = Math.min(args.timeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
  const plan = sandboxPlan(ctx);
  if ('unavailable' in plan) throw new Error(`The terminal cannot run commands here: ${plan.reason}.`);
  const env = childEnv(ctx.env);
  // What a command may not create or change: the protected names inside the folders it can write.
  const watched = plan.sandboxed && plan.mode === 'read-only' ? [] : (ctx.roots?.write ?? []);
  const before = findProtected(watched, ctx.roots?.protect);
  const launch = plan.sandboxed
    ? await sandboxedLaunch(plan, ctx, args.command, cwd, env, before)
    : unsandboxedLaunch(ctx, args.command, env);
  const limits = commandLimits(ctx);
  let run;
  try {
    run = await runCommand({
      command: args.command,
      launch,
      cwd,
      env,
      timeoutMs,
      limits,
      signal: ctx.signal,
      headChars: HEAD_CHARS,
      tailChars: TAIL_CHARS,
    });
  } catch (err) {
    throw new Error(`Could not start bash: ${/** @type {Error} */ (err).message}`, { cause: err });
  }
  // First, whatever else happened (a timeout, a limit, a cancel): a protected name it created does not stay.
  refuseProtectedChanges(ctx, cwd, run, refuseCreated(before, findProtected(watched, ctx.roots?.protect)));
  if (run.aborted && !run.timedOut) throw new Error('The command was cancelled; its process group was killed.');
  if (run.overLimit) {
    const tail = run.output.trim().slice(-2_000);
    throw new Error(
      `The command was stopped: ${run.overLimit}; it and everything it started were killed. The operator sets ` +
        `the terminal's limits with resources on its config entry.${tail ? ` Its last output:\n${tail}` : ''}`,
    );
  }

  /** @type {string[]} */
  const notes = [];
  if (run.timedOut) {
    notes.push(
      `Timed out after ${timeoutMs} ms; the command and everything it started were killed. ` +
        (`Raise timeoutMs (up to ${MAX_TIMEOUT_MS}) or run long jobs in the background with output to a file ` +
          `(cmd > out.log 2>&1 &).`),
    );
  }
  // A write past RLIMIT_FSIZE kills the writer with SIGXFSZ (bash reports it as exit 153, "File size limit exceeded").
  if (run.signal === 'SIGXFSZ' || run.exitCode === SIGXFSZ_EXIT || /File size limit exceeded/.test(run.output)) {
    notes.push(`A process was stopped by SIGXFSZ: ${overLimitMessage('fileSizeMb', limits)}.`);
  }
  if (run.omittedChars > 0)
    notes.push(
      `Output was ${run.omittedChars} characters too long; the middle was cut. Redirect to a file and search ` +
        `it for details.`,
    );
  if (run.detachedOutput)
    notes.push(
      'Background processes still hold the output open; what they print later is not captured. Redirect their ' +
        'output to a file.',
    );
  // The result's JSON, not only its output, must fit the cap: cut at the host, it would be no JSON.
  // The call's cap is the host's when the operator set limits.maxResultChars lower than ours.
  return fitJson(
    {
      exitCode: run.exitCode,
      signal: run.signal,
      timedOut: run.timedOut,
      durationMs: run.durationMs,
      ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
      output: run.output,
    },
    Math.min(RESULT_CHARS, ctx.maxResultChars ?? RESULT_CHARS),
  );
}

/**
 * How bash, coreutils and git (`path: Read-only file system`) and Node (`EROFS: read-only file system, open 'path'`)
 * name the path they could not write.
 */
const READ_ONLY = [
  /(?:'([^'\n]+)'|"([^"\n]+)"|([^\s'"`:]+)) ?: ?read-only file system/gi,
  /read-only file system, \w+ '([^'\n]+)'/gi,
];
/** What every match of READ_ONLY contains. */
const READ_ONLY_TEXT = /read-only file system/i;

/**
 * The protected paths a command's output says it could not write (EROFS: the sandbox
 * mounts them read-only), as real paths with the entry that covers each.
 * @param {ToolContext} ctx
 * @param {string} cwd
 * @param {string} output
 */
function readOnlyRefusals(ctx, cwd, output) {
  /** @type {Map<string, import('toolshed/plugin').ProtectedPath>} */
  const hits = new Map();
  // No match spans a line break, so only the lines that say "read-only file system" are searched,
  // with the same matches in the same order. Searched whole, output with a long run of characters
  // and no space (minified code, a wall of one character) cost the first pattern time quadratic in
  // that run's length: a second of CPU for 30,000 characters, on every call.
  const lines = READ_ONLY_TEXT.test(output) ? output.split('\n').filter((line) => READ_ONLY_TEXT.test(line)) : [];
  for (const match of READ_ONLY.flatMap((pattern) => lines.flatMap((line) => [...line.matchAll(pattern)]))) {
    const named = match.slice(1).find((group) => group !== undefined);
    if (!named) continue;
    const target = path.resolve(cwd, named);
    const entry = protectedBy(target, ctx.roots?.protect);
    if (entry !== undefined) hits.set(target, entry);
  }
  return hits;
}

/**
 * Refuses a command that created or changed a protected path, or was stopped by the
 * read-only mount of one: PERMISSION_DENIED naming each path and why, with what was done
 * with a created one (moved aside) and the command's exit status and last output.
 * @param {ToolContext} ctx
 * @param {string} cwd
 * @param {{ exitCode: number | null, output: string }} run
 * @param {import('toolshed/toolkit').ProtectedChange[]} changes
 */
function refuseProtectedChanges(ctx, cwd, run, changes) {
  const shown = (/** @type {string} */ p) => path.relative(cwd, p) || p;
  const lines = changes.map((c) => {
    const said = protectedMessage(shown(c.path), c.entry, c.path);
    if (c.change === 'changed')
      return `${said} The command changed it (this terminal mode cannot hold it); the operator should check it.`;
    return c.movedTo
      ? `${said} The command created it; toolshed moved it aside to ${shown(c.movedTo)}, which nothing reads.`
      : `${said} The command created it and toolshed could not move it aside; the operator should remove it.`;
  });
  const paths = changes.map((c) => c.path);
  for (const [target, entry] of readOnlyRefusals(ctx, cwd, run.output)) {
    if (paths.includes(target)) continue;
    paths.push(target);
    lines.push(
      `${protectedMessage(shown(target), entry, target)} The sandbox holds it read-only, so the command's ` +
        `write failed.`,
    );
  }
  if (!lines.length) return;
  const tail = run.output.trim().slice(-2_000);
  const error = new Error(
    `${lines.join('\n')}\nThe command exited with ${run.exitCode}.${tail ? ` Its last output:\n${tail}` : ''}`,
  );
  throw Object.assign(error, { code: 'PERMISSION_DENIED', data: { paths } });
}

/** The `terminal` tool: runs one shell command and reports its output and exit status. */
export const terminalTool = {
  name: 'terminal',
  toolset: 'terminal',
  description:
    'Run a shell command with `bash -c` and return {exitCode, signal, timedOut, durationMs, note?, output}. ' +
    ('stdout and stderr are merged in the order they arrive. A non-zero exit code is reported, not treated as a ' +
      'failure. ') +
    ('Each call starts a fresh non-interactive shell: `cd` and exported variables do not carry over (use cwd), ' +
      'and stdin ') +
    (`is closed, so pass flags like --yes instead of answering prompts. Output over ${HEAD_CHARS + TAIL_CHARS} ` +
      `characters keeps `) +
    (`the first ${HEAD_CHARS} and the last ${TAIL_CHARS} with a marker in between. On timeout the command and ` +
      `all its child `) +
    ('processes are killed. The environment holds only the variables the operator granted, plus PATH. Where the ' +
      'operator ') +
    ("sandboxed it, commands see only the workspace (read-write, or read-only), the system's programs, a " +
      'private /tmp and ') +
    'no network unless allowed; anything outside the workspace does not exist for them.',
  parameters: {
    type: 'object',
    properties: {
      command: {
        type: 'string',
        minLength: 1,
        description: 'The bash command line to run, e.g. "npm test 2>&1 | tail -20".',
      },
      cwd: {
        type: 'string',
        minLength: 1,
        description:
          'Directory to run in: absolute, or relative to the working directory (default: the working directory).',
      },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_TIMEOUT_MS,
        description:
          `Kill the command after this many milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ` +
          `${MAX_TIMEOUT_MS}).`,
      },
    },
    required: ['command'],
    additionalProperties: false,
  },
  // Process groups and kill(-pgid) are POSIX; Windows has neither.
  requires: { bins: ['bash'], platforms: ['linux', 'darwin', 'freebsd'] },
  // The host's own deadline must outlast the longest command timeout, or the worker would
  // be torn down before the command's group could be killed and reported.
  limits: { timeoutMs: MAX_TIMEOUT_MS + 15_000, maxResultChars: RESULT_CHARS },
  codeCallable: false,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  check: checkSandbox,
  handler: terminal,
};
