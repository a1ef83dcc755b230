/**
 * Approval over MCP: a call that needs approval asks the client's user with
 * an elicitation (a form with one boolean) tied to the `tools/call` request.
 * A client that does not declare the elicitation capability cannot ask
 * anyone, so such a call is refused with a message that says so.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ApprovalRequest, Approver } from '../call/approval.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';

function question(request: ApprovalRequest): string {
  const args = JSON.stringify(request.args);
  const shown = args.length > 2000 ? `${args.slice(0, 2000)}…` : args;
  const why = request.reason === 'destructive' ? 'It may change or delete things.' : 'The operator asks for approval before it runs.';
  return `Allow the tool ${request.tool} to run with these arguments? ${why}\n\n${shown}`;
}

/** The approver of one `tools/call`: an elicitation when the client supports it, else a refusal that says why. */
export function mcpApprover(server: Server, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Approver {
  if (!server.getClientCapabilities()?.elicitation?.form) {
    return () => ({
      approved: false,
      reason: 'it needs approval, and this MCP client cannot ask its user (it does not support elicitation). Approve it in a client that does, or ask the operator to remove it from approve',
    });
  }
  return async (request) => {
    const result = await server.elicitInput(
      {
        mode: 'form',
        message: question(request),
        requestedSchema: { type: 'object', properties: { approve: { type: 'boolean', title: `Run ${request.tool}`, description: 'Allow this call' } }, required: ['approve'] },
      },
      // Tied to the tools/call request (HTTP sends it on that request's stream); toolshed's own deadline governs, not the SDK's default.
      { relatedRequestId: extra.requestId, signal: request.signal, timeout: request.timeoutMs + 1000 },
    );
    if (result.action === 'accept' && result.content?.approve === true) return true;
    const reason = result.action === 'accept' ? 'the user did not allow it' : result.action === 'decline' ? 'the user declined' : 'the user dismissed the request';
    return { approved: false, reason };
  };
}
