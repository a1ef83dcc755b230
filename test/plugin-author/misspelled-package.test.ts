/**
 * Issue 23 §5: a misspelled plugin package. The operator is offered the installed package the
 * name was probably meant to be, instead of being told to `npm install` the misspelling; a name
 * near nothing installed still gets the install command. A real app folder with a real plugin
 * package in its node_modules (and one under a scope).
 */
import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, tempDir, withHost } from '../helpers.js';
import { nearestName } from '#internal/core/text/suggest.js';

describe('a plugin package name that is not installed', () => {
  let app: ReturnType<typeof tempDir>;
  beforeAll(() => {
    app = tempDir();
    cpSync(fixture('plugin-author', 'notebook'), path.join(app.dir, 'node_modules', 'toolshed-plugin-notebook'), {
      recursive: true,
    });
    mkdirSync(path.join(app.dir, 'node_modules', '@acme'));
    cpSync(
      fixture('plugin-author', 'notebook'),
      path.join(app.dir, 'node_modules', '@acme', 'toolshed-plugin-ledger'),
      { recursive: true },
    );
  });
  afterAll(() => app.cleanup());

  const failure = (plugins: string[]) =>
    withHost(
      { cwd: app.dir, env: {}, config: { builtins: false, cache: { enabled: false }, plugins } },
      async (host) => host.explain().plugins[0]!,
    );

  it('offers the installed package it probably meant', async () => {
    const plugin = await failure(['toolshed-plugin-notebok']);
    expect(plugin).toMatchObject({ status: 'failed', error: { code: 'PLUGIN_NOT_FOUND' } });
    expect(plugin.error!.message).toContain("Did you mean 'toolshed-plugin-notebook' (installed)?");
    expect(plugin.error!.message).not.toMatch(/Run: npm install toolshed-plugin-notebok$/);
  });

  it('finds scoped packages too', async () => {
    const plugin = await failure(['@acme/toolshed-plugin-ledgr']);
    expect(plugin.error!.message).toContain("Did you mean '@acme/toolshed-plugin-ledger' (installed)?");
  });

  it('a name near nothing installed gets the install command', async () => {
    const plugin = await failure(['toolshed-plugin-weather']);
    expect(plugin.error!.message).toContain('Run: npm install toolshed-plugin-weather');
    expect(plugin.error!.message).not.toContain('Did you mean');
  });
});

describe('nearestName', () => {
  it('is the single nearest candidate within a quarter of the length, never a mere substring', () => {
    expect(
      nearestName('toolshed-plugin-wether', ['toolshed', 'ms', 'toolshed-plugin-weather', 'toolshed-plugin-feather']),
    ).toBe('toolshed-plugin-weather');
    expect(nearestName('toolshed-plugin-x', ['toolshed', 'x'])).toBeUndefined();
    // Two equally near: no guess.
    expect(nearestName('toolshed-plugin-ab', ['toolshed-plugin-ac', 'toolshed-plugin-ad'])).toBeUndefined();
  });
});
