/**
 * Layer 2's declarative requires as the user meets them, through a host and the probe fixture:
 * explain says why each tool is hidden, and no plugin code runs to decide it. Every rule (empty
 * values, several missing names, requires.tools to a fixed point and across layer 1, env before
 * platforms, untrusted grants, an open circuit) is tested on the stage: test/unit/availability.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { fixtureOptions, withHost } from '../helpers.js';

const ALL_OK = { PATH: process.env.PATH };

describe('layer 2: declarative requires, evaluated in the host', () => {
  it('hides tools whose env, bins or platforms are missing, with the reason, and runs no plugin code for them', async () => {
    await withHost(
      fixtureOptions(['probe'], {
        env: ALL_OK,
        config: { enable: ['probe'], disable: ['shared_a', 'shared_b', 'own_check'] },
      }),
      async (host) => {
        const report = host.explain();
        const byName = new Map(report.tools.map((t) => [t.name, t]));
        expect(byName.get('needs_key')).toMatchObject({
          exposed: false,
          layer: 'availability',
          reason: 'missing environment variable PROBE_KEY',
        });
        expect(byName.get('needs_bin')).toMatchObject({
          exposed: false,
          reason: 'toolshed-no-such-binary not found on PATH',
        });
        expect(byName.get('needs_sh')?.exposed).toBe(true);
        expect(byName.get('other_os')?.reason).toMatch(/^runs only on aix \(this is \w+\)$/);
        expect(byName.get('after_key')).toMatchObject({
          exposed: false,
          reason: 'requires tool needs_key, which is not exposed',
        });
        await host.definitions();
        expect(host.explain().plugins[0]!.pool?.started).toBe(false);
      },
    );
  });
});
