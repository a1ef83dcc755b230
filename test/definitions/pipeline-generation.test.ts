/**
 * Each definitions pipeline (the host's, each view's) owns its memo and its
 * generation; the registry is read only to them. A view whose definitions
 * change moves its own generation and leaves the host's memo as it was: the
 * host serves the very exposure it computed, without recomputing.
 *
 * The stage is pure (no plugin code runs for declarative requires), so this
 * drives two pipelines over one registry built from plain manifests: no worker.
 */
import { describe, expect, it } from 'vitest';
import { DefinitionsPipeline } from '#internal/core/expose/pipeline.js';
import { Registry } from '#internal/core/expose/registry.js';
import { CheckCache } from '#internal/core/expose/check-cache.js';
import { DescriptionTokens } from '#internal/core/expose/descriptions.js';
import { resolveConfig } from '#internal/core/config/config.js';
import type { LoadedPlugin, ToolManifest } from '#internal/core/load/types.js';
import { ManualClock } from '../helpers.js';

const NO_PERMISSIONS = { network: false, env: [], fsRead: [], fsWrite: [] };

function manifest(name: string, toolset: string): ToolManifest {
  return {
    name,
    toolset,
    description: [`${name}.`],
    parameters: { type: 'object' },
    requires: { env: [], bins: [], tools: [], platforms: [] },
    limits: {},
    codeCallable: false,
    annotations: {},
  };
}

/** A loaded plugin as the loader hands it to the registry; its runner is never asked (no checks). */
function plugin(name: string, tools: ToolManifest[]): LoadedPlugin {
  return {
    status: 'loaded',
    source: {
      name,
      specifier: name,
      dir: `/plugins/${name}`,
      entry: `/plugins/${name}/index.js`,
      version: '1.0.0',
      builtin: false,
      trust: 'trusted',
      dependencyDirs: [],
    },
    manifest: { apiVersion: 1, toolsets: {}, permissions: NO_PERMISSIONS, tools },
    manifestSource: 'extracted',
    loadMs: 0,
    runner: {} as LoadedPlugin['runner'],
    env: [],
    scope: { roots: { read: [], write: [] }, options: {} } as unknown as LoadedPlugin['scope'],
    permissions: { requested: NO_PERMISSIONS, granted: {}, effective: {} },
  };
}

describe('a pipeline owns its generation and memo', () => {
  it("a view's change moves only the view's generation; the host's memo and the registry's generation stay", async () => {
    const registry = new Registry();
    registry.setPlugins([plugin('p', [manifest('alpha', 'a'), manifest('beta', 'b')])], {});
    const clock = new ManualClock();
    const config = resolveConfig({ builtins: false }, undefined, '/project', 1);
    const shared = {
      registry,
      cache: new CheckCache({ ttlMs: 30_000, graceMs: 0, clock }),
      clock,
      availability: { env: {}, platform: process.platform, runCheck: async () => ({ ok: true }) },
      rewriters: [],
      tokens: new DescriptionTokens(),
      onWarning: () => {},
    };
    const changes = { host: [] as number[], view: [] as number[] };
    const host = new DefinitionsPipeline({
      ...shared,
      config: () => config,
      onChange: (generation) => changes.host.push(generation),
    });
    let viewConfig = config;
    const view = new DefinitionsPipeline({
      ...shared,
      config: () => viewConfig,
      onChange: (generation) => changes.view.push(generation),
    });

    const hosted = await host.current();
    const viewed = await view.current();
    expect(hosted.definitions.map((d) => d.name)).toEqual(['alpha', 'beta']);
    expect(viewed.definitions.map((d) => d.name)).toEqual(['alpha', 'beta']);
    const registryGeneration = registry.generation;

    // The view's own selection changes (its config), and it recomputes: its definitions change.
    viewConfig = { ...config, disable: ['beta'] };
    view.reset();
    const narrowed = await view.current();
    expect(narrowed.definitions.map((d) => d.name)).toEqual(['alpha']);
    expect(changes.view).toEqual([viewed.generation + 1]);
    expect(narrowed.generation).toBe(viewed.generation + 1);

    // Nothing of the host's moved: the registry's generation, its memo, its generation, its events.
    expect(registry.generation).toBe(registryGeneration);
    expect(host.last).toBe(hosted);
    expect(await host.current()).toBe(hosted);
    expect(hosted.generation).toBe(1);
    expect(changes.host).toEqual([]);
  });

  it('a replaced plugin set invalidates every pipeline, and each counts its own change', async () => {
    const registry = new Registry();
    registry.setPlugins([plugin('p', [manifest('alpha', 'a')])], {});
    const clock = new ManualClock();
    const config = resolveConfig({ builtins: false }, undefined, '/project', 1);
    const shared = {
      registry,
      config: () => config,
      cache: new CheckCache({ ttlMs: 30_000, graceMs: 0, clock }),
      clock,
      availability: { env: {}, platform: process.platform, runCheck: async () => ({ ok: true }) },
      rewriters: [],
      tokens: new DescriptionTokens(),
      onWarning: () => {},
      onChange: () => {},
    };
    const host = new DefinitionsPipeline(shared);
    const view = new DefinitionsPipeline(shared);
    const before = [await host.current(), await view.current()];
    registry.setPlugins([plugin('p', [manifest('alpha', 'a'), manifest('gamma', 'a')])], {});
    const after = [await host.current(), await view.current()];
    for (const [i, exposure] of after.entries()) {
      expect(exposure).not.toBe(before[i]);
      expect(exposure.definitions.map((d) => d.name)).toEqual(['alpha', 'gamma']);
      expect(exposure.registryGeneration).toBe(registry.generation);
      expect(exposure.generation).toBe(before[i]!.generation + 1);
    }
  });
});
