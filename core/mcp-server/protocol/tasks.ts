/**
 * MCP tasks (revision 2025-11-25) on an SDK v2 server: the `tasks` capability, `tasks/get`,
 * `tasks/result`, `tasks/list`, `tasks/cancel` (registered in the SDK's explicit-schema form,
 * since v2 keeps tasks out of its typed methods), and a task-augmented `tools/call` turned into
 * a task of the session's TaskScope (tasks-store.ts). The 2026-07-28 core has no tasks: on that
 * era the SDK strips `params.task` and the capability, and the task methods answer -32601.
 */
import {
  CancelTaskRequestV1Schema,
  GetTaskRequestV1Schema,
  GetTaskResultRequestV1Schema,
  ListTasksRequestV1Schema,
  type TaskV1,
} from '@modelcontextprotocol/ext-tasks/core/v1';
import {
  type CallToolRequestParams,
  type CallToolResult,
  type JSONRPCRequest,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Result,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { TaskScope, TaskWork } from './tasks-store.js';
import type { McpTool } from '../../providers/types.js';

export { TaskScope, type TaskScopeOptions } from './tasks-store.js';

/** What `run` gets for one call made as a task. */
export interface TaskRunContext {
  readonly taskId: string;
  /** aborts on tasks/cancel, ttl expiry or the session's close, never when the tools/call request ends */
  readonly signal: AbortSignal;
  /** relays the tool's progress on the call's own progressToken (present only when the client sent one) */
  readonly onProgress?: (done: number, total?: number) => void;
  /** the `_meta` every request the call sends the client (an elicitation) must carry to name its task */
  readonly relatedTaskMeta: Record<string, { taskId: string }>;
  /** marks the task `input_required` while `wait` runs (waiting on the client's approval or elicitation) */
  awaitInput<T>(wait: () => Promise<T>): Promise<T>;
}

/** How a server runs the calls made as tasks. */
interface TasksOptions {
  /** the session's tasks: one TaskScope per MCP session, shared by every server serving it */
  scope: TaskScope;
  /**
   * runs one call (as the server's tools/call would, for the request `ctx` that started it) and resolves with its
   * result; a throw is answered as that JSON-RPC error
   */
  run(params: CallToolRequestParams, context: TaskRunContext, ctx: ServerContext): Promise<CallToolResult>;
  /**
   * whether the tool `name` may run as a task (a listed tool with `execution.taskSupport`); default every tool.
   * Refused: -32601
   */
  allows?(name: string, ctx: ServerContext): boolean | Promise<boolean>;
}

/** A task-augmented tools/call: what the server does with one instead of its tools/call handler. */
type TaskCallHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * The task-call handler of each server tasks are installed on (a module map: the SDK's constructor runs before subclass
 * fields exist).
 */
const taskCalls = new WeakMap<Server, TaskCallHandler>();

/**
 * An SDK `Server` that can answer a task-augmented `tools/call` with a `CreateTaskResult`: the
 * SDK's own tools/call wrapper validates every result as a `CallToolResult` and would refuse
 * one, so a task-augmented call goes to installTasks' handler before that wrapper (the
 * `_wrapHandler` hook is the SDK's documented seam for subclasses). Without installTasks it is
 * a plain `Server`.
 */
export class TaskServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'tools/call') return wrapped;
    return (request, ctx) => {
      const onTask = taskCalls.get(this);
      // On 2026-07-28 `params.task` means nothing: the SDK drops it past this point, and so does this.
      return onTask && isTaskAugmented(request.params) && !servesModernEra(this)
        ? onTask(request, ctx)
        : wrapped(request, ctx);
    };
  }
}

/**
 * Offers MCP tasks on `server` (before it connects): declares the `tasks` capability, registers
 * the task methods over `options.scope`, and makes a task-augmented tools/call a task that
 * `options.run` runs. Status changes go out as `notifications/tasks/status`.
 * @example
 * const scope = new TaskScope();                      // one per MCP session
 * const server = new TaskServer({ name: 'toolshed', version }, { capabilities: { tools: {} } });
 * installTasks(server, { scope, run: (params, { signal, onProgress }) => runCall(params, signal, onProgress) });
 * server.setRequestHandler('tools/call', …);          // sees only calls not made as tasks
 */
