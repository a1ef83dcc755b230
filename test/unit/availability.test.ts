/**
 * Layer 2's declarative requirements on the stage: the definitions pipeline of one surface
 * (core/expose/pipeline.ts) over a registry built in memory, with the env, platform and PATH it is
 * given, and the test clock. No plugin code runs for env, bins, platforms and requires.tools; a
 * custom check is a function the test holds. Recomputing after a flip must give what a fresh
 * pipeline gives, descriptions and warnings included (layer 3 follows). Through a host with the
 * probe fixture: test/availability/declarative.test.ts; custom checks in a worker:
 * test/availability/checks.test.ts; the first-party web plugin among the builtins:
 * test/definitions/builtin-seed.test.ts.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import type { CheckVerdict } from '#internal/boundary/protocol.js';
import { CheckCache } from '#internal/core/expose/check-cache.js';
import { DescriptionTokens } from '#internal/core/expose/descriptions.js';
import { DefinitionsPipeline } from '#internal/core/expose/pipeline.js';
import type { SchemaRewriter } from '#internal/core/expose/public-types.js';
import type { LoadedPlugin } from '#internal/core/load/types.js';
import { formatDefinitions } from '#internal/core/providers/index.js';
import { type FixturePlugin, loadedPlugin, registryOf, resolvedConfig, SEED } from '../support/registry-fixture.js';
import { ManualClock } from '../helpers.js';

/** test/fixtures/plugins/probe's declarative tools as data. */
const PROBE: FixturePlugin = {
  name: 'probe',
  tools: [
    { name: 'needs_key', toolset: 'probe', requires: { env: ['PROBE_KEY'] } },
    { name: 'needs_bin', toolset: 'probe', requires: { bins: ['toolshed-no-such-binary'] } },
    { name: 'needs_sh', toolset: 'probe', requires: { bins: ['sh'] } },
    { name: 'other_os', toolset: 'probe', requires: { platforms: ['aix'] } },
    { name: 'after_key', toolset: 'probe', requires: { tools: ['needs_key'] } },
    { name: 'after_after', toolset: 'probe', requires: { tools: ['after_key'] } },
  ],
};

/** The flip plugin of test/definitions/recompute.test.ts, on the platform `platform` is not. */
const FLIP: FixturePlugin = {
  name: 'flip',
  tools: [
    { name: 'search', description: 'Search.', requires: { env: ['KEY_S'] } },
    {
      name: 'browse',
      description: ['Browse.', { ifAvailable: ['search'], text: 'Prefer search.' }],
      requires: { env: ['KEY_B'] },
    },
    { name: 'notes', description: 'Notes; feed them search results.' },
    { name: 'elsewhere', description: 'Runs elsewhere.', requires: { env: ['KEY_E'], platforms: ['win32', 'darwin'] } },
  ],
};

/** A loaded plugin whose runner has no connection and can run nothing: a stage that tried would throw. */
function idle(plugin: FixturePlugin, change: (loaded: LoadedPlugin) => void = () => {}): LoadedPlugin {
  const loaded = { ...loadedPlugin(plugin), runner: {} as LoadedPlugin['runner'] };
  change(loaded);
  return loaded;
}

interface Options {
  env?: Record<string, string | undefined>;
  config?: Record<string, unknown>;
  runCheck?: (name: string) => Promise<CheckVerdict>;
  rewriters?: SchemaRewriter[];
  outOfService?: (name: string) => { reason: string; until: number } | undefined;
  /** the check cache's grace window (default 0) */
  graceMs?: number;
}

