/**
 * Layer 1 as a pure function: selectTools over a registry built in memory (test/support), the
 * cases of toolsets.test.ts without a host, a worker or a plugin package.
 */
import { ToolshedError } from '#internal/boundary/errors.js';
import { selectTools } from '#internal/core/expose/toolsets.js';
import { describe, expect, it } from 'vitest';
import { type FixturePlugin, failedPlugin, registryOf, resolvedConfig } from '../support/registry-fixture.js';

/** test/fixtures/plugins/composite as data: top includes left and right, both include base. */
const COMPOSITE: FixturePlugin = {
  name: 'composite',
  toolsets: {
    top: { description: 'everything', includes: ['left', 'right'] },
    left: { includes: ['base'] },
    right: { includes: ['base'] },
    base: {},
    loose: { tools: ['l1'] },
  },
  tools: [
    { name: 'b1', toolset: 'base' },
    { name: 'b2', toolset: 'base' },
    { name: 'l1', toolset: 'left' },
    { name: 'r1', toolset: 'right' },
    { name: 't1', toolset: 'top' },
    { name: 'alone', toolset: 'solo' },
  ],
};
const CYCLIC: FixturePlugin = {
  name: 'cyclic',
  toolsets: { alpha: { includes: ['beta'] }, beta: { includes: ['gamma'] }, gamma: { includes: ['alpha'] } },
  tools: [{ name: 'spin', toolset: 'alpha' }],
};

function selected(config: Record<string, unknown>, plugins: FixturePlugin[] = [COMPOSITE]): string[] {
  return [...selectTools(registryOf(plugins), resolvedConfig(config)).selected].sort();
}

function selectionError(config: Record<string, unknown>, plugins: FixturePlugin[] = [COMPOSITE]): ToolshedError {
  try {
    selectTools(registryOf(plugins), resolvedConfig(config));
  } catch (error) {
    expect(error).toBeInstanceOf(ToolshedError);
    return error as ToolshedError;
  }
  throw new Error('expected selectTools to throw');
}

describe('layer 1 without workers: selectTools', () => {
  it('selects every toolset by default, and with all or *', () => {
    const every = ['alone', 'b1', 'b2', 'l1', 'r1', 't1'];
    expect(selected({})).toEqual(every);
    expect(selected({ enable: ['all'] })).toEqual(every);
    expect(selected({ enable: ['*'] })).toEqual(every);
  });

  it('follows includes recursively and counts a diamond once', () => {
    expect(selected({ enable: ['top'] })).toEqual(['b1', 'b2', 'l1', 'r1', 't1']);
    expect(selected({ enable: ['left'] })).toEqual(['b1', 'b2', 'l1']);
  });

  it('adds tools listed directly in a toolset', () => {
    expect(selected({ enable: ['loose'] })).toEqual(['l1']);
  });

  it('composes config toolsets with plugin toolsets', () => {
    expect(selected({ toolsets: { mine: { includes: ['right'], tools: ['alone'] } }, enable: ['mine'] })).toEqual([
      'alone',
      'b1',
      'b2',
      'r1',
    ]);
  });

  it('subtracts disabled toolsets and single tools last', () => {
    expect(selected({ enable: ['top'], disable: ['base', 't1'] })).toEqual(['l1', 'r1']);
  });

  it('gives the reason for every tool it leaves out', () => {
    const { reasons } = selectTools(registryOf([COMPOSITE]), resolvedConfig({ enable: ['left'], disable: ['b2'] }));
    expect(reasons.get('r1')).toBe('not in the enabled toolsets (left)');
    expect(reasons.get('b2')).toBe('disabled by config');
    expect(reasons.has('b1')).toBe(false);
  });

  it('reports a cycle as TOOLSET_CYCLE naming the path, in plugin and in config toolsets', () => {
    const plugin = selectionError({}, [CYCLIC]);
    expect(plugin.code).toBe('TOOLSET_CYCLE');
    expect(plugin.message).toMatch(
      /(alpha → beta → gamma → alpha|beta → gamma → alpha → beta|gamma → alpha → beta → gamma)/,
    );
    const config = selectionError({ toolsets: { a: { includes: ['b'] }, b: { includes: ['a'] } }, enable: ['base'] });
    expect(config.code).toBe('TOOLSET_CYCLE');
    expect(config.message).toContain('a → b → a');
  });

  it('reports an unknown toolset in enable with a did-you-mean, and an unknown include naming who includes it', () => {
    const enable = selectionError({ enable: ['lefty'] });
    expect(enable.code).toBe('TOOLSET_UNKNOWN');
    expect(enable.message).toContain("unknown toolset 'lefty'");
    expect(enable.message).toContain("Did you mean 'left'");
    const include = selectionError({ toolsets: { mine: { includes: ['bsae'] } } });
    expect(include.code).toBe('TOOLSET_UNKNOWN');
    expect(include.message).toContain('included by mine');
    expect(include.message).toContain("'base'");
  });

  it('reports an unknown name in disable, and a tool name given to enable', () => {
    const disable = selectionError({ disable: ['r2'] });
    expect(disable.code).toBe('TOOLSET_UNKNOWN');
    expect(disable.message).toContain("'r2'");
    const tool = selectionError({ enable: ['b1'] });
    expect(tool.code).toBe('TOOLSET_UNKNOWN');
    expect(tool.message).toContain('is a tool, not a toolset');
  });

  it('turns an unknown name into a warning while a plugin failed to load (it may have defined it)', () => {
    const registry = registryOf([COMPOSITE, failedPlugin('broken')]);
    const { selected: names, warnings } = selectTools(registry, resolvedConfig({ disable: ['r2'] }));
    expect([...names].sort()).toEqual(['alone', 'b1', 'b2', 'l1', 'r1', 't1']);
    expect(warnings).toEqual([
      expect.stringMatching(
        /unknown toolset or tool 'r2' in disable.*\(a plugin failed to load; it may have defined it\)$/,
      ),
    ]);
  });

  it("keeps a failed plugin's toolset known and says its tools are unavailable", () => {
    const registry = registryOf([COMPOSITE, failedPlugin('broken', ['extras'])]);
    const {
      selected: names,
      warnings,
      toolsets,
    } = selectTools(registry, resolvedConfig({ enable: ['extras', 'loose'] }));
    expect([...names]).toEqual(['l1']);
    expect(toolsets.get('extras')?.unavailable).toEqual([
      { plugin: 'broken', code: 'PLUGIN_IMPORT_FAILED', message: 'broken: import failed' },
    ]);
    expect(warnings).toEqual([
      "toolset 'extras' is enabled, but broken declares it and failed to load (PLUGIN_IMPORT_FAILED); its tools are unavailable",
    ]);
  });
});
