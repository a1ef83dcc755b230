/**
 * The `Runner` of an MCP server: dispatch reaches the server's tools through
 * the same seam as plugin tiers. A call is one `tools/call` through the SDK
 * client, with the call's deadline (the SDK sends `notifications/cancelled`
 * when it passes), the caller's abort signal (cancelled upstream the same
 * way), progress relayed to the caller, and the server's log messages and
 * elicitation requests during it routed to the caller (server-requests.ts).
 * Structured content is checked against the tool's listed output schema here,
 * compiled at its first use into toolshed's bounded cache. A server whose `credentials` are the
 * caller's is called through that caller's own client, with a token for them (per-identity.ts).
 * No server code runs in the host: a stdio server is its own sandboxed process, an HTTP server is elsewhere.
 */
import {
  type Client,
  LOG_LEVEL_META_KEY,
  SdkError,
  SdkErrorCode,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { handlerOutput, type UpstreamResult } from './content.js';
import { outputValidator } from './listing.js';
import { SERVER_LOG_LEVEL } from './server-requests.js';
import { callAsTask } from './task-call.js';
import type { McpConnection } from './connection.js';
import { errorText } from './connection-failure.js';
import type { CallHooks, CheckRequest, HandlerRequest, Runner, RunnerStats } from '../runners/runner.js';
import type { RunOutcome } from '../../boundary/runner-failure.js';
import { redactUrlsIn } from '../text/redact-url.js';
import type { CheckVerdict, NormalizedResult } from '../../boundary/protocol.js';
import type { ConnectionReport } from '../runners/connection-report.js';
import type { ServerRequests } from './server-requests.js';
import { sessionEnded, transportFailure } from './probe.js';
import type { CallerClients, CallerTokens } from './per-identity.js';

/** How a server's calls act for their callers: where tokens come from, and the callers' clients. */
export interface ActingForCallers {
  tokens: CallerTokens;
  clients: CallerClients;
}

/** Whether the server refused the credentials a request carried (401, 403). */
function refusedCredentials(error: unknown): boolean {
  const status = (error as { status?: unknown })?.status;
  return error instanceof UnauthorizedError || status === 401 || status === 403;
}

/** A call that could not get, or use, its caller's credentials (CREDENTIALS_UNAVAILABLE). */
function unavailable(message: string): RunOutcome<NormalizedResult> {
  return { ok: false, failure: { kind: 'credentials', message } };
}

/** A runner that calls an MCP server's tools. */
export class McpRunner implements Runner {
  readonly tier: 'process' | 'remote';
  private inFlight = 0;
  private completed = 0;

  constructor(
    private readonly link: McpConnection,
    /** the server's own name of an exposed tool */
    private readonly upstreamName: (tool: string) => string | undefined,
    /** explain's report, with the tool renames and listing warnings added by the owner */
    private readonly reportFn: () => ConnectionReport,
    /** present when calls carry each caller's credentials instead of the shared connection's */
    private readonly callers?: ActingForCallers,
  ) {
    this.tier = link.server.stdio ? 'process' : 'remote';
  }

  /** MCP tools have no custom checks: being connected is their availability. */
  async check(_request: CheckRequest): Promise<RunOutcome<CheckVerdict>> {
    return { ok: true, value: { ok: true } };
  }

  /** One call; a failure's message never shows a secret the server's URL carries (docs/security.md#mcp-servers). */
  async handle(request: HandlerRequest, hooks: CallHooks, signal?: AbortSignal): Promise<RunOutcome<NormalizedResult>> {
    const outcome = await this.run(request, hooks, signal);
    if (outcome.ok) return outcome;
    if ('failure' in outcome)
      return 'message' in outcome.failure
        ? { ok: false, failure: { ...outcome.failure, message: redactUrlsIn(outcome.failure.message) } }
        : outcome;
    return { ...outcome, error: { ...outcome.error, message: redactUrlsIn(outcome.error.message) } };
  }

  private async run(
    request: HandlerRequest,
    hooks: CallHooks,
    signal?: AbortSignal,
  ): Promise<RunOutcome<NormalizedResult>> {
    const shared = this.link.client();
    const name = this.upstreamName(request.tool);
    if (!shared || name === undefined) {
      return {
        ok: false,
        failure: {
          kind: 'crashed',
          message: this.link.why() ?? `the MCP server ${this.link.server.name} no longer lists it`,
          outOfMemory: false,
        },
      };
    }
    if (!this.callers) return this.call(shared, this.link.requests, name, request, hooks, signal);
    return this.callAsCaller(this.callers, name, request, hooks, signal);
  }

  /**
   * The call through its caller's own client, with a token for them; CREDENTIALS_UNAVAILABLE when there is none or the
   * server refuses it.
   */
  private async callAsCaller(
    callers: ActingForCallers,
    name: string,
    request: HandlerRequest,
    hooks: CallHooks,
    signal?: AbortSignal,
  ): Promise<RunOutcome<NormalizedResult>> {
    const server = this.link.server.name;
    const token = await callers.tokens.token(request.identity, signal);
    if (!token.ok) return unavailable(token.why);
    const subject = request.identity!.subject;
    let held: Awaited<ReturnType<CallerClients['acquire']>>;
    try {
      held = await callers.clients.acquire(token.token);
    } catch (error) {
      if (refusedCredentials(error)) return unavailable(`the MCP server ${server} refused ${subject}'s credentials`);
      const why = transportFailure(error) ?? errorText(error);
      return {
        ok: false,
        failure: { kind: 'unreachable', message: `the MCP server ${server}: connecting for ${subject} failed: ${why}` },
      };
    }
    let broken = false;
    const outcome = await this.call(held.client, held.requests, name, request, hooks, signal, (error) => {
      broken = refusedCredentials(error) || sessionEnded(error) || transportFailure(error) !== undefined;
      if (refusedCredentials(error)) return unavailable(`the MCP server ${server} refused ${subject}'s credentials`);
      return undefined;
    });
    held.release(broken);
    return outcome;
  }

  /**
   * One `tools/call` through `client`, its server messages routed by `requests`; `onError` may
   * map an error first (a caller's client: refused credentials), and marks what it must.
   */
  private async call(
    client: Client,
    requests: ServerRequests,
    name: string,
    request: HandlerRequest,
    hooks: CallHooks,
    signal: AbortSignal | undefined,
    onError?: (error: unknown) => RunOutcome<NormalizedResult> | undefined,
  ): Promise<RunOutcome<NormalizedResult>> {
    const progress = hooks.progress;
    this.inFlight++;
    const end = requests.begin(request.tool, hooks, signal);
    try {
      // On 2026-07-28 a server sends log messages for a request only when the request names a level.
      const meta = this.link.modern() ? { _meta: { [LOG_LEVEL_META_KEY]: SERVER_LOG_LEVEL } } : {};
      const args = request.args as Record<string, unknown>;
      const options = { timeout: request.timeoutMs, ...(signal ? { signal } : {}) };
      const onprogress = progress
        ? { onprogress: (p: { progress: number; total?: number }) => progress(p.progress, p.total) }
        : {};
      const result = this.link.requiresTask(name)
        ? await callAsTask(client, name, args, options)
        : await client.callTool({ name, arguments: args, ...meta }, { ...options, ...onprogress });
      const invalid = this.invalidStructured(name, result as UpstreamResult);
      if (invalid)
        return {
          ok: false,
          error: { name: 'McpError', code: 'TOOL_FAILED', message: `${this.link.server.name}: ${invalid}` },
        };
      return { ok: true, value: handlerOutput(result as UpstreamResult, request.maxResultChars) };
    } catch (error) {
      return onError?.(error) ?? this.failed(error, request, signal, onError === undefined);
    } finally {
      end();
      this.inFlight--;
      this.completed++;
    }
  }

  /** Why a result's structured content breaks the tool's output schema (MCP: a client validates it), or undefined. */
  private invalidStructured(name: string, result: UpstreamResult): string | undefined {
    if (result.isError || result.structuredContent === undefined) return undefined;
    const validate = outputValidator(this.link.outputSchemas.get(name));
    if (!validate) return undefined;
    const verdict = validate(result.structuredContent);
    return verdict.valid
      ? undefined
      : `Structured content does not match the tool's output schema: ${verdict.errorMessage}`;
  }

  /**
   * A call's error as its outcome; `shared`: it was made on the shared connection, which a transport error then probes.
   */
  private failed(
    error: unknown,
    request: HandlerRequest,
    signal: AbortSignal | undefined,
    shared: boolean,
  ): RunOutcome<NormalizedResult> {
    // The SDK rejects an aborted request with a timeout-coded error; the signal says which it was.
    if (signal?.aborted) return { ok: false, failure: { kind: 'cancelled' } };
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
      return { ok: false, failure: { kind: 'timeout', timeoutMs: request.timeoutMs } };
    // A request that did not reach an HTTP server fails alone and counts against no tool; the connection probes the
    // server.
    const transport = shared
      ? this.link.transportError(error)
      : sessionEnded(error)
        ? "it no longer knows the caller's session (404); the next call opens a new one"
        : transportFailure(error);
    if (transport)
      return {
        ok: false,
        failure: { kind: 'unreachable', message: `the MCP server ${this.link.server.name}: ${transport}` },
      };
    if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
      const message = this.link.why() ?? `the MCP server ${this.link.server.name} went away during the call`;
      return {
        ok: false,
        failure: this.link.server.http
          ? { kind: 'unreachable', message }
          : { kind: 'crashed', message, outOfMemory: false },
      };
    }
    // A JSON-RPC error from the server (unknown tool, invalid params, its own failure) is the tool failing.
    return {
      ok: false,
      error: { name: 'McpError', code: 'TOOL_FAILED', message: `${this.link.server.name}: ${errorText(error)}` },
    };
  }

  stats(): RunnerStats {
    // An MCP server answers calls concurrently and never calls back into the host, so nothing waits on its capacity.
    return {
      started: this.link.client() !== undefined,
      threads: 1,
      inFlight: this.inFlight,
      capacity: Number.POSITIVE_INFINITY,
      completed: this.completed,
      guard: { passed: 0, refused: 0 },
      dropped: { ...this.link.dropped },
    };
  }

  /** The OS protections of a stdio server are in its connection report (they differ from a plugin child's). */
  protections(): undefined {
    return undefined;
  }

  /** The server's connection state, reason, target and protections. */
  connection(): ConnectionReport {
    return this.reportFn();
  }

  async close(): Promise<void> {
    this.callers?.tokens.forget();
    await this.callers?.clients.close();
    await this.link.close();
  }
}