/** One surface's pipeline over `plugins`, on Linux, as the host builds it (core/host/open-pipeline.ts). */
function pipelineOf(plugins: Array<FixturePlugin | LoadedPlugin>, options: Options = {}) {
  const registry = registryOf(plugins.map((plugin) => ('status' in plugin ? plugin : idle(plugin))));
  const clock = new ManualClock();
  const config = resolvedConfig({ builtins: false, ...options.config });
  const warnings: string[] = [];
  const runCheck = vi.fn(async (record: { name: string }) =>
    options.runCheck ? options.runCheck(record.name) : { ok: true },
  );
  const outOfService = options.outOfService;
  const cache = new CheckCache({ ttlMs: 1000, graceMs: options.graceMs ?? 0, clock });
  const pipeline = new DefinitionsPipeline({
    registry,
    config: () => config,
    cache,
    clock,
    availability: {
      env: options.env ?? { PATH: process.env.PATH },
      platform: 'linux',
      runCheck,
      ...(outOfService ? { outOfService: (record: { name: string }) => outOfService(record.name) } : {}),
    },
    rewriters: options.rewriters ?? [],
    tokens: new DescriptionTokens(),
    onChange: () => {},
    onWarning: (message) => warnings.push(message),
  });
  const current = async () => {
    const exposure = await pipeline.current();
    return {
      exposure,
      state: (name: string) => exposure.states.get(name),
      exposed: exposure.definitions.map((d) => d.name),
      descriptions: Object.fromEntries(exposure.definitions.map((d) => [d.name, d.description])),
    };
  };
  /** As the host's invalidateChecks(): the next current() probes afresh and recomputes. */
  const again = () => {
    cache.invalidate();
    pipeline.reset();
    return current();
  };
  return { pipeline, current, again, warnings, runCheck, clock };
}

describe('declarative requires', () => {
  it('hides tools whose env, bins or platforms are missing, with the reason; a binary on PATH is found', async () => {
    const { current } = pipelineOf([PROBE]);
    const { state } = await current();
    expect(state('needs_key')).toMatchObject({
      exposed: false,
      layer: 'availability',
      reason: 'missing environment variable PROBE_KEY',
      availability: { kind: 'env' },
    });
    expect(state('needs_bin')).toMatchObject({
      exposed: false,
      layer: 'availability',
      reason: 'toolshed-no-such-binary not found on PATH',
      availability: { kind: 'bins' },
    });
    expect(state('needs_sh')?.exposed).toBe(true);
    expect(state('other_os')).toMatchObject({
      exposed: false,
      reason: 'runs only on aix (this is linux)',
      availability: { kind: 'platforms' },
    });
  });

  it('treats an empty env value as missing, and names every missing variable', async () => {
    expect(
      (await pipelineOf([PROBE], { env: { PATH: process.env.PATH, PROBE_KEY: '' } }).current()).state('needs_key')
        ?.exposed,
    ).toBe(false);
    const two: FixturePlugin = { name: 'two', tools: [{ name: 'both', requires: { env: ['KEY_A', 'KEY_B'] } }] };
    expect((await pipelineOf([two], { env: { KEY_B: 'b' } }).current()).state('both')?.reason).toBe(
      'missing environment variable KEY_A',
    );
    expect((await pipelineOf([two], { env: {} }).current()).state('both')?.reason).toBe(
      'missing environment variables KEY_A, KEY_B',
    );
  });

  it('resolves requires.tools to a fixed point', async () => {
    const { state } = await pipelineOf([PROBE]).current();
    expect(state('after_key')).toMatchObject({
      exposed: false,
      layer: 'availability',
      reason: 'requires tool needs_key, which is not exposed',
      availability: { kind: 'tools' },
    });
    expect(state('after_after')).toMatchObject({
      exposed: false,
      reason: 'requires tool after_key, which is not exposed',
    });
    const { exposed } = await pipelineOf([PROBE], { env: { PATH: process.env.PATH, PROBE_KEY: 'k' } }).current();
    expect(exposed).toEqual(expect.arrayContaining(['needs_key', 'after_key', 'after_after']));
  });

  it('hides a tool whose required tool is disabled in layer 1', async () => {
    const { state } = await pipelineOf([PROBE], {
      env: { PATH: process.env.PATH, PROBE_KEY: 'k' },
      config: { disable: ['needs_key'] },
    }).current();
    expect(state('needs_key')).toMatchObject({ exposed: false, layer: 'selection', reason: 'disabled by config' });
    expect(state('after_key')?.reason).toBe('requires tool needs_key, which is not exposed');
  });

  it('runs no plugin code: no check is asked for, and the runner is never touched', async () => {
    const { current, runCheck } = pipelineOf([PROBE], { env: { PATH: process.env.PATH, PROBE_KEY: 'k' } });
    expect((await current()).exposed).toEqual(['after_after', 'after_key', 'needs_key', 'needs_sh']);
    expect(runCheck).not.toHaveBeenCalled();
  });

  it('reports a tool that misses an env var on the wrong platform by its env var, then by its platform, as it flips', async () => {
    const env: Record<string, string | undefined> = { KEY_S: '1', KEY_B: '1' };
    const { current, again } = pipelineOf([FLIP], { env });
    expect((await current()).state('elsewhere')).toMatchObject({
      exposed: false,
      layer: 'availability',
      reason: 'missing environment variable KEY_E',
    });
    env.KEY_E = '1';
    expect((await again()).state('elsewhere')?.reason).toBe('runs only on win32, darwin (this is linux)');
    delete env.KEY_E;
    expect((await again()).state('elsewhere')?.reason).toBe('missing environment variable KEY_E');
  });
});

