/**
 * Runs plugin tasks (manifest, check, handler) in the realm that imports the
 * plugin: a Piscina worker of the thread tier (worker-main.ts), or the main
 * thread of a process-tier child (process/child/child-main.ts). Plugin modules
 * are only ever imported here, never on the host's thread; the only way back
 * to the host is the `HostRpc` it is given. The runner composes its parts: the
 * imported plugins (plugin-modules.ts), the tasks' scopes (task-scope.ts), the
 * running calls and their deadlines (running-calls.ts) and the replies (task-replies.ts).
 */
import { taskEnv, withEnv } from './task-env.js';
import { codedError } from '../../boundary/errors.js';
import { extractManifest, findCheck } from './plugin-object.js';
import { tierOutcome } from '../../boundary/tier-outcome.js';
import type { PinChange } from '../../boundary/pins.js';
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
import type { ToolContext } from '../../boundary/plugin-api.js';
import { toolContext, type ContextLink } from '../../boundary/tool-context.js';
import { PluginModules } from './plugin-modules.js';
import { contextEnv, frozenRoots, TaskScopes } from './task-scope.js';
import { raced, RunningCalls, type CallStop } from './running-calls.js';
import { checkVerdict, failedReply, handlerText } from './task-replies.js';

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
 * Where every call's ctx.log, ctx.progress, ctx.callTool and ctx.sandboxTools go: the inline port when there is one,
 * else the RPC (ctx.session: always the RPC). A nested call the host hands back runs through `handedOff`.
 */
function contextLink(
  host: HostLink,
  inline: InlineLink | undefined,
  handedOff: (answer: Extract<CallAnswer, { runHere: unknown }>) => Promise<CallOutcome>,
): ContextLink {
  return {
    log: (callId, message, level) =>
      inline ? inline.log(callId, message, level) : void host.log(callId, message, level).catch(() => {}),
    progress: (callId, done, total) => {
      if (inline) inline.progress(callId, done, total);
      else void host.progress(callId, done, total).catch(() => {});
    },
    callTool: async (callId, name, args) => {
      const answer = await (inline ? inline.callTool(callId, name, args) : host.callTool(callId, name, args));
      return 'runHere' in answer ? handedOff(answer) : answer;
    },
    sandboxTools: (callId) => host.sandboxTools(callId),
    session: (callId, request) => host.session(callId, request),
  };
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
  return new RealmTaskRunner(host, inline, new PluginModules(verify));
}

/** The task runner of one realm, over its imported plugins, the tasks' scopes and the running calls. */
class RealmTaskRunner implements TaskRunner {
  private readonly scopes = new TaskScopes();
  private readonly calls = new RunningCalls();
  private readonly link: ContextLink;
  private readonly inline: InlineLink | undefined;
  private readonly plugins: PluginModules;

  constructor(host: HostLink, inline: InlineLink | undefined, plugins: PluginModules) {
    this.inline = inline;
    this.plugins = plugins;
    this.link = contextLink(host, inline, (answer) => this.runHandedOff(answer));
  }

  // The task runs with its plugin's env as `process.env` (task-env.ts); a manifest task with the realm's own.
  readonly run = (task: WorkerTask): Promise<WorkerReply> =>
    withEnv(taskEnv(this.scopes.grantOf(task)), this.runTask, task);

  cancel(callId: string): void {
    this.calls.cancel(callId);
  }

  /** One task's reply (the runners are async: what goes wrong rejects, and becomes the failed reply). */
  private readonly runTask = (task: WorkerTask): Promise<WorkerReply> => {
    if (task.kind === 'handler') {
      const plugin = this.plugins.loaded(task.entry);
      if (plugin) return this.handlerReply(task, plugin);
    }
    const work: Promise<unknown> =
      task.kind === 'manifest'
        ? this.runManifest(task)
        : task.kind === 'check'
          ? this.runCheck(task)
          : this.runHandler(task);
    return work.then(succeeded, (error: unknown) => this.failed(task, error));
  };

