/**
 * Runs plugin tasks (manifest, check, handler) in the realm that imports the
 * plugin: a Piscina worker of the thread tier (worker-main.ts), or the main
 * thread of a process-tier child (process/child/child-main.ts). Plugin modules
 * are only ever imported here, never on the host's thread; the only way back
 * to the host is the `HostRpc` it is given.
 */
import { taskEnv, withEnv } from './task-env.js';
import { codedError, serializeError } from '../../boundary/errors.js';
import { extractManifest, findCheck, findHandler, pluginObject, validatingHandlers } from './plugin-object.js';
import { capText, permissionFailure, resultText } from '../../boundary/normalize.js';
import { DeadlineSweeper, type Sweepable } from '../../boundary/deadlines.js';
import { CallTable } from '../../boundary/call-table.js';
import { tierOutcome } from '../../boundary/tier-outcome.js';
import { changedError, changedPin, type PinChange } from '../../boundary/pins.js';
import type { PackedScope } from '../../boundary/protocol.js';
import type {
  CallAnswer,
  CallOutcome,
  CheckTask,
  CheckVerdict,
  NormalizedResult,
  HandlerTask,
  HostRpc,
  ManifestTask,
  RawManifest,
  WorkerReply,
  WorkerTask,
} from '../../boundary/protocol.js';
import type { ProtectedPath, ToolContext } from '../../boundary/plugin-api.js';
import { deepFreeze, toolContext, type ContextLink } from '../../boundary/tool-context.js';

/** A packed scope (CheckTask.scope) parsed and frozen: what the tasks of one plugin share. */
interface UnpackedScope {
  roots: ToolContext['roots'];
  options: ToolContext['options'];
  env: Readonly<Record<string, string>> | undefined;
}

/** At most this many distinct packed scopes are kept parsed (one a plugin). */
const SCOPE_CACHE = 256;

/** A failed handler's stack is cut to this before it leaves the realm. */
const MAX_STACK_CHARS = 8_000;

/** What a realm's host connection must offer: the HostRpc methods, each answering with a promise. */
export type HostLink = {
  [K in keyof HostRpc]: (...args: Parameters<HostRpc[K]>) => Promise<Awaited<ReturnType<HostRpc[K]>>>;
};

/** Runs tasks and stops running calls by call id. */
interface TaskRunner {
  /** Runs one task; every outcome is a `WorkerReply` (a rejection means the realm itself failed). */
  run(task: WorkerTask): Promise<WorkerReply>;
  /** Aborts the running call `callId` (its ctx.signal, and its result as TOOL_CANCELLED). */
  cancel(callId: string): void;
}

/**
 * How one running call stops: its deadline passing (the runner's sweeper calls
 * `abort`) or a host cancel aborts ctx.signal and rejects the call. It is its own
 * sweeper entry, so a call allocates no emitter, listener or timer; the
 * AbortController is made only when the handler reads ctx.signal. Most never do,
 * and creating one per call is a measurable share of a trivial dispatch (see
 * docs/performance.md).
 */
class CallStop implements Sweepable {
  at = Infinity;
  ms = 0;
  slot = -1;
  aborted = false;
  reason: unknown;
  private controller: AbortController | undefined;
  /** rejects the call's race, while the handler's promise is pending */
  rejectDeadline: ((reason: unknown) => void) | undefined;