describe('grants of an untrusted plugin', () => {
  const untrusted = (
    plugin: FixturePlugin,
    requested: { env?: string[]; network?: boolean },
    granted: { env?: string[]; network?: boolean },
  ) =>
    idle(plugin, (loaded) => {
      loaded.source = { ...loaded.source, trust: 'untrusted' };
      loaded.permissions = {
        requested: { ...loaded.permissions.requested, ...requested },
        granted,
        effective: granted,
      };
    });

  it('hides a tool whose env var is not granted, and every tool of a plugin that asks for the network without the grant', async () => {
    const keyed: FixturePlugin = {
      name: 'keyed',
      tools: [{ name: 'with_key', requires: { env: ['API_KEY'] } }, { name: 'plain' }],
    };
    const noGrant = await pipelineOf([untrusted(keyed, { env: ['API_KEY'] }, { env: [] })], {
      env: { API_KEY: 'set' },
    }).current();
    expect(noGrant.state('with_key')).toMatchObject({
      exposed: false,
      reason: 'environment variable API_KEY not granted to untrusted plugin keyed',
      availability: { kind: 'permissions' },
    });
    expect(noGrant.state('plain')?.exposed).toBe(true);
    expect(
      (
        await pipelineOf([untrusted(keyed, { env: ['API_KEY'] }, { env: ['API_KEY'] })], {
          env: { API_KEY: 'set' },
        }).current()
      ).exposed,
    ).toEqual(['plain', 'with_key']);
    const offline = await pipelineOf([untrusted(keyed, { network: true }, { network: false })], {
      env: { API_KEY: 'set' },
    }).current();
    expect(offline.exposed).toEqual([]);
    expect(offline.state('plain')?.reason).toBe('network access not granted to untrusted plugin keyed');
  });
});

describe('a custom check', () => {
  const checked = (): LoadedPlugin =>
    idle({ name: 'checked', tools: [{ name: 'shared_a' }] }, (loaded) => {
      loaded.manifest.tools[0]!.checkId = 'shared';
    });

  it('serves the last success for a failure within graceMs, saying so in explain, and hides the tool after it', async () => {
    let verdict: CheckVerdict = { ok: true };
    const { current, clock } = pipelineOf([checked()], { graceMs: 10_000, runCheck: async () => verdict });
    expect((await current()).state('shared_a')).toMatchObject({ exposed: true, warnings: [] });
    verdict = { ok: false, reason: 'check returned false' };
    // Past the verdict's ttlMs, within the grace window.
    clock.advance(1500);
    const graced = await current();
    expect(graced.state('shared_a')?.exposed).toBe(true);
    expect(graced.state('shared_a')?.warnings).toEqual([
      'check failed (check returned false) but a success within the grace window is served',
    ]);
    clock.advance(10_000);
    expect((await current()).state('shared_a')).toMatchObject({
      exposed: false,
      layer: 'availability',
      reason: 'check returned false',
      availability: { kind: 'check' },
    });
  });
});

describe('out of service', () => {
  it('hides a tool whose circuit is open, with its reason, until the cool-down ends', async () => {
    const { current, clock } = pipelineOf([PROBE], {
      outOfService: (name) =>
        name === 'needs_sh' ? { reason: 'crashed 3 times in 60 s; retrying after 30 s', until: 30_000 } : undefined,
    });
    const { exposure, state } = await current();
    expect(state('needs_sh')).toMatchObject({
      exposed: false,
      layer: 'availability',
      reason: 'crashed 3 times in 60 s; retrying after 30 s',
      availability: { kind: 'breaker' },
    });
    // Computed again when the cool-down ends, for its probe call.
    expect(exposure.validUntil).toBe(30_000);
    clock.advance(30_000);
    expect((await current()).exposure).not.toBe(exposure);
  });
});

