/**
 * One MCP `tools/call`: runs through the host's full dispatch (gate, ajv
 * against the original schema, worker tier), wires the request's abort
 * signal and progress token through, and turns an error envelope into an
 * `isError` result instead of a protocol error, so the model reads it.
 */
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { mcpApprover } from './approval.js';
import type { ToolHost } from '../host/host.js';
import type { RichContent } from '../../boundary/outcome.js';

/** The parts of a `tools/call` request this handler reads. */
interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: { progressToken?: string | number };
}

/** What the SDK hands a request handler (abort signal, session, notification sender). */
type McpHandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Relays `ctx.progress` as `notifications/progress`, only while the call runs and only increasing (the spec requires both). */
function progressRelay(token: string | number | undefined, extra: McpHandlerExtra): { onProgress?: (done: number, total?: number) => void; stop(): void } {
  if (token === undefined) return { stop() {} };
  let open = true;
  let last = -Infinity;
  return {
    onProgress(done, total) {
      if (!open || !(done > last)) return;
      last = done;
      const params = total === undefined ? { progressToken: token, progress: done } : { progressToken: token, progress: done, total };
      // A notification that cannot be delivered (client gone) must not fail the call.
      extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {});
    },
    stop() {
      open = false;
    },
  };
}

/** Runs one tool call for an MCP client and returns the MCP result; a call that needs approval asks the client's user (approval.ts). */
export async function callTool(host: ToolHost, params: CallToolParams, extra: McpHandlerExtra, server: Server): Promise<CallToolResult> {
  const progress = progressRelay(params._meta?.progressToken, extra);
  let outcome;
  try {
    outcome = await host.call(params.name, params.arguments ?? {}, {
      signal: extra.signal,
      onApproval: mcpApprover(server, extra),
      ...(sessionOf(extra) !== undefined ? { sessionId: sessionOf(extra)! } : {}),
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    });
  } finally {
    progress.stop();
  }
  // Rich content (an MCP server's images, resources, structuredContent) goes out as it came in.
  if (outcome.content) return { ...(outcome.ok ? {} : { isError: true }), ...richResult(outcome.content) };
  if (outcome.ok) return { content: [{ type: 'text', text: outcome.text }] };
  // The same envelope dispatch() returns, so the code survives for clients that parse it.
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: outcome.message, code: outcome.code }) }] };
}

function richResult(content: RichContent): CallToolResult {
  return { content: content.blocks as CallToolResult['content'], ...(content.structured ? { structuredContent: content.structured } : {}) };
}

/**
 * The session a call belongs to: the transport's (stateful HTTP), else the
 * `Mcp-Session-Id` header a client sends to a stateless server, as the SDK
 * itself reads it for logging levels.
 */
function sessionOf(extra: McpHandlerExtra): string | undefined {
  if (extra.sessionId !== undefined) return extra.sessionId;
  const header = extra.requestInfo?.headers['mcp-session-id'];
  return typeof header === 'string' && header.length > 0 ? header : undefined;
}
