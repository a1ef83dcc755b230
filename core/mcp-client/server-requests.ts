/**
 * What an MCP server asks of toolshed as its client, and where it goes: its
 * log messages to the call they belong to (or the host's `log` event) and to
 * explain's last few; elicitation to the call's `onElicitation`, then the
 * host's, else declined with the reason; `roots/list` answered with the
 * workspace root; sampling to the embedder's `onSampling`, offered only with
 * one. Neither era says on stdio which request a message belongs to, so it
 * goes to the call running on that server when exactly one is.
 */
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import type { Client, ClientCapabilities, ElicitResult as McpElicitResult } from '@modelcontextprotocol/client';
import type { CallHooks } from '../runners/runner.js';
import type { ServerLogEntry } from '../runners/connection-report.js';
import type { ElicitRequest, ElicitResult, Elicitor, LogLevel, Sampler } from '../../boundary/server-requests.js';
import { logLevel } from '../../boundary/tool-context.js';

/** The log level toolshed asks servers for (`logging/setLevel`, or each request's logLevel on 2026-07-28). */
export const SERVER_LOG_LEVEL: LogLevel = 'info';
/** Log entries of one server kept for explain. */
const KEPT_LOGS = 50;
/** Characters of one log message kept. */
const LOG_CHARS = 2_000;

/** What answers a server's requests on behalf of the host. */
export interface ClientAnswerers {
  /** the host's `onElicitation`, after a call's own */
  onElicitation?: Elicitor;
  /** the host's `onSampling`: sampling is offered only with it */
  onSampling?: Sampler;
  /** the folders offered as MCP roots (the workspace root), absolute */
  roots: readonly string[];
}

/** One call running on a server: its tool and what its caller lent it. */
interface RunningCall {
  tool: string;
  hooks: CallHooks;
  signal?: AbortSignal;
}

/**
 * The capabilities toolshed declares to a server: elicitation and roots always, sampling only with an embedder's
 * callback.
 */
export function clientCapabilities(answerers: ClientAnswerers): ClientCapabilities {
  return { elicitation: { form: {}, url: {} }, roots: {}, ...(answerers.onSampling ? { sampling: {} } : {}) };
}

/** The names of what `clientCapabilities` offers, for explain. */
export function offered(answerers: ClientAnswerers): string[] {
  return ['elicitation', 'roots', ...(answerers.onSampling ? ['sampling'] : [])];
}

function text(data: unknown): string {
  const out = typeof data === 'string' ? data : (JSON.stringify(data) ?? String(data));
  return out.length > LOG_CHARS ? `${out.slice(0, LOG_CHARS)}… [cut by toolshed]` : out;
}

/** One server's requests and log messages, routed. */
export class ServerRequests {
  private readonly running = new Set<RunningCall>();
  /** the last log messages and request notes, for explain */
  readonly logs: ServerLogEntry[] = [];

  constructor(
    private readonly server: string,
    private readonly answerers: ClientAnswerers,
    /** the host's log, for messages that belong to no call */
    private readonly hostLog: (entry: { message: string; level: LogLevel; logger?: string }) => void,
  ) {}

  /** Marks a call as running until the returned function is called. */
  begin(tool: string, hooks: CallHooks, signal?: AbortSignal): () => void {
    const call: RunningCall = { tool, hooks, ...(signal ? { signal } : {}) };
    this.running.add(call);
    return () => this.running.delete(call);
  }

  /** The call a message belongs to: the one running, when exactly one is. */
  private current(): RunningCall | undefined {
    if (this.running.size !== 1) return undefined;
    return this.running.values().next().value;
  }

  private keep(level: LogLevel, message: string, logger?: string): void {
    this.logs.push({ level, message, at: new Date().toISOString(), ...(logger !== undefined ? { logger } : {}) });
    if (this.logs.length > KEPT_LOGS) this.logs.splice(0, this.logs.length - KEPT_LOGS);
  }

  /** A `notifications/message`: to the running call's log, else the host's; kept for explain either way. */
  log(params: { level?: unknown; logger?: unknown; data?: unknown }): void {
    const level = logLevel(params.level);
    const logger = typeof params.logger === 'string' ? params.logger : undefined;
    const message = text(params.data);
    this.keep(level, message, logger);
    const call = this.current();
    if (call?.hooks.log) call.hooks.log(logger ? `${logger}: ${message}` : message, level);
    else this.hostLog({ message, level, ...(logger !== undefined ? { logger } : {}) });
  }

  /** An `elicitation/create`: the call's answerer, then the host's; declined with the reason when there is none. */
  async elicit(params: Record<string, unknown>, signal: AbortSignal): Promise<McpElicitResult> {
    const call = this.current();
    const answer = call?.hooks.elicit ?? this.answerers.onElicitation;
    if (!answer) {
      const because =
        this.running.size > 1
          ? 'several calls were running, so it could not tell whose caller to ask, and the host has no onElicitation'
          : 'no one can answer it (no onElicitation for the call or the host)';
      const why = `toolshed declined an elicitation request of the MCP server ${this.server}: ${because}`;
      this.keep('warning', why);
      this.hostLog({ message: why, level: 'warning' });
      return { action: 'decline', _meta: { 'dev.toolshed/reason': why } };
    }
    const request: ElicitRequest = {
      server: this.server,
      message: typeof params.message === 'string' ? params.message : '',
      signal: call?.signal ? AbortSignal.any([signal, call.signal]) : signal,
    };
    if (call) request.tool = call.tool;
    if (params.mode === 'url' || params.mode === 'form') request.mode = params.mode;
    if (typeof params.requestedSchema === 'object' && params.requestedSchema !== null)
      request.requestedSchema = params.requestedSchema as Record<string, unknown>;
    if (typeof params.url === 'string') request.url = params.url;
    if (typeof params.elicitationId === 'string') request.elicitationId = params.elicitationId;
    const result: ElicitResult = await answer(request);
    this.keep('info', `elicitation${request.tool ? ` during ${request.tool}` : ''} answered: ${result.action}`);
    return result.action === 'accept' && result.content
      ? { action: 'accept', content: result.content }
      : { action: result.action };
  }

  /** The `roots/list` answer: the workspace root, as a file URI. */
  roots(): { roots: Array<{ uri: string; name: string }> } {
    return {
      roots: this.answerers.roots.map((root) => ({ uri: pathToFileURL(root).href, name: path.basename(root) || root })),
    };
  }

  /** Registers the handlers on `client` (before it connects; the capabilities must already be declared). */
  install(client: Client): void {
    client.setNotificationHandler('notifications/message', (notification) => this.log(notification.params));
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      this.elicit(request.params as Record<string, unknown>, ctx.mcpReq.signal),
    );
    client.setRequestHandler('roots/list', () => this.roots());
    const sample = this.answerers.onSampling;
    if (sample) {
      client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
        const result = await sample({
          server: this.server,
          params: request.params as Record<string, unknown>,
          signal: ctx.mcpReq.signal,
        });
        this.keep('info', `sampling answered by ${result.model}`);
        return result as never;
      });
    }
  }
}
