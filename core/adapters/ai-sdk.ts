/**
 * `toolshed/ai-sdk`: the host's tools as a Vercel AI SDK `ToolSet`, each made
 * with `tool()` and `jsonSchema()`. `execute` runs the call through the host's
 * full dispatch with the step's abort signal, the adapter's session and the
 * model's tool-call id. A failed call throws a `ToolshedToolError`, which the
 * AI SDK records as a `tool-error` and sends the model as an error result
 * whose text is the envelope.
 */
import { jsonSchema, tool, type ToolSet } from 'ai';
import { follow, replaceRecord, type LiveTools } from './live.js';
import { resultOrThrow, type AdapterOptions } from './shared.js';
import type { McpTool } from '../providers/types.js';
import type { ToolHost } from '../host/tool-host.js';

export { ToolshedToolError, type AdapterOptions } from './shared.js';
export type { LiveTools } from './live.js';

function toolSet(host: ToolHost, defs: readonly McpTool[], options: AdapterOptions): ToolSet {
  const set: ToolSet = {};
  for (const def of defs) {
    set[def.name] = tool({
      description: def.description,
      // The AI SDK does not validate against a JSON Schema by itself; dispatch validates against the tool's own.
      inputSchema: jsonSchema<unknown>(def.inputSchema as Parameters<typeof jsonSchema>[0]),
      execute: (input, { toolCallId, abortSignal }) =>
        resultOrThrow(host, def.name, input, options, { callId: toolCallId, signal: abortSignal }),
    });
  }
  return set;
}

/**
 * The host's exposed tools as an AI SDK `ToolSet`, as of now. Cheap to call before every step:
 * the host's definitions are memoized.
 * @example
 * const result = await generateText({ model, tools: await aiSdkTools(host, { sessionId }), stopWhen: stepCountIs(5),
 * prompt });
 */
export async function aiSdkTools(host: ToolHost, options: AdapterOptions = {}): Promise<ToolSet> {
  return toolSet(host, await host.definitions({ format: 'mcp' }), options);
}

/** A ToolSet that follows the host, plus a `prepareStep` that brings it up to date before each step. */
export interface LiveAiSdkTools extends LiveTools<ToolSet> {
  /** pass as generateText/streamText's `prepareStep`: updates `tools` before each step, changes nothing else */
  prepareStep(): Promise<Record<string, never>>;
}

/**
 * A ToolSet kept current in place as the host's exposed set changes: pass `tools` and `prepareStep`
 * to generateText or streamText, which read the set again at every step.
 * @example
 * const live = await liveAiSdkTools(host);
 * await generateText({ model, tools: live.tools, prepareStep: live.prepareStep, stopWhen: stepCountIs(5), prompt });
 * live.close();
 */
export async function liveAiSdkTools(host: ToolHost, options: AdapterOptions = {}): Promise<LiveAiSdkTools> {
  const live = await follow(host, {
    read: () => host.definitions({ format: 'mcp' }),
    build: (defs) => toolSet(host, defs, options),
    apply: replaceRecord,
  });
  return {
    tools: live.tools,
    update: live.update,
    close: live.close,
    async prepareStep() {
      await live.update();
      return {};
    },
  };
}
