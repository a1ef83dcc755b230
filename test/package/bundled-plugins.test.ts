/**
 * The first-party plugins ship inside the toolshed package (plugins/), not as packages
 * of their own, so the root package must declare every module they import, at the
 * version they declare; and they must never be published on their own by mistake.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const root = read(path.join(REPO, 'package.json'));
const plugins = readdirSync(path.join(REPO, 'plugins')).map((dir) => ({
  dir,
  pkg: read(path.join(REPO, 'plugins', dir, 'package.json')),
}));

describe('bundled first-party plugins', () => {
  it.each(plugins)('the root declares every dependency of plugins/$dir at the same version', ({ pkg }) => {
    for (const [name, version] of Object.entries(pkg.dependencies ?? {}))
      expect(root.dependencies[name], `${pkg.name} needs ${name}`).toBe(version);
  });

  it.each(plugins)('plugins/$dir is private and ships in the package files', ({ pkg }) => {
    expect(pkg.private).toBe(true);
    expect(pkg.name).toMatch(/^@toolshed\//);
    expect(root.files).toContain('plugins');
  });

  it.each(plugins)('plugins/$dir imports only what it declares', ({ dir, pkg }) => {
    const sources = (readdirSync(path.join(REPO, 'plugins', dir), { recursive: true }) as string[]).filter(
      (f) => f.endsWith('.js') && !f.split(path.sep).includes('test') && !f.includes('vitest.config'),
    );
    const imported = new Set<string>();
    for (const file of sources) {
      for (const match of readFileSync(path.join(REPO, 'plugins', dir, file), 'utf8').matchAll(
        /\bfrom\s+'([^'.][^']*)'|import\(\s*'([^'.][^']*)'\s*\)/g,
      )) {
        const spec = match[1] ?? match[2];
        if (!spec || spec.startsWith('node:')) continue;
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    imported.delete('toolshed');
    expect([...imported].filter((name) => !(name in (pkg.dependencies ?? {})))).toEqual([]);
  });
});
