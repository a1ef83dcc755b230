import { describe, expect, it } from 'vitest';
import { createToolHost, ToolshedError } from 'toolshed';
import { fixtureOptions, withHost } from '../helpers.js';

async function exposedNames(config: Record<string, unknown>, plugins = ['composite']): Promise<string[]> {
  return withHost(fixtureOptions(plugins, { config }), async (host) => {
    const defs = (await host.definitions({ format: 'mcp' })) as Array<{ name: string }>;
    return defs.map((d) => d.name);
  });
}

async function hostError(config: Record<string, unknown>, plugins: string[]): Promise<ToolshedError> {
  const error = await createToolHost(fixtureOptions(plugins, { config })).then(
    async (host) => {
      await host.close();
      throw new Error('expected createToolHost to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolshedError);
  return error as ToolshedError;
}

describe('layer 1: toolset selection', () => {
  it('enables every toolset by default, and with all or *', async () => {
    const every = ['alone', 'b1', 'b2', 'l1', 'r1', 't1'];
    expect(await exposedNames({})).toEqual(every);
    expect(await exposedNames({ enable: ['all'] })).toEqual(every);
    expect(await exposedNames({ enable: ['*'] })).toEqual(every);
  });

  it('follows includes recursively and counts a diamond once', async () => {
    expect(await exposedNames({ enable: ['top'] })).toEqual(['b1', 'b2', 'l1', 'r1', 't1']);
    expect(await exposedNames({ enable: ['left'] })).toEqual(['b1', 'b2', 'l1']);
  });

  it('adds tools listed directly in a toolset', async () => {
    expect(await exposedNames({ enable: ['loose'] })).toEqual(['l1']);
  });

  it('composes config toolsets with plugin toolsets', async () => {
    expect(await exposedNames({ toolsets: { mine: { includes: ['right'], tools: ['alone'] } }, enable: ['mine'] })).toEqual(['alone', 'b1', 'b2', 'r1']);
  });

  it('subtracts disabled toolsets and single tools last', async () => {
    expect(await exposedNames({ enable: ['top'], disable: ['base', 't1'] })).toEqual(['l1', 'r1']);
  });

  it('explains why an unselected or disabled tool is hidden', async () => {
    await withHost(fixtureOptions(['composite'], { config: { enable: ['left'], disable: ['b2'] } }), async (host) => {
      const tools = host.explain().tools;
      expect(tools.find((t) => t.name === 'r1')).toMatchObject({ exposed: false, layer: 'selection', reason: 'not in the enabled toolsets (left)' });
      expect(tools.find((t) => t.name === 'b2')).toMatchObject({ exposed: false, layer: 'selection', reason: 'disabled by config' });
      expect(host.explain().counts).toEqual({ registered: 6, selected: 2, available: 2, exposed: 2 });
    });
  });

  it('reports a cycle as TOOLSET_CYCLE naming the path', async () => {
    const error = await hostError({}, ['cyclic']);
    expect(error.code).toBe('TOOLSET_CYCLE');
    expect(error.message).toMatch(/(alpha → beta → gamma → alpha|beta → gamma → alpha → beta|gamma → alpha → beta → gamma)/);
  });

  it('reports a cycle in config toolsets too', async () => {
    const error = await hostError({ toolsets: { a: { includes: ['b'] }, b: { includes: ['a'] } }, enable: ['base'] }, ['composite']);
    expect(error.code).toBe('TOOLSET_CYCLE');
    expect(error.message).toContain('a → b → a');
  });

  it('reports an unknown toolset in enable with a did-you-mean', async () => {
    const error = await hostError({ enable: ['lefty'] }, ['composite']);
    expect(error.code).toBe('TOOLSET_UNKNOWN');
    expect(error.message).toContain("unknown toolset 'lefty'");
    expect(error.message).toContain("Did you mean 'left'");
  });

  it('reports an unknown include, naming who includes it', async () => {
    const error = await hostError({ toolsets: { mine: { includes: ['bsae'] } } }, ['composite']);
    expect(error.code).toBe('TOOLSET_UNKNOWN');
    expect(error.message).toContain('included by mine');
    expect(error.message).toContain("'base'");
  });

  it('reports an unknown name in disable instead of dropping it', async () => {
    const error = await hostError({ disable: ['r2'] }, ['composite']);
    expect(error.code).toBe('TOOLSET_UNKNOWN');
    expect(error.message).toContain("'r2'");
  });

  it('says so when a tool name is given to enable', async () => {
    const error = await hostError({ enable: ['b1'] }, ['composite']);
    expect(error.code).toBe('TOOLSET_UNKNOWN');
    expect(error.message).toContain('is a tool, not a toolset');
  });
});
