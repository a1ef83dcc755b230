/**
 * search.native: for the anthropic format, every tool goes out with the
 * deferred ones marked defer_loading and Anthropic's own tool search tool
 * first; every other format keeps toolshed's tool_search.
 */
import { describe, expect, it } from 'vitest';
import type { AnthropicCustomTool } from 'toolshed';
import { fixtureOptions, withHost } from '../helpers.js';

const options = (native: unknown) =>
  fixtureOptions(['catalog'], { config: { defer: ['github', 'slack'], disable: ['admin'], search: { native } } });

describe('Anthropic native tool search', () => {
  it('sends every exposed tool, deferred ones with defer_loading: true, after the bm25 search tool', async () => {
    await withHost(options(true), async (host) => {
      const tools = await host.definitions({ format: 'anthropic', sessionId: 'any' });
      expect(tools[0]).toEqual({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
      const rest = tools.slice(1) as AnthropicCustomTool[];
      expect(rest.map((t) => [t.name, t.defer_loading ?? false])).toEqual([
        ['calendar_create_event', false],
        ['github_create_issue', true],
        ['github_list_issues', true],
        ['github_merge_pull_request', true],
        ['slack_list_channels', true],
        ['slack_send_message', true],
      ]);
      expect(rest.every((t) => t.input_schema.type === 'object')).toBe(true);
      // Other formats keep toolshed's own search.
      expect((await host.definitions({ format: 'openai' })).map((t) => t.function.name)).toEqual([
        'calendar_create_event',
        'tool_search',
      ]);
      expect((await host.definitions({ format: 'mcp' })).map((t) => t.name)).toEqual([
        'calendar_create_event',
        'tool_search',
      ]);
      // A deferred tool the API loaded is called like any other.
      expect(JSON.parse(await host.dispatch('github_list_issues', { repo: 'a/b' })).tool).toBe('github_list_issues');
    });
  });

  it("'regex' selects Anthropic's regex variant", async () => {
    await withHost(options('regex'), async (host) => {
      expect((await host.definitions({ format: 'anthropic' }))[0]).toEqual({
        type: 'tool_search_tool_regex_20251119',
        name: 'tool_search_tool_regex',
      });
    });
  });

  it("without search.native the anthropic format lists toolshed's tool_search like every format", async () => {
    await withHost(options(false), async (host) => {
      const tools = (await host.definitions({ format: 'anthropic' })) as AnthropicCustomTool[];
      expect(tools.map((t) => t.name)).toEqual(['calendar_create_event', 'tool_search']);
      expect(tools.some((t) => 'defer_loading' in t)).toBe(false);
    });
  });
});
