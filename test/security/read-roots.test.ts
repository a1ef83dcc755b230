/**
 * Read roots that escape the package: an untrusted plugin's dependency names
 * come from its own package.json, so they are checked before they become
 * paths its child may read. A name such as `../..` (not a package name) and a
 * dependency linked out of node_modules (a workspace link) make the plugin
 * fail to load with PLUGIN_INVALID naming the dependency, unless the operator
 * granted the linked path. Real fixture packages, real children.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, withHost } from '../helpers.js';
import { call, untrustedOptions } from './helpers.js';

const APP = fixture('security', 'escape-app');
const plugin = (name: string) => path.join(APP, 'node_modules', name);

describe('dependency names and links of an untrusted plugin', () => {
  it('a dependency named ../.. (which would open the app folder) makes the plugin PLUGIN_INVALID, naming it', async () => {
    await withHost(untrustedOptions([{ package: plugin('toolshed-plugin-escape') }], { cwd: APP }), async (host) => {
      const report = host.explain().plugins[0]!;
      expect(report.status).toBe('failed');
      expect(report.error!.code).toBe('PLUGIN_INVALID');
      expect(report.error!.message).toContain('dependency "../.." (declared in');
      expect(report.error!.message).toContain('not a valid npm package name');
      // Nothing of it runs: the app's secret stays out of reach.
      expect(await call(host, 'escape_read', { path: path.join(APP, 'secret.txt') })).toMatchObject({
        code: 'UNKNOWN_TOOL',
      });
    });
  });

  it('a dependency linked out of node_modules makes the plugin PLUGIN_INVALID, naming it and the grant that allows it', async () => {
    await withHost(untrustedOptions([{ package: plugin('toolshed-plugin-linked') }], { cwd: APP }), async (host) => {
      const report = host.explain().plugins[0]!;
      expect(report.status).toBe('failed');
      expect(report.error!.code).toBe('PLUGIN_INVALID');
      expect(report.error!.message).toContain('dependency "helper"');
      expect(report.error!.message).toContain(`resolves to ${path.join(APP, 'packages', 'helper')}, outside`);
      expect(report.error!.message).toContain('grant its path for reading to allow it');
    });
  });

  it('the same linked dependency loads when the operator grants its path for reading', async () => {
    const options = untrustedOptions(
      [{ package: plugin('toolshed-plugin-linked'), grant: { fsRead: ['./packages/helper'] } }],
      { cwd: APP },
    );
    await withHost(options, async (host) => {
      expect(host.explain().plugins[0]!.status).toBe('loaded');
      expect(await call(host, 'linked_helper')).toEqual({ helper: 'helped' });
    });
  });

  it('valid, hoisted and scoped dependencies load as before', async () => {
    await withHost(untrustedOptions([{ package: plugin('toolshed-plugin-fine') }], { cwd: APP }), async (host) => {
      expect(host.explain().plugins[0]!.status).toBe('loaded');
      expect(await call(host, 'fine_dep')).toEqual({ dep: 'scoped' });
    });
  });
});