  private context(task: CheckTask | HandlerTask, stop: CallStop): ToolContext {
    const scope = task.scope === undefined ? undefined : this.scopes.unpacked(task.scope);
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
      this.link,
    );
  }

  /**
   * A nested call the host gated and handed back: run here (as a task from the inline port
   * would be), reported to the host on the inline port, and mapped as the host's dispatch does.
   */
  private async runHandedOff({ runHere }: Extract<CallAnswer, { runHere: unknown }>): Promise<CallOutcome> {
    if (!this.inline) throw codedError('TOOL_CRASHED', 'a nested call was handed to a realm that cannot run one');
    const reply = (await this.run(runHere.task)) as WorkerReply<NormalizedResult>;
    this.inline.done(runHere.id, reply);
    return tierOutcome(runHere.call, reply);
  }

  private async runManifest(task: ManifestTask): Promise<RawManifest> {
    const plugin = await this.plugins.load(task.entry, task.pins);
    try {
      return await extractManifest(plugin, task.entry);
    } catch (error) {
      throw codedError('PLUGIN_INVALID', (error as Error).message, { cause: error });
    }
  }

  private async runCheck(task: CheckTask): Promise<CheckVerdict> {
    const check = findCheck(this.plugins.loaded(task.entry) ?? (await this.plugins.load(task.entry)), task.checkId);
    const stop = this.calls.begin(task.callId, task.timeoutMs);
    let verdict: unknown;
    try {
      const work = check(this.context(task, stop));
      verdict = isThenable(work) ? await raced(stop, work) : work;
    } finally {
      this.calls.settled(task.callId, stop);
    }
    return checkVerdict(verdict);
  }

  private async runHandler(task: HandlerTask): Promise<NormalizedResult> {
    const plugin = this.plugins.loaded(task.entry) ?? (await this.plugins.load(task.entry));
    const handler = this.plugins.handlerOf(task, plugin);
    const stop = this.calls.begin(task.callId, task.timeoutMs);
    let value: unknown;
    try {
      const work = handler(task.args, this.context(task, stop));
      value = isThenable(work) ? await raced(stop, work) : work;
    } finally {
      this.calls.settled(task.callId, stop);
    }
    return handlerText(task, value);
  }

  /**
   * runHandler for a plugin already imported, settled straight to the reply: the handler's
   * promise (when it returns one) and the race against its deadline are the only promises it
   * makes (each pays AsyncLocalStorage's hooks). What it replies is what runHandler's would be.
   */
  private handlerReply(task: HandlerTask, plugin: Record<string, unknown>): Promise<WorkerReply> {
    let stop: CallStop | undefined;
    try {
      const handler = this.plugins.handlerOf(task, plugin);
      const begun = (stop = this.calls.begin(task.callId, task.timeoutMs));
      const work = handler(task.args, this.context(task, begun));
      if (!isThenable(work)) {
        this.calls.settled(task.callId, begun);
        return Promise.resolve(this.handlerOutput(task, work));
      }
      return new Promise<WorkerReply>((resolve) => {
        const fail = (error: unknown) => {
          this.calls.settled(task.callId, begun);
          resolve(this.failed(task, error));
        };
        // The deadline or a cancel settles it first; the handler's own end is then ignored.
        begun.rejectDeadline = fail;
        work.then((value) => {
          this.calls.settled(task.callId, begun);
          resolve(this.handlerOutput(task, value));
        }, fail);
      });
    } catch (error) {
      if (stop) this.calls.settled(task.callId, stop);
      return Promise.resolve(this.failed(task, error));
    }
  }

  /** A handler's value as its reply: the text, capped, or TOOL_RESULT_INVALID. */
  private handlerOutput(task: HandlerTask, value: unknown): WorkerReply<NormalizedResult> | WorkerReply {
    try {
      return { ok: true, value: handlerText(task, value) };
    } catch (error) {
      return this.failed(task, error);
    }
  }

  private failed(task: WorkerTask, error: unknown): WorkerReply {
    return failedReply(task, error, this.scopes.protectOf(task));
  }
}
