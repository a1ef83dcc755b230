// Type tests for the public helpers: `npm test` type-checks this file (tsc --noEmit) and runs it.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { definePlugin, defineTool, type ToolContext, type PluginSpec } from 'toolshed/plugin';
import {
  createToolHost,
  type ToolHost,
  type CallOutcome,
  type ToolErrorCode,
  type OpenAITool,
  type AnthropicTool,
  type AnthropicCustomTool,
  type AnthropicToolSearchTool,
  type GeminiTool,
  type McpTool,
  type ResponsesTool,
} from 'toolshed';

describe('toolshed/plugin types', () => {
  it('definePlugin is an identity function that keeps literal types', () => {
    const plugin = definePlugin({
      apiVersion: 1,
      tools: [{ name: 'ping', description: 'Ping', parameters: { type: 'object' }, handler: () => 'pong' }],
    });
    expect(plugin.tools[0].name).toBe('ping');
    expectTypeOf(plugin.tools[0].name).toEqualTypeOf<'ping'>();
    expectTypeOf(plugin).toMatchTypeOf<PluginSpec>();
  });

  it('defineTool types handler arguments and ctx', () => {
    const tool = defineTool<{ city: string }>({
      name: 'weather',
      description: ['Weather.', { ifAvailable: ['web_search'], text: 'Prefer web_search for forecasts.' }],
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
      handler: (args, ctx) => {
        expectTypeOf(args.city).toBeString();
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        expectTypeOf(ctx.callTool).returns.resolves.toBeUnknown();
        return { city: args.city };
      },
    });
    expect(tool.name).toBe('weather');
  });

  it('rejects a plugin object of the wrong shape at compile time', () => {
    // @ts-expect-error apiVersion must be 1
    const wrong = definePlugin({ apiVersion: 2, tools: [] });
    expect(wrong.apiVersion).toBe(2);
  });

  it('the host API returns strings from dispatch and outcomes from call', () => {
    expectTypeOf(createToolHost).returns.resolves.toEqualTypeOf<ToolHost>();
    expectTypeOf<ToolHost['dispatch']>().returns.resolves.toBeString();
    expectTypeOf<ToolHost['call']>().returns.resolves.toEqualTypeOf<CallOutcome>();
  });

  it('definitions() is typed by the format asked for', () => {
    const host = {} as ToolHost;
    const byDefault = () => host.definitions();
    expectTypeOf(byDefault).returns.resolves.toEqualTypeOf<OpenAITool[]>();
    type Of<F extends 'openai' | 'responses' | 'anthropic' | 'gemini' | 'mcp'> = Awaited<
      ReturnType<typeof host.definitions<F>>
    >;
    expectTypeOf<Of<'anthropic'>>().toEqualTypeOf<AnthropicTool[]>();
    expectTypeOf<Of<'responses'>>().toEqualTypeOf<ResponsesTool[]>();
    expectTypeOf<Of<'gemini'>>().toEqualTypeOf<GeminiTool[]>();
    expectTypeOf<Of<'mcp'>>().toEqualTypeOf<McpTool[]>();
    const inferred = () => host.definitions({ format: 'anthropic' });
    expectTypeOf(inferred).returns.resolves.toEqualTypeOf<AnthropicTool[]>();
    // An entry is a custom tool or Anthropic's tool search tool (search.native).
    expectTypeOf<AnthropicTool>().toEqualTypeOf<AnthropicCustomTool | AnthropicToolSearchTool>();
  });

  it('a failed CallOutcome carries a ToolErrorCode', () => {
    expectTypeOf<Extract<CallOutcome, { ok: false }>['code']>().toEqualTypeOf<ToolErrorCode>();
  });
});
