/**
 * What a tool declares besides its parameters (outputSchema, title, icons, examples) is checked at
 * load, so a mistake makes its plugin PLUGIN_INVALID naming the tool and where, and what passes
 * reaches every surface: a schema rewriter's ToolInfo and the mcp format.
 */
import { describe, expect, it } from 'vitest';
import type { SchemaRewriter, ToolInfo } from 'toolshed';
import { fixtureOptions, withHost } from '../helpers.js';

describe('tool metadata at load', () => {
  it('an outputSchema whose root is not an object is PLUGIN_INVALID, saying why', async () => {
    await withHost(fixtureOptions(['badoutput', 'where']), async (host) => {
      const failed = host.explain().plugins.find((p) => p.name === 'toolshed-plugin-badoutput')!;
      expect(failed.error?.code).toBe('PLUGIN_INVALID');
      expect(failed.error?.message).toMatch(
        /^toolshed-plugin-badoutput: tool list_things: outputSchema must have type "object" at its root \(a structured result is a JSON object, as MCP's structuredContent is\); it has type "array"\./,
      );
      expect(JSON.parse(await host.dispatch('where', {})).cwd).toBeTruthy();
    });
  });

  it('an example that does not match the parameters is PLUGIN_INVALID naming the tool, the index and the problem', async () => {
    await withHost(fixtureOptions(['badexample']), async (host) => {
      const failed = host.explain().plugins[0]!;
      expect(failed.error).toMatchObject({
        code: 'PLUGIN_INVALID',
        message:
          "toolshed-plugin-badexample: tool forecast: examples[1] does not match the tool's parameters: /city must be string",
      });
    });
  });

  it('an icon whose src is not https: or data:image is PLUGIN_INVALID', async () => {
    await withHost(fixtureOptions(['badicon']), async (host) => {
      const failed = host.explain().plugins[0]!;
      expect(failed.error?.code).toBe('PLUGIN_INVALID');
      expect(failed.error?.message).toBe(
        'toolshed-plugin-badicon: tool shiny: icons[1].src uses javascript:, which clients may not fetch safely: use an https: URL or a data:image/… URI',
      );
    });
  });

  it('a rewriter sees title, icons, outputSchema and examples on ToolInfo; the mcp format sends title, icons and outputSchema', async () => {
    const seen: ToolInfo[] = [];
    const spy: SchemaRewriter = {
      appliesTo: (tool) => {
        if (tool.name === 'weather') seen.push(tool);
        return false;
      },
      rewrite: async (definition) => ({ definition }),
    };
    await withHost({ ...fixtureOptions(['structured']), rewriters: [spy] }, async (host) => {
      const mcp = await host.definitions({ format: 'mcp' });
      const weather = mcp.find((t) => t.name === 'weather')!;
      expect(weather.title).toBe('Weather report');
      expect(weather.icons).toEqual([
        { src: 'https://example.test/weather.png', mimeType: 'image/png', sizes: ['48x48'] },
        { src: 'data:image/svg+xml;base64,PHN2Zy8+', theme: 'dark' },
      ]);
      expect(weather.outputSchema).toMatchObject({ type: 'object', required: ['city', 'tempC'] });
      expect(weather.description).toBe('The weather in a city.');
      expect(mcp.find((t) => t.name === 'levels')).not.toHaveProperty('outputSchema');
      const info = seen[0]!;
      expect(info.title).toBe('Weather report');
      expect(info.icons).toHaveLength(2);
      expect(info.outputSchema).toMatchObject({ type: 'object' });
      expect(info.examples).toEqual([{ city: 'Oslo' }, { city: 'Lima', units: 'F' }]);
      expect(Object.isFrozen(info)).toBe(true);
    });
  });
});
