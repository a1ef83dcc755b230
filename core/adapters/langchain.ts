/**
 * `toolshed/langchain`: the host's tools as LangChain `StructuredTool`s
 * (`@langchain/core`), each made with `tool()` and the tool's JSON Schema.
 * A failed call invoked with a tool call (as agents do) returns a
 * `ToolMessage` with `status: 'error'` whose content is the envelope:
 * LangChain's own failed-tool signal, which the model reads like any tool
 * message. Invoked with plain arguments, a failure throws a `ToolshedToolError`.
 */
import { ToolMessage } from '@langchain/core/messages';
import { tool, type StructuredToolInterface, type ToolRunnableConfig } from '@langchain/core/tools';
import type { AgentMiddleware } from 'langchain';
import { follow, replaceArray, type LiveTools } from './live.js';
import { callThrough, ToolshedToolError, type AdapterOptions } from './shared.js';
import type { McpTool } from '../providers/types.js';
import type { ToolHost } from '../host/tool-host.js';

export { ToolshedToolError, type AdapterOptions } from './shared.js';
export type { LiveTools } from './live.js';

function structuredTool(host: ToolHost, def: McpTool, options: AdapterOptions): StructuredToolInterface {
  const run = async (input: unknown, config?: ToolRunnableConfig): Promise<string | ToolMessage> => {
    const callId = config?.toolCall?.id;
    const outcome = await callThrough(host, def.name, input, options, { callId, signal: config?.signal });
    if (outcome.ok) return outcome.text;
    const error = new ToolshedToolError(def.name, outcome);
    if (callId === undefined) throw error;
    return new ToolMessage({
      content: error.message,
      tool_call_id: callId,
      name: def.name,
      status: 'error',
      artifact: { code: outcome.code },
    });
  };
  return tool(run, {
    name: def.name,
    description: def.description,
    schema: def.inputSchema,
  }) as unknown as StructuredToolInterface;
}

const read = (host: ToolHost) => host.definitions({ format: 'mcp' });
const build = (host: ToolHost, defs: readonly McpTool[], options: AdapterOptions) =>
  defs.map((def) => structuredTool(host, def, options));

/**
 * The host's exposed tools as LangChain StructuredTools, as of now.
 * @example
 * const agent = createAgent({ model, tools: await langchainTools(host, { sessionId }) });
 */
export async function langchainTools(host: ToolHost, options: AdapterOptions = {}): Promise<StructuredToolInterface[]> {
  return build(host, await read(host), options);
}

/** StructuredTools that follow the host, and a `createAgent` middleware that serves them. */
export interface LiveLangchainTools extends LiveTools<StructuredToolInterface[]> {
  /**
   * A middleware for `createAgent` (from `langchain`) that offers the model the current tools at
   * every model call and runs them: pass it instead of `tools`. Needs the `langchain` package.
   */
  middleware(): Promise<AgentMiddleware>;
}

/**
 * StructuredTools kept current in place as the host's exposed set changes. `createAgent` copies
 * its `tools` when it is created, so give it `await live.middleware()` instead, which reads the
 * current tools before every model call.
 * @example
 * const live = await liveLangchainTools(host);
 * const agent = createAgent({ model, middleware: [await live.middleware()] });
 */
export async function liveLangchainTools(host: ToolHost, options: AdapterOptions = {}): Promise<LiveLangchainTools> {
  const live = await follow(host, {
    read: () => read(host),
    build: (defs) => build(host, defs, options),
    apply: replaceArray,
  });
  return {
    tools: live.tools,
    update: live.update,
    close: live.close,
    middleware: () => toolshedMiddleware(live),
  };
}

/** The shapes of createAgent's middleware requests this middleware reads and rewrites. */
interface ModelRequest {
  tools?: unknown[];
}
interface ToolCallRequest {
  toolCall: { name: string };
  tool?: unknown;
}

async function toolshedMiddleware(live: LiveTools<StructuredToolInterface[]>): Promise<AgentMiddleware> {
  let createMiddleware: (config: Record<string, unknown>) => AgentMiddleware;
  try {
    ({ createMiddleware } = (await import('langchain')) as unknown as { createMiddleware: typeof createMiddleware });
  } catch (error) {
    throw new Error(
      `liveLangchainTools(...).middleware() needs the 'langchain' package (createAgent's middleware): ` +
        `${(error as Error).message}`,
      { cause: error },
    );
  }
  const ours = new WeakSet<object>();
  return createMiddleware({
    name: 'toolshed',
    // Tools added here are "dynamically registered": createAgent accepts them because wrapToolCall below runs them.
    wrapModelCall: async (request: ModelRequest, handler: (request: ModelRequest) => unknown) => {
      await live.update();
      for (const t of live.tools) ours.add(t);
      const others = (request.tools ?? []).filter((t) => typeof t !== 'object' || t === null || !ours.has(t));
      return handler({ ...request, tools: [...others, ...live.tools] });
    },
    wrapToolCall: (request: ToolCallRequest, handler: (request: ToolCallRequest) => unknown) => {
      const current = live.tools.find((t) => t.name === request.toolCall.name);
      return handler(current ? { ...request, tool: current } : request);
    },
  });
}