  /** Fires once: ctx.signal (if read) and the call's race. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    this.rejectDeadline?.(reason);
  }

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.aborted && !this.controller.signal.aborted) this.controller.abort(this.reason);
    return this.controller.signal;
  }
}

/**
 * ctx.roots: the task's own copy frozen where it lies (a task is a structured clone no one else holds), else a frozen
 * copy.
 */
function frozenRoots(task: CheckTask | HandlerTask): ToolContext['roots'] {
  const roots = task.roots as Partial<ToolContext['roots']> | undefined;
  const isRecord = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
  const known = (key: string) =>
    key === 'read' ||
    key === 'write' ||
    (key === 'protect' && Array.isArray(roots?.protect)) ||
    (key === 'folders' && isRecord(roots?.folders));
  if (roots && Array.isArray(roots.read) && Array.isArray(roots.write) && Object.keys(roots).every(known)) {
    return deepFreeze(roots as ToolContext['roots']);
  }
  const protect = Array.isArray(roots?.protect) ? { protect: roots.protect.map((entry) => ({ ...entry })) } : {};
  const folders = isRecord(roots?.folders) ? { folders: { ...roots!.folders } } : {};
  return deepFreeze({ read: [...(roots?.read ?? [])], write: [...(roots?.write ?? [])], ...protect, ...folders });
}

function succeeded(value: unknown): WorkerReply {
  return { ok: true, value };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    ((typeof value === 'object' && value !== null) || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * ctx.env: the task's grant frozen where it lies (the task's own structured clone; its
 * `process.env` is a separate copy, task-env.ts), or a frozen copy of the realm's own env.
 */
function contextEnv(task: CheckTask | HandlerTask): Readonly<Record<string, string>> {
  return task.env ? Object.freeze(task.env) : Object.freeze({ ...(process.env as Record<string, string>) });
}

/**
 * A realm's own channel to the host for a running call's log, progress and nested calls (the
 * thread tier's inline port): one channel, so the host sees them in the order they were made.
 */
export interface InlineLink {
  log(callId: string, message: string, level: string): void;
  progress(callId: string, done: number, total: number | undefined): void;
  /** ctx.callTool's request; the answer may hand the call back to run here */
  callTool(callId: string, name: string, args: unknown): Promise<CallAnswer>;
  /** reports the reply of handed-off call `id` (sent with the next call, or soon after) */
  done(id: number, reply: WorkerReply<NormalizedResult>): void;
}

/**
 * A task runner whose calls reach the host through `host`; `inline` when the host may hand nested
 * calls back to run here; `verify` tells whether a plugin's pinned files changed since the host
 * loaded it (the thread tier; the process tier runs untrusted plugins, which are not pinned:
 * their child is sandboxed, and they are not trusted for being loaded).
 */
export function createTaskRunner(
  host: HostLink,
  inline?: InlineLink,
  verify?: (entry: string) => PinChange | undefined,
): TaskRunner {
  const modules = new Map<string, Promise<Record<string, unknown>>>();
  /** The plugins whose import finished, so a call to a loaded plugin need not await its import again. */
  const loadedPlugins = new Map<string, Record<string, unknown>>();
  /**
   * By plugin, the handlers of its tools whose parameters are Standard Schema objects, behind the
   * schema's own validation (plugin-object.ts); a plugin of JSON Schemas only has no entry.
   */
  const validating = new Map<string, Map<string, (...args: unknown[]) => unknown>>();
  /**
   * Call deadlines, counted from when the task began here, on one coarse timer
   * (see deadlines.ts); they fire up to 10 ms late. The tier's hard deadline, for
   * code that never yields, comes later: in the thread tier 1 s after this one
   * (plus a cold-start allowance), in the process tier at 2× the timeout in the host.
   */
  const deadlines = new DeadlineSweeper(10, (ms) => codedError('TOOL_TIMEOUT', `did not finish within ${ms} ms`));
  /** The calls running here, so a host cancel reaches ctx.signal. */
  const running = new CallTable<CallStop>();

  function loadPlugin(entry: string, pins?: ManifestTask['pins']): Promise<Record<string, unknown>> {
    let loaded = modules.get(entry);
    if (!loaded) {
      // Checked once, before the first import in this worker: calls after it are not slowed. What
      // remains is the moment between this check and the import reading the files; the protected
      // paths keep the model's tools from writing them at all, this is the second line.
      const change = pins ? changedPin(pins) : verify?.(entry);
      if (change) {
        // Kept like a failed import: every later task of the plugin in this worker fails the same way.
        loaded = Promise.reject(changedError(change));
        modules.set(entry, loaded);
        return loaded;
      }
      loaded = import(entry).then(
        (mod: Record<string, unknown>) => {
          try {
            const plugin = pluginObject(mod);
            const handlers = validatingHandlers(plugin);
            if (handlers) validating.set(entry, handlers);
            loadedPlugins.set(entry, plugin);
            return plugin;
          } catch (error) {
            throw codedError('PLUGIN_INVALID', (error as Error).message, { cause: error });
          }
        },
        (error: unknown) => {
          const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
          throw codedError('PLUGIN_IMPORT_FAILED', `importing the plugin failed: ${message}`, { cause: error });
        },
      );
      modules.set(entry, loaded);
    }
    return loaded;
  }

  /**
   * Each distinct packed scope (CheckTask.scope), parsed once and frozen all the way down: the
   * tasks of one plugin share it, and none can change what the next one sees. A handful of
   * plugins each; cleared if it ever holds more than SCOPE_CACHE entries.
   */
  const scopes = new Map<string, UnpackedScope>();

  /**
   * The scope unpacked last: a plugin's tasks come in runs, and comparing its text costs less than hashing it for the
   * map.
   */
  let last: { text: string; scope: UnpackedScope } | undefined;

  function unpacked(text: string): UnpackedScope {
    if (last?.text === text) return last.scope;
    let scope = scopes.get(text);
    if (!scope) {
      const { roots, options, env } = JSON.parse(text) as PackedScope;
      scope = {
        roots: deepFreeze({
          read: roots?.read ?? [],
          write: roots?.write ?? [],
          ...(roots?.protect ? { protect: roots.protect } : {}),
        }),
        options: deepFreeze(options ?? {}),
        env: env ? Object.freeze(env) : undefined,
      };
      if (scopes.size >= SCOPE_CACHE) scopes.clear();
      scopes.set(text, scope);
    }
    last = { text, scope };
    return scope;
  }

  /** The task's env grant, packed or not (undefined: the realm's own env). */
  function grantOf(task: WorkerTask): Readonly<Record<string, string>> | undefined {
    if (task.kind === 'manifest') return undefined;
    return task.scope === undefined ? task.env : unpacked(task.scope).env;
  }

  /**
   * Where every call's ctx.log, ctx.progress, ctx.callTool and ctx.sandboxTools go: the inline port when there is one,
   * else the RPC (ctx.session: always the RPC).
   */
  const link: ContextLink = {
    log: (callId, message, level) =>
      inline ? inline.log(callId, message, level) : void host.log(callId, message, level).catch(() => {}),
    progress: (callId, done, total) => {
      if (inline) inline.progress(callId, done, total);
      else void host.progress(callId, done, total).catch(() => {});
    },
    callTool: async (callId, name, args) => {
      const answer = await (inline ? inline.callTool(callId, name, args) : host.callTool(callId, name, args));
      return 'runHere' in answer ? runHandedOff(answer) : answer;
    },
    sandboxTools: (callId) => host.sandboxTools(callId),
    session: (callId, request) => host.session(callId, request),
  };

  function context(task: CheckTask | HandlerTask, stop: CallStop): ToolContext {
    const scope = task.scope === undefined ? undefined : unpacked(task.scope);
    return toolContext(
      {
        callId: task.callId,
        stop,
        env: scope ? (scope.env ?? Object.freeze({ ...(process.env as Record<string, string>) })) : contextEnv(task),
        cwd: task.cwd,
        roots: scope ? scope.roots : frozenRoots(task),
        options: scope ? scope.options : (task.options ?? {}),
        maxResultChars: task.kind === 'handler' ? task.maxResultChars : undefined,
        sessionId: task.kind === 'handler' ? task.sessionId : undefined,
        // The task's own structured clone: frozen where it lies, gone with the call.
        ...(task.kind === 'handler' && task.secrets ? { secrets: task.secrets } : {}),
      },
      link,
    );
  }

  /**
   * A nested call the host gated and handed back: run here (as a task from the inline port
   * would be), reported to the host on the inline port, and mapped as the host's dispatch does.
   */
  async function runHandedOff({ runHere }: Extract<CallAnswer, { runHere: unknown }>): Promise<CallOutcome> {
    if (!inline) throw codedError('TOOL_CRASHED', 'a nested call was handed to a realm that cannot run one');
    const reply = (await run(runHere.task)) as WorkerReply<NormalizedResult>;
    inline.done(runHere.id, reply);
    return tierOutcome(runHere.call, reply);
  }

  async function runManifest(task: ManifestTask): Promise<RawManifest> {
    const plugin = await loadPlugin(task.entry, task.pins);
    try {
      return await extractManifest(plugin, task.entry);
    } catch (error) {
      throw codedError('PLUGIN_INVALID', (error as Error).message, { cause: error });
    }
  }

  /**
   * A call's deadline, counted from when the task began here (not from when it
   * was queued, so a cold pool's startup does not eat the budget); `settled`
   * ends it. The tier keeps a hard deadline for code that never yields.
   */
  function begin(callId: string, timeoutMs: number): CallStop {
    const stop = deadlines.watch(new CallStop(), timeoutMs);
    running.set(callId, stop);
    return stop;
  }

  function settled(callId: string, stop: CallStop): void {
    running.delete(callId);
    deadlines.unwatch(stop);
  }

  /**
   * What `work` (a handler's or check's promise) comes to, or the call's deadline or cancel,
   * whichever is first. A value returned synchronously is not raced: no deadline can fire
   * before it returns.
   */
  function raced(stop: CallStop, work: PromiseLike<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      stop.rejectDeadline = reject;
      work.then(resolve, reject);
    });
  }