describe('layer 3 follows layer 2: descriptions name only exposed tools', () => {
  it('seed: browse drops "prefer web_search" while the key is missing, and explain flags summarize, which still names it', async () => {
    const { current, warnings } = pipelineOf([SEED], { env: {} });
    const { state, descriptions, exposure } = await current();
    expect(descriptions.web_search).toBeUndefined();
    expect(state('web_search')?.reason).toBe('missing environment variable SEARCH_API_KEY');
    expect(descriptions.browse).toBe('Open a URL and return its readable text. Only known URLs can be opened.');
    expect(state('summarize')?.warnings).toEqual([
      'description of summarize mentions web_search, which is not exposed',
    ]);
    expect(exposure.warnings).toContain('description of summarize mentions web_search, which is not exposed');
    expect(state('browse')?.warnings).toEqual([]);
    expect(warnings).toEqual(['description of summarize mentions web_search, which is not exposed']);
  });

  it('seed: browse keeps "prefer web_search" when the key is set, with no warning', async () => {
    const { current, warnings } = pipelineOf([SEED], { env: { SEARCH_API_KEY: 'k' } });
    const { descriptions, exposure } = await current();
    expect(descriptions.browse).toBe('Open a URL and return its readable text. To find pages, prefer web_search.');
    expect(exposure.warnings).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('seed: disabling web_search in layer 1 has the same effect', async () => {
    const { descriptions } = await pipelineOf([SEED], {
      env: { SEARCH_API_KEY: 'k' },
      config: { disable: ['web_search'] },
    }).current();
    expect(descriptions.browse).not.toContain('web_search');
  });

  it('warns when a check flips and a description now names a hidden tool', async () => {
    const checked: FixturePlugin = {
      name: 'checked',
      tools: [{ name: 'own_check' }, { name: 'mentions_own', description: 'Pairs with own_check.' }],
    };
    const plugin = idle(checked, (loaded) => {
      loaded.manifest.tools[0]!.checkId = 'own';
    });
    let verdict: CheckVerdict = { ok: true };
    const { current, again, warnings } = pipelineOf([plugin], { runCheck: async () => verdict });
    expect((await current()).exposed).toEqual(['mentions_own', 'own_check']);
    expect(warnings).toEqual([]);
    verdict = { ok: false, reason: 'the service said no' };
    const { state } = await again();
    expect(state('own_check')).toMatchObject({ exposed: false, reason: 'the service said no' });
    expect(warnings).toEqual(['description of mentions_own mentions own_check, which is not exposed']);
  });

  it('sorts by name, the same whatever the order of the plugins', async () => {
    const other: FixturePlugin = { name: 'other', tools: [{ name: 'alpha' }, { name: 'omega' }] };
    const first = await pipelineOf([SEED, other], { env: {} }).current();
    const second = await pipelineOf([other, SEED], { env: {} }).current();
    expect(JSON.stringify(formatDefinitions(first.exposure.definitions, 'openai'))).toBe(
      JSON.stringify(formatDefinitions(second.exposure.definitions, 'openai')),
    );
    expect(first.exposed).toEqual(['alpha', 'browse', 'omega', 'summarize', 'zeta']);
  });
});

describe('the seed case on the first-party web plugin', () => {
  /**
   * plugins/web's own default export, its tools as data (the loader's extraction replaces each function by its typeof).
   */
  const web = async (): Promise<FixturePlugin> => {
    const plugin = (
      await import(pathToFileURL(fileURLToPath(new URL('../../plugins/web/index.js', import.meta.url))).href)
    ).default as FixturePlugin;
    return { name: 'web', toolsets: plugin.toolsets, tools: plugin.tools.map((tool) => ({ ...tool })) };
  };

  it('web_fetch does not mention web_search while BRAVE_API_KEY is missing, and points at it once the key is set', async () => {
    const without = await pipelineOf([await web()], {
      env: { PATH: process.env.PATH },
      config: { enable: ['web'] },
    }).current();
    expect(without.exposed).toEqual(['web_fetch']);
    expect(without.descriptions.web_fetch).not.toContain('web_search');
    expect(without.state('web_search')).toMatchObject({
      exposed: false,
      layer: 'availability',
      reason: 'missing environment variable BRAVE_API_KEY',
    });
    expect(without.exposure.warnings).toEqual([]);
    const keyed = await pipelineOf([await web()], {
      env: { PATH: process.env.PATH, BRAVE_API_KEY: 'test-key' },
      config: { enable: ['web'] },
    }).current();
    expect(keyed.exposed).toEqual(['web_fetch', 'web_search']);
    expect(keyed.descriptions.web_fetch).toContain('web_search');
  });
});

describe('a recompute', () => {
  it('hands back the same list when no verdict changed, and a new one after a flip', async () => {
    const env: Record<string, string | undefined> = { KEY_S: '1', KEY_B: '1' };
    const { current, again } = pipelineOf([FLIP], { env });
    const first = (await current()).exposure.definitions;
    expect((await again()).exposure.definitions).toBe(first);
    delete env.KEY_S;
    const flipped = await again();
    expect(flipped.exposure.definitions).not.toBe(first);
    expect(flipped.exposed).toEqual(['browse', 'notes']);
    expect(flipped.descriptions.browse).toBe('Browse.');
  });

  it('matches a fresh computation after every flip, descriptions and warnings included', async () => {
    const env: Record<string, string | undefined> = { KEY_S: '1', KEY_B: '1' };
    const { again } = pipelineOf([FLIP], { env });
    const state = async () => {
      const { descriptions, exposure } = await again();
      // What a fresh pipeline makes of the same env.
      const fresh = await pipelineOf([FLIP], { env: { ...env } }).current();
      expect(descriptions).toEqual(fresh.descriptions);
      expect(exposure.warnings).toEqual(fresh.exposure.warnings);
      return { tools: descriptions, warnings: exposure.warnings };
    };
    expect(await state()).toEqual({
      tools: { browse: 'Browse. Prefer search.', notes: 'Notes; feed them search results.', search: 'Search.' },
      warnings: [],
    });
    // browse hidden, then search goes while browse is hidden
    delete env.KEY_B;
    expect((await state()).tools.browse).toBeUndefined();
    delete env.KEY_S;
    expect(await state()).toEqual({
      tools: { notes: 'Notes; feed them search results.' },
      warnings: ['description of notes mentions search, which is not exposed'],
    });
    // browse comes back while search is still hidden: its description is resolved again
    env.KEY_B = '1';
    expect(await state()).toEqual({
      tools: { browse: 'Browse.', notes: 'Notes; feed them search results.' },
      warnings: ['description of notes mentions search, which is not exposed'],
    });
    // the same state twice: findings reused, same warnings
    expect((await state()).warnings).toEqual(['description of notes mentions search, which is not exposed']);
    env.KEY_S = '1';
    expect(await state()).toEqual({
      tools: { browse: 'Browse. Prefer search.', notes: 'Notes; feed them search results.', search: 'Search.' },
      warnings: [],
    });
  });

  it('asks a schema rewriter again unless it says it is pure, and a pure one again when a verdict changed', async () => {
    let asked = 0;
    const suffix = (pure: boolean): SchemaRewriter => ({
      ...(pure ? { pure } : {}),
      appliesTo: (record) => record.name === 'search',
      rewrite: async (definition) => ({
        definition: { ...definition, description: `${definition.description} (${++asked})` },
      }),
    });
    const env: Record<string, string | undefined> = { KEY_S: '1', KEY_B: '1' };
    const pure = pipelineOf([FLIP], { env, rewriters: [suffix(true)] });
    expect((await pure.current()).descriptions.search).toBe('Search. (1)');
    expect((await pure.again()).descriptions.search).toBe('Search. (1)');
    // browse went: the pure one is asked again.
    delete env.KEY_B;
    expect((await pure.again()).descriptions.search).toBe('Search. (2)');
    asked = 0;
    env.KEY_B = '1';
    const impure = pipelineOf([FLIP], { env, rewriters: [suffix(false)] });
    expect((await impure.current()).descriptions.search).toBe('Search. (1)');
    expect((await impure.again()).descriptions.search).toBe('Search. (2)');
  });
});
