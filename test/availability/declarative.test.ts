import { describe, expect, it } from 'vitest';
import { fixtureOptions, withHost } from '../helpers.js';

const ALL_OK = { PATH: process.env.PATH };

describe('layer 2: declarative requires, evaluated in the host', () => {
  it('hides tools whose env, bins or platforms are missing, with the reason', async () => {
    await withHost(fixtureOptions(['probe'], { env: ALL_OK, config: { disable: ['shared_a', 'shared_b', 'own_check'] } }), async (host) => {
      const report = host.explain();
      const byName = new Map(report.tools.map((t) => [t.name, t]));
      expect(byName.get('needs_key')).toMatchObject({ exposed: false, layer: 'availability', reason: 'missing environment variable PROBE_KEY' });
      expect(byName.get('needs_bin')).toMatchObject({ exposed: false, reason: 'toolshed-no-such-binary not found on PATH' });
      expect(byName.get('needs_sh')?.exposed).toBe(true);
      expect(byName.get('other_os')?.reason).toMatch(/^runs only on aix \(this is \w+\)$/);
    });
  });

  it('treats an empty env value as missing', async () => {
    await withHost(fixtureOptions(['probe'], { env: { ...ALL_OK, PROBE_KEY: '' } }), async (host) => {
      expect(host.explain().tools.find((t) => t.name === 'needs_key')?.exposed).toBe(false);
    });
  });

  it('resolves requires.tools to a fixed point', async () => {
    await withHost(fixtureOptions(['probe'], { env: ALL_OK }), async (host) => {
      const tools = host.explain().tools;
      expect(tools.find((t) => t.name === 'after_key')).toMatchObject({ exposed: false, reason: 'requires tool needs_key, which is not exposed' });
      expect(tools.find((t) => t.name === 'after_after')).toMatchObject({ exposed: false, reason: 'requires tool after_key, which is not exposed' });
    });
    await withHost(fixtureOptions(['probe'], { env: { ...ALL_OK, PROBE_KEY: 'k' } }), async (host) => {
      const exposed = host
        .explain()
        .tools.filter((t) => t.exposed)
        .map((t) => t.name);
      expect(exposed).toEqual(expect.arrayContaining(['needs_key', 'after_key', 'after_after']));
    });
  });

  it('hides a tool whose required tool is disabled in layer 1', async () => {
    await withHost(fixtureOptions(['probe'], { env: { ...ALL_OK, PROBE_KEY: 'k' }, config: { disable: ['needs_key'] } }), async (host) => {
      expect(host.explain().tools.find((t) => t.name === 'after_key')?.reason).toBe('requires tool needs_key, which is not exposed');
    });
  });

  it('runs no plugin code for declarative requires', async () => {
    await withHost(fixtureOptions(['probe'], { env: ALL_OK, config: { enable: ['probe'], disable: ['shared_a', 'shared_b', 'own_check'] } }), async (host) => {
      await host.definitions();
      const plugin = host.explain().plugins[0]!;
      expect(plugin.pool?.started).toBe(false);
    });
  });
});
