/**
 * Approval over MCP: a call that needs approval asks the client's user with
 * an elicitation (a form with one boolean), put to the client as an
 * `input_required` round of the `tools/call` (input-rounds.ts; on 2025-era
 * connections the SDK sends it as an `elicitation/create` request). A client
 * that does not declare the elicitation capability cannot ask anyone, so
 * such a call is refused with a message that says so, and so is one from a
 * 2025-era client on a stateless server (its answer could not reach the call),
 * unless another approver (the console) answers it: such a client abstains.
 */
import {
  inputRequired,
  type ClientCapabilities,
  type ElicitResult,
  type InputRequest,
} from '@modelcontextprotocol/server';
import type { ApprovalRequest, Approver } from '../../call/approval.js';
import type { ElicitRequest, Elicitor, ElicitResult as UpstreamAnswer } from '../../../boundary/server-requests.js';

function question(request: ApprovalRequest): string {
  const args = JSON.stringify(request.args);
  const shown = args.length > 2000 ? `${args.slice(0, 2000)}…` : args;
  const why =
    request.reason === 'destructive'
      ? 'It may change or delete things.'
      : 'The operator asks for approval before it runs.';
  return `Allow the tool ${request.tool} to run with these arguments? ${why}\n\n${shown}`;
}

/** Whether a client that declared `capabilities` can show its user a form. */
function canElicitForm(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  // A bare `elicitation: {}` is form support (the capability's meaning before modes existed).
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/** An elicitation answer as the client sent it: untrusted, so read defensively. */
function readElicitResult(response: unknown): ElicitResult {
  const value = response as { action?: unknown; content?: unknown } | undefined;
  const action = value?.action === 'accept' || value?.action === 'decline' ? value.action : 'cancel';
  const content =
    value?.content !== null && typeof value?.content === 'object'
      ? (value.content as ElicitResult['content'])
      : undefined;
  return content && action === 'accept' ? { action, content } : { action };
}

/**
 * Whether the client's answer can reach the call: 'ask' on a connection, a 2025-era HTTP session
 * or a 2026-07-28 round; 'unreachable' for a 2025-era client served without a session (stateless),
 * whose answer would arrive as a new request at a server that never asked.
 */
type Asking = 'ask' | 'unreachable';

/** Why a 2025-era client on a stateless server is not asked. */
const UNREACHABLE =
  'it needs approval, and this server is stateless: a 2025-era MCP client cannot answer an approval here (its ' +
  'answer would reach a server that never asked). Approve it in a client on the 2026-07-28 revision, or ' +
  'through a server with sessions (toolshed serve --http without --stateless, sticky sessions at the ' +
  'balancer), or ask the operator to remove it from approve';

/**
 * The approver of one `tools/call`: a question to the client's user when it can ask one, else a refusal that says why.
 */
export function mcpApprover(
  capabilities: ClientCapabilities | undefined,
  ask: (request: InputRequest, signal?: AbortSignal) => Promise<unknown>,
  asking: Asking = 'ask',
): Approver {
  if (!canElicitForm(capabilities)) {
    return () => ({
      approved: false,
      abstain: true,
      reason:
        'it needs approval, and this MCP client cannot ask its user (it does not support elicitation). Approve ' +
        'it in a client that does, or ask the operator to remove it from approve',
    });
  }
  if (asking === 'unreachable') return () => ({ approved: false, abstain: true, reason: UNREACHABLE });
  return async (request) => {
    const answer = readElicitResult(
      await ask(
        inputRequired.elicit({
          mode: 'form',
          message: question(request),
          requestedSchema: {
            type: 'object',
            properties: { approve: { type: 'boolean', title: `Run ${request.tool}`, description: 'Allow this call' } },
            required: ['approve'],
          },
        }),
        request.signal,
      ),
    );
    if (answer.action === 'accept' && answer.content?.approve === true) return true;
    const reason =
      answer.action === 'accept'
        ? 'the user did not allow it'
        : answer.action === 'decline'
          ? 'the user declined'
          : 'the user dismissed the request';
    return { approved: false, reason };
  };
}

/** Whether a client that declared `capabilities` can open a URL for its user. */
function canElicitUrl(capabilities: ClientCapabilities | undefined): boolean {
  return (capabilities?.elicitation as { url?: unknown } | undefined)?.url !== undefined;
}

/**
 * Forwards a hosted MCP server's elicitation, made during a call this client made, to this
 * client's user (the same question, named with the server that asks), or declines it when the
 * client cannot show it. The answer goes back to the server as the user gave it.
 */
export function mcpElicitor(
  capabilities: ClientCapabilities | undefined,
  ask: (request: InputRequest, signal?: AbortSignal) => Promise<unknown>,
  asking: Asking = 'ask',
): Elicitor {
  return async (request: ElicitRequest): Promise<UpstreamAnswer> => {
    const url = request.mode === 'url';
    if (asking === 'unreachable' || (url ? !canElicitUrl(capabilities) : !canElicitForm(capabilities)))
      return { action: 'decline' };
    const message = `${request.server}${request.tool ? ` (through ${request.tool})` : ''} asks: ${request.message}`;
    const question = url
      ? inputRequired.elicitUrl({ message, url: request.url ?? '' })
      : inputRequired.elicit({
          mode: 'form',
          message,
          requestedSchema: (request.requestedSchema ?? { type: 'object', properties: {} }) as never,
        });
    const answer = readElicitResult(await ask(question, request.signal));
    return answer.action === 'accept' && answer.content
      ? { action: 'accept', content: answer.content as UpstreamAnswer['content'] }
      : { action: answer.action };
  };
}
