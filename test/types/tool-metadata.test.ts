// Type tests for a tool's metadata and ctx.log levels: `npm test` type-checks this file and runs it.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineTool, type Icon, type LogLevel, type ToolContext } from 'toolshed/plugin';
import type { McpTool, ToolInfo } from 'toolshed';

describe('tool metadata types', () => {
  it('a tool takes outputSchema, title, icons and examples', () => {
    const tool = defineTool({
      name: 'weather',
      title: 'Weather',
      icons: [{ src: 'https://example.com/w.png', theme: 'dark' }],
      description: 'Weather.',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
      outputSchema: { type: 'object', properties: { tempC: { type: 'number' } } },
      examples: [{ city: 'Oslo' }],
      handler: () => ({ tempC: 1 }),
    });
    expect(tool.title).toBe('Weather');
    expectTypeOf(tool.icons).toEqualTypeOf<Icon[] | undefined>();
    // @ts-expect-error a theme is light or dark
    const wrong: Icon = { src: 'https://example.com/w.png', theme: 'sepia' };
    expect(wrong.src).toBeTruthy();
  });

  it('ctx.log takes a level; onLog-style callbacks get one', () => {
    expectTypeOf<ToolContext['log']>().parameters.toEqualTypeOf<[message: string, level?: LogLevel]>();
    expectTypeOf<LogLevel>().toEqualTypeOf<
      'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency'
    >();
    expectTypeOf<McpTool['outputSchema']>().not.toBeAny();
    expectTypeOf<ToolInfo['title']>().toEqualTypeOf<string | undefined>();
  });
});
