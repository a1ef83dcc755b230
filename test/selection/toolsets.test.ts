/**
 * Layer 1 as the user meets it, through a host: what definitions() lists and explain() says,
 * and a selection error refusing the host. Every rule of selection (all and *, includes and
 * diamonds, direct tools, config toolsets, disable, cycles, unknown names) is tested on the
 * stage, selectTools, in select-tools.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createToolHost, ToolshedError } from 'toolshed';
import { fixtureOptions, withHost } from '../helpers.js';

describe('layer 1: toolset selection', () => {
  it('lists only the selected tools, and explains why an unselected or disabled tool is hidden', async () => {
    await withHost(fixtureOptions(['composite'], { config: { enable: ['left'], disable: ['b2'] } }), async (host) => {
      const defs = (await host.definitions({ format: 'mcp' })) as Array<{ name: string }>;
      expect(defs.map((d) => d.name)).toEqual(['b1', 'l1']);
      const tools = host.explain().tools;
      expect(tools.find((t) => t.name === 'r1')).toMatchObject({
        exposed: false,
        layer: 'selection',
        reason: 'not in the enabled toolsets (left)',
      });
      expect(tools.find((t) => t.name === 'b2')).toMatchObject({
        exposed: false,
        layer: 'selection',
        reason: 'disabled by config',
      });
      expect(host.explain().counts).toEqual({ registered: 6, selected: 2, available: 2, exposed: 2 });
    });
  });

  it('refuses to start on an unknown toolset in enable, with a did-you-mean', async () => {
    const error = await createToolHost(fixtureOptions(['composite'], { config: { enable: ['lefty'] } })).then(
      async (host) => {
        await host.close();
        throw new Error('expected createToolHost to fail');
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolshedError);
    expect((error as ToolshedError).code).toBe('TOOLSET_UNKNOWN');
    expect((error as ToolshedError).message).toContain("unknown toolset 'lefty'");
    expect((error as ToolshedError).message).toContain("Did you mean 'left'");
  });
});