  async function runCheck(task: CheckTask): Promise<CheckVerdict> {
    const check = findCheck(loadedPlugins.get(task.entry) ?? (await loadPlugin(task.entry)), task.checkId);
    const stop = begin(task.callId, task.timeoutMs);
    let verdict: unknown;
    try {
      const work = check(context(task, stop));
      verdict = isThenable(work) ? await raced(stop, work) : work;
    } finally {
      settled(task.callId, stop);
    }
    if (verdict === true) return { ok: true };
    if (verdict === false) return { ok: false, reason: 'check returned false' };
    if (typeof verdict === 'object' && verdict !== null && typeof (verdict as CheckVerdict).ok === 'boolean') {
      const { ok, reason } = verdict as CheckVerdict;
      return ok ? { ok } : { ok, reason: typeof reason === 'string' && reason ? reason : 'check failed' };
    }
    return { ok: false, reason: `check returned ${JSON.stringify(verdict)}; expected true, false or { ok, reason }` };
  }

  async function runHandler(task: HandlerTask): Promise<NormalizedResult> {
    const handler = handlerOf(task, loadedPlugins.get(task.entry) ?? (await loadPlugin(task.entry)));
    const stop = begin(task.callId, task.timeoutMs);
    let value: unknown;
    try {
      const work = handler(task.args, context(task, stop));
      value = isThenable(work) ? await raced(stop, work) : work;
    } finally {
      settled(task.callId, stop);
    }
    const text = resultText(value);
    return { text: capText(text, task.maxResultChars), originalLength: text.length };
  }

