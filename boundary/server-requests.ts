/**
 * What an MCP server asks of toolshed as its client, in MCP's own shapes:
 * elicitation (`elicitation/create`) and sampling (`sampling/createMessage`),
 * forwarded to whoever can answer (docs/mcp-servers.md), and the levels of its
 * log messages. Types only, shared by the MCP client (core/mcp-client), dispatch and
 * the public API.
 */

export type { LogLevel } from './plugin-api.js';

/** A value a form field may take (MCP's elicitation content). */
export type ElicitValue = string | number | boolean | string[];

/**
 * An MCP server asking the user for input during a tool call (MCP `elicitation/create` params),
 * with which server and tool asked.
 */
export interface ElicitRequest {
  /** the MCP server that asks (its name under `mcpServers`) */
  server: string;
  /** the exposed name of the tool whose call caused it, when toolshed can tell */
  tool?: string;
  /** 'form' (the default: fields described by `requestedSchema`) or 'url' (the user opens `url`) */
  mode?: 'form' | 'url';
  /** what to ask, in the server's words */
  message: string;
  /** form mode: a flat object schema of the fields to fill in */
  requestedSchema?: Record<string, unknown>;
  /** url mode: the page the user opens */
  url?: string;
  /** url mode: the server's id of this elicitation */
  elicitationId?: string;
  /** aborted when the call that caused it ends: stop asking */
  signal?: AbortSignal;
}

/** The user's answer (MCP `ElicitResult`): accepted with the content, declined, or dismissed. */
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  /** on accept, the fields filled in */
  content?: Record<string, ElicitValue>;
}

/**
 * Answers an MCP server's elicitation request, usually by asking a person.
 * @example
 * const host = await createToolHost({ onElicitation: async (request) => ({ action: 'accept', content: { name: await
 * ask(request.message) } }) });
 */
export type Elicitor = (request: ElicitRequest) => Promise<ElicitResult>;

/** An MCP server asking for a completion from the embedder's model (MCP `sampling/createMessage` params). */
export interface SamplingRequest {
  /** the MCP server that asks */
  server: string;
  /** the request's params as the server sent them: messages, systemPrompt, maxTokens, modelPreferences, … */
  params: Record<string, unknown>;
  signal?: AbortSignal;
}

/** The completion (MCP `CreateMessageResult`): the model's name, its role and its content. */
export interface SamplingResult {
  model: string;
  role: 'assistant';
  /** a content block (`{ type: 'text', text }`, or an image or audio block) */
  content: Record<string, unknown>;
  stopReason?: string;
}

/** Runs an MCP server's sampling request through the embedder's model. */
export type Sampler = (request: SamplingRequest) => Promise<SamplingResult>;
