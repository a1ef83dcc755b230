/**
 * One MCP `tools/call`: runs through the host's full dispatch (gate, ajv
 * against the original schema, worker tier), wires the request's abort
 * signal, progress token and log level through, and turns an error envelope
 * into an `isError` result instead of a protocol error, so the model reads it.
 * A call that needs the client's user (approval) is held across
 * `input_required` rounds (input-rounds.ts).
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type CallToolRequestParams,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type InputRequest,
  type InputRequiredResult,
  type LoggingLevel,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { runWatched, watchesOf, type CallObserver } from '../../call/call-observer.js';
import { hostFailure } from '../../call/host-failure.js';
import type { TaskRunContext } from './tasks.js';
import { mcpApprover, mcpElicitor } from './approval.js';
import { HeldCall, type InputRounds } from './input-rounds.js';
import type { ToolHost } from '../../host/host.js';
import type { CallOutcome, RichContent } from '../../../boundary/outcome.js';

/** The parts of a `tools/call` request this handler reads. */
interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: { progressToken?: string | number };
}

/** Watches every call by its tool's name (the ops metrics, metrics.ts). */
export type CallMeter = CallObserver<{ tool: string }>;

/**
 * The held calls of a fleet's other replicas (sessions/shared-rounds.ts): a retry this replica cannot
 * resume is forwarded to the replica that holds it, and the calls held here are recorded for theirs.
 */
export interface FleetRounds {
  /** what the round of a call another replica holds answers; undefined when none holds `token` for `owner` */
  forward(
    token: string,
    owner: HeldCall['owner'],
    responses: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<CallToolResult | InputRequiredResult | undefined>;
  /** records that `call` is held here */
  held(call: HeldCall): Promise<void>;
  /** forgets the record of a call whose result was handed out */
  released(call: HeldCall): Promise<void>;
}

/** Where a call runs: the connection's server, the host session, its held calls, who counts it. */
interface CallPlace {
  server: Server;
  meter?: CallMeter | undefined;
  sessionId: string;
  /** who may resume the call when it waits for the client: the session the request named ('' for none) */
  owner: string;
  /** and the identity that made it (`ownerKey`; '' without `serve.auth`) */
  caller: string;
  rounds: InputRounds;
  /** the held calls of the fleet's other replicas (HTTP without sessions): a retry may answer one of theirs */
  shared?: FleetRounds;
  /**
   * A 2025-era client served without a session (stateless HTTP): its capabilities as stored at its
   * `initialize`, and no way to ask it anything (its answer would reach a server that never asked).
   */
  stateless?: { capabilities: ClientCapabilities | undefined };
}

/** The client's declared capabilities: per request on 2026-07-28, from `initialize` on the 2025 eras. */
function clientCapabilities(server: Server, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? server.getClientCapabilities();
}

/** Runs one tool call for an MCP client and returns the MCP result, or the questions it waits on. */
export async function callTool(
  host: ToolHost,
  params: CallToolParams,
  ctx: ServerContext,
  place: CallPlace,
): Promise<CallToolResult | InputRequiredResult> {
  const owner = { sessionId: place.owner, tool: params.name, caller: place.caller };
  const token = ctx.mcpReq.requestState();
  const resumed = place.rounds.resume(token, owner);
  if (resumed) resumed.deliver(ctx.mcpReq.inputResponses);
  else if (typeof token === 'string' && place.shared) {
    // Held on another replica: the answers go there, and what the round answers comes back.
    const forwarded = await place.shared.forward(token, owner, ctx.mcpReq.inputResponses, ctx.mcpReq.signal);
    if (forwarded) return forwarded;
  }
  const call = resumed ?? new HeldCall(owner, place.rounds.clock);
  const relay = call.relay;
  relay.attach(ctx, params._meta?.progressToken);
  if (!resumed) {
    const capabilities = place.stateless ? place.stateless.capabilities : clientCapabilities(place.server, ctx);
    const asking = place.stateless ? 'unreachable' : 'ask';
    call.start(async (ask) =>
      toResult(
        await metered(place, params.name, () =>
          host.call(params.name, params.arguments ?? {}, {
            signal: call.signal,
            sessionId: place.sessionId,
            onApproval: mcpApprover(capabilities, ask, asking),
            // A hosted MCP server's question during the call goes to this client's user, the same way.
            onElicitation: mcpElicitor(capabilities, ask, asking),
            onProgress: (done, total) => relay.progress(done, total),
            onLog: (message: string, level?: LoggingLevel) => relay.log(params.name, message, level),
          }),
        ),
      ),
    );
  }
  try {
    const answer = await call.next(ctx.mcpReq.signal);
    if (call.done) {
      place.rounds.release(call);
      if (resumed) await place.shared?.released(call);
    } else {
      place.rounds.hold(call);
      // Recorded before the client reads the round, so its retry finds the call on any replica.
      await place.shared?.held(call);
    }
    return answer;
  } finally {
    relay.detach();
  }
}

/**
 * Runs one call made as a task (2025-11-25 tasks, tasks.ts): with the task's own signal (it
 * outlives the tools/call request), its progress, and approval asked with an elicitation that
 * names the task, while the task reads `input_required`.
 */
export async function runAsTask(
  host: ToolHost,
  params: CallToolRequestParams,
  task: TaskRunContext,
  place: Omit<CallPlace, 'rounds' | 'caller'>,
): Promise<CallToolResult> {
  const ask = (request: InputRequest, signal?: AbortSignal) =>
    task.awaitInput(() =>
      place.server.elicitInput(
        { ...(request.params as ElicitRequestFormParams | ElicitRequestURLParams), _meta: task.relatedTaskMeta },
        signal ? { signal } : {},
      ),
    );
  return toResult(
    await metered(place, params.name, () =>
      host.call(params.name, params.arguments ?? {}, {
        signal: task.signal,
        sessionId: place.sessionId,
        onApproval: mcpApprover(place.server.getClientCapabilities(), ask),
        onElicitation: mcpElicitor(place.server.getClientCapabilities(), ask),
        ...(task.onProgress ? { onProgress: task.onProgress } : {}),
        onLog: (message: string, level?: LoggingLevel) => {
          place.server
            .sendLoggingMessage({
              level: level ?? 'info',
              data: message,
              logger: params.name,
              _meta: task.relatedTaskMeta,
            })
            .catch(() => {});
        },
      }),
    ),
  );
}

/** Runs `call` and tells the place's meter, if it has one, how it ended and how long it took. */
async function metered(
  place: Pick<CallPlace, 'meter'>,
  tool: string,
  call: () => Promise<CallOutcome>,
): Promise<CallOutcome> {
  const watches = place.meter ? watchesOf([place.meter], { tool }) : [];
  return watches.length ? runWatched(watches, call, (error) => hostFailure(tool, error)) : call();
}

/** The MCP result of an outcome: rich content as it came in, text, or the error envelope. */
function toResult(outcome: CallOutcome): CallToolResult {
  // Rich content (an MCP server's images, resources, a structured result) goes out as it came in.
  if (outcome.content) return { ...(outcome.ok ? {} : { isError: true }), ...richResult(outcome.content) };
  if (outcome.ok) return { content: [{ type: 'text', text: outcome.text }] };
  // The same envelope dispatch() returns, so the code survives for clients that parse it.
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify({ error: outcome.message, code: outcome.code }) }],
  };
}

function richResult(content: RichContent): CallToolResult {
  return {
    content: content.blocks as CallToolResult['content'],
    ...(content.structured ? { structuredContent: content.structured } : {}),
  };
}