  /** The host's protected paths as the task carries them (its packed scope or its own roots). */
  function protectOf(task: WorkerTask): readonly ProtectedPath[] | undefined {
    if (task.kind === 'manifest') return undefined;
    const roots =
      task.scope === undefined ? (task.roots as { protect?: unknown } | undefined) : unpacked(task.scope).roots;
    return Array.isArray(roots?.protect) ? (roots.protect as ProtectedPath[]) : undefined;
  }

  function failed(task: WorkerTask, error: unknown): WorkerReply {
    const serialized = serializeError(permissionFailure(error, protectOf(task)));
    // A handler's error message is bounded like its result before it crosses to the host (the stack repeats it).
    if (task.kind === 'handler') {
      serialized.message = capText(serialized.message, task.maxResultChars);
      if (serialized.stack !== undefined) serialized.stack = serialized.stack.slice(0, MAX_STACK_CHARS);
    }
    return { ok: false, error: serialized };
  }

  /** A handler's value as its reply: the text, capped, or TOOL_RESULT_INVALID. */
  function handlerOutput(task: HandlerTask, value: unknown): WorkerReply<NormalizedResult> | WorkerReply {
    try {
      const text = resultText(value);
      return { ok: true, value: { text: capText(text, task.maxResultChars), originalLength: text.length } };
    } catch (error) {
      return failed(task, error);
    }
  }

  /**
   * runHandler for a plugin already imported, settled straight to the reply: the handler's
   * promise (when it returns one) and the race against its deadline are the only promises it
   * makes (each pays AsyncLocalStorage's hooks). What it replies is what runHandler's would be.
   */
  function handlerReply(task: HandlerTask, plugin: Record<string, unknown>): Promise<WorkerReply> {
    let stop: CallStop | undefined;
    try {
      const handler = handlerOf(task, plugin);
      const begun = (stop = begin(task.callId, task.timeoutMs));
      const work = handler(task.args, context(task, begun));
      if (!isThenable(work)) {
        settled(task.callId, begun);
        return Promise.resolve(handlerOutput(task, work));
      }
      return new Promise<WorkerReply>((resolve) => {
        const fail = (error: unknown) => {
          settled(task.callId, begun);
          resolve(failed(task, error));
        };
        // The deadline or a cancel settles it first; the handler's own end is then ignored.
        begun.rejectDeadline = fail;
        work.then((value) => {
          settled(task.callId, begun);
          resolve(handlerOutput(task, value));
        }, fail);
      });
    } catch (error) {
      if (stop) settled(task.callId, stop);
      return Promise.resolve(failed(task, error));
    }
  }

  /** The handler a task calls: behind its Standard Schema's validation when its parameters are one. */
  function handlerOf(task: HandlerTask, plugin: Record<string, unknown>): (...args: unknown[]) => unknown {
    return validating.get(task.entry)?.get(task.tool) ?? findHandler(plugin, task.tool);
  }

  /** One task's reply (the runners are async: what goes wrong rejects, and becomes the failed reply). */
  function runTask(task: WorkerTask): Promise<WorkerReply> {
    if (task.kind === 'handler') {
      const plugin = loadedPlugins.get(task.entry);
      if (plugin) return handlerReply(task, plugin);
    }
    const work: Promise<unknown> =
      task.kind === 'manifest' ? runManifest(task) : task.kind === 'check' ? runCheck(task) : runHandler(task);
    return work.then(succeeded, (error: unknown) => failed(task, error));
  }

  // The task runs with its plugin's env as `process.env` (task-env.ts); a manifest task with the realm's own.
  const run = (task: WorkerTask): Promise<WorkerReply> => withEnv(taskEnv(grantOf(task)), runTask, task);

  return {
    run,
    cancel: (callId) => running.get(callId)?.abort(codedError('TOOL_CANCELLED', 'cancelled by the caller')),
  };
}