export function installTasks(server: TaskServer, options: TasksOptions): void {
  const { scope } = options;
  server.registerCapabilities({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
  taskCalls.set(server, (request, ctx) => startTask(server, options, request, ctx));
  server.setRequestHandler('tasks/get', { params: GetTaskRequestV1Schema.shape.params }, (params) => {
    refuseModernEra(server, 'tasks/get');
    return scope.get(params.taskId);
  });
  server.setRequestHandler(
    'tasks/result',
    { params: GetTaskResultRequestV1Schema.shape.params },
    async (params, ctx) => {
      refuseModernEra(server, 'tasks/result');
      const result = await scope.result(params.taskId, ctx.mcpReq.signal);
      return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId: params.taskId } } };
    },
  );
  server.setRequestHandler('tasks/list', { params: ListTasksRequestV1Schema.shape.params }, (params) => {
    refuseModernEra(server, 'tasks/list');
    return scope.list(params?.cursor);
  });
  server.setRequestHandler('tasks/cancel', { params: CancelTaskRequestV1Schema.shape.params }, (params) => {
    refuseModernEra(server, 'tasks/cancel');
    return scope.cancel(params.taskId);
  });
}

/**
 * The tools/list entries `server` sends: `execution.taskSupport` (the mcp format's mark of a
 * long-running tool) stays only where installTasks made the server offer tasks.
 */
export function listedTools(tools: readonly McpTool[], server: Server): McpTool[] {
  if (taskCalls.has(server)) return [...tools];
  return tools.map((tool) => {
    if (!tool.execution) return tool;
    const { execution: _dropped, ...rest } = tool;
    return rest;
  });
}

/** Starts a task-augmented tools/call as a task of the session and answers its `CreateTaskResult` at once. */
async function startTask(
  server: TaskServer,
  options: TasksOptions,
  request: JSONRPCRequest,
  ctx: ServerContext,
): Promise<Result> {
  const params = callParams(request.params);
  if (options.allows && !(await options.allows(params.name, ctx))) {
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `Tool ${params.name} does not support task execution: call it without params.task`,
    );
  }
  const progressToken = params._meta?.progressToken;
  const notify = (method: string, notification: Record<string, unknown>) => {
    // The client may be gone; a status or progress it cannot get must not fail the task.
    server.notification({ method, params: notification }).catch(() => {});
  };
  const onStatus = (task: TaskV1) => notify('notifications/tasks/status', task);
  const task = options.scope.start(
    params.task?.ttl,
    (work) => options.run(params, runContext(work, progressToken, notify), ctx),
    onStatus,
  );
  return { task };
}

/**
 * The context `run` gets: the task's signal and input marker, and progress relayed only while the task runs, only
 * increasing.
 */
function runContext(
  work: TaskWork,
  progressToken: string | number | undefined,
  notify: (method: string, params: Record<string, unknown>) => void,
): TaskRunContext {
  const context: TaskRunContext = {
    taskId: work.taskId,
    signal: work.signal,
    relatedTaskMeta: { [RELATED_TASK_META_KEY]: { taskId: work.taskId } },
    awaitInput: (wait) => work.awaitInput(wait),
  };
  if (progressToken === undefined) return context;
  let last = -Infinity;
  const onProgress = (done: number, total?: number) => {
    if (work.signal.aborted || !(done > last)) return;
    last = done;
    notify('notifications/progress', {
      progressToken,
      progress: done,
      ...(total === undefined ? {} : { total }),
      _meta: { [RELATED_TASK_META_KEY]: { taskId: work.taskId } },
    });
  };
  return { ...context, onProgress };
}

/** The tools/call params of a task-augmented request, checked as the SDK checks a plain call (-32602 otherwise). */
function callParams(raw: unknown): CallToolRequestParams & { task?: { ttl?: number } } {
  const params = raw as { name?: unknown; arguments?: unknown; task?: { ttl?: unknown } };
  const invalid = (why: string) =>
    new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid tools/call request: ${why}`);
  if (typeof params.name !== 'string') throw invalid('params.name must be a string');
  if (
    params.arguments !== undefined &&
    (typeof params.arguments !== 'object' || params.arguments === null || Array.isArray(params.arguments))
  ) {
    throw invalid('params.arguments must be an object');
  }
  const ttl = params.task?.ttl;
  if (ttl !== undefined && ttl !== null && typeof ttl !== 'number')
    throw invalid('params.task.ttl must be a number of milliseconds');
  return params as CallToolRequestParams & { task?: { ttl?: number } };
}

/** A request's params carry `task` (an object): the client asks for the call to run as a task. */
function isTaskAugmented(params: unknown): boolean {
  const task = (params as { task?: unknown } | undefined)?.task;
  return typeof task === 'object' && task !== null && !Array.isArray(task);
}

/** The server speaks MCP 2026-07-28 or later (a 2025 handshake, or none yet on a stateless 2025 request, is not). */
function servesModernEra(server: Server): boolean {
  const version = server.getNegotiatedProtocolVersion();
  return version !== undefined && version >= '2026-07-28';
}

/** The 2026-07-28 core has no tasks (its Tasks extension is another wire): its task methods do not exist. */
function refuseModernEra(server: Server, method: string): void {
  if (servesModernEra(server))
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `Method not found: ${method} (no tasks on MCP ${server.getNegotiatedProtocolVersion()})`,
    );
}
