/**
 * `toolshed/openai-agents`: the host's tools as `FunctionTool`s for the OpenAI
 * Agents SDK (`@openai/agents`). Each goes out in strict mode when its schema
 * allows it (toolshed's own strict conversion decides, tool by tool) and
 * non-strict with its schema unchanged otherwise; dispatch validates against
 * the original schema and treats strict-mode nulls as absent. A failed call
 * throws a `ToolshedToolError`: the SDK records the tool span as failed and
 * gives the model the envelope as the tool's output.
 */
import { tool, type FunctionTool } from '@openai/agents';
import { follow, replaceArray, type LiveTools } from './live.js';
import { resultOrThrow, ToolshedToolError, type AdapterOptions } from './shared.js';
import type { ResponsesTool } from '../providers/types.js';
import type { ToolHost } from '../host/tool-host.js';

export { ToolshedToolError, type AdapterOptions } from './shared.js';
export type { LiveTools } from './live.js';

/** Options of the OpenAI Agents adapter. */
export interface OpenAiAgentsOptions extends AdapterOptions {
  /** strict mode for every tool whose schema strict mode can express (default true) */
  strict?: boolean;
}

/**
 * What the model reads when a tool fails: the envelope for toolshed's failures, the SDK's wording for anything else.
 */
function errorText(_context: unknown, error: unknown): string {
  if (error instanceof ToolshedToolError) return error.message;
  return (
    `An error occurred while running the tool. Please try again. Error: ` +
    `${error instanceof Error ? error.toString() : String(error)}`
  );
}

/** What the SDK passes a FunctionTool's `execute` about the call. */
interface CallDetails {
  toolCall?: { callId?: string };
  signal?: AbortSignal;
}

/**
 * The FunctionTools for `defs`. `settle`, when given, runs after every call, failed or not, before
 * the SDK sees its outcome: the live form brings its array up to date there, so the model's next
 * turn is offered the tools as the call left them.
 */
function functionTools(
  host: ToolHost,
  defs: readonly ResponsesTool[],
  options: OpenAiAgentsOptions,
  settle?: () => Promise<unknown>,
): FunctionTool[] {
  return defs.map((def) => {
    const execute = async (input: unknown, _context: unknown, details?: CallDetails) => {
      try {
        return await resultOrThrow(host, def.name, input, options, {
          callId: details?.toolCall?.callId,
          signal: details?.signal,
        });
      } finally {
        // A failed update leaves the array as it was; the next change event tries again.
        if (settle) await settle().catch(() => {});
      }
    };
    // The options type pairs a literal strict flag with a schema type; ours is decided per tool at run time.
    const spec = {
      name: def.name,
      description: def.description,
      // Already converted for strict mode by toolshed when def.strict is true; the SDK's own conversion leaves it as
      // is.
      parameters: def.parameters,
      strict: def.strict,
      execute,
      errorFunction: errorText,
    };
    return tool(spec as unknown as Parameters<typeof tool>[0]) as FunctionTool;
  });
}

const read = (host: ToolHost, options: OpenAiAgentsOptions) =>
  host.definitions({ format: 'responses', strict: options.strict ?? true });

/**
 * The host's exposed tools as FunctionTools, as of now.
 * @example
 * const agent = new Agent({ name: 'helper', instructions, tools: await openAiAgentsTools(host, { sessionId }) });
 */
export async function openAiAgentsTools(host: ToolHost, options: OpenAiAgentsOptions = {}): Promise<FunctionTool[]> {
  return functionTools(host, await read(host, options), options);
}

/**
 * A FunctionTool array kept current in place as the host's exposed set changes. An Agent keeps
 * the array it was given and reads it every turn, so pass `tools` to the Agent. The array follows
 * the host's `change` events, and after every call it runs it re-reads the host's definitions
 * (running any check whose cache expired) before the SDK goes on: within one run, the turn after
 * a tool call is offered the tools as that call left them.
 * @example
 * const live = await liveOpenAiAgentsTools(host);
 * const agent = new Agent({ name: 'helper', instructions, tools: live.tools });
 */
export async function liveOpenAiAgentsTools(
  host: ToolHost,
  options: OpenAiAgentsOptions = {},
): Promise<LiveTools<FunctionTool[]>> {
  let live: LiveTools<FunctionTool[]> | undefined;
  let closed = false;
  const settle = async () => {
    if (live && !closed) await live.update();
  };
  live = await follow(host, {
    read: () => read(host, options),
    build: (defs) => functionTools(host, defs, options, settle),
    apply: replaceArray,
  });
  const { tools, update, close } = live;
  return {
    tools,
    update,
    close() {
      closed = true;
      close();
    },
  };
}
