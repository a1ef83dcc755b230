/**
 * The structural claims of the README's layout and docs/architecture.md hold: every folder of the host, the
 * sandbox side and the boundary is named in both, and the rank table is the import rules' (.dependency-cruiser.cjs,
 * which `npm run lint:imports` enforces) rank for rank.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const ARCHITECTURE = read('docs/architecture.md');
const README = read('README.md');

/** The import rules' ranks: rule `host-rank-N` names the folders of rank N in its `from` path. */
function ruleRanks(): string[][] {
  const config = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as {
    forbidden: { name: string; from: { path?: string } }[];
  };
  return config.forbidden
    .filter((rule) => /^host-rank-\d+$/.test(rule.name))
    .sort((a, b) => Number(a.name.slice(10)) - Number(b.name.slice(10)))
    .map((rule) =>
      /^\^\((.*)\)\(\/\|\$\)$/
        .exec(rule.from.path ?? '')![1]!
        .split('|')
        .map((folder) => folder.replaceAll('\\.', '.'))
        .sort(),
    );
}

/** docs/architecture.md's rank table: `| N | \`folder/\`, … | … |`, the folders of each rank. */
function docRanks(): string[][] {
  const table = ARCHITECTURE.slice(ARCHITECTURE.indexOf('| rank | folder |'));
  const rows = [...table.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)];
  return rows.map(([, , folders]) => [...folders!.matchAll(/`([\w/.-]+?)\/?`/g)].map(([, folder]) => folder!).sort());
}

/** Every folder directly under core/, sandbox/ and boundary/. */
const FOLDERS = ['core', 'sandbox', 'boundary'].flatMap((side) =>
  readdirSync(path.join(ROOT, side), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${side}/${entry.name}`),
);

describe('the docs describe the code as it is', () => {
  it("docs/architecture.md's rank table is the import rules' ranks", () => {
    const rules = ruleRanks();
    expect(rules.length).toBeGreaterThan(5);
    expect(docRanks()).toEqual(rules);
  });

  it('every folder of core/ is in the rank table, and every one of core/, sandbox/ and boundary/ in both layouts', () => {
    const ranked = new Set(docRanks().flat());
    expect(FOLDERS.filter((folder) => folder.startsWith('core/') && !ranked.has(folder))).toEqual([]);
    const layout = README.slice(README.indexOf('## Layout'));
    expect(FOLDERS.filter((folder) => !layout.includes(`${folder}/`))).toEqual([]);
    expect(FOLDERS.filter((folder) => !ARCHITECTURE.includes(`${folder}/`))).toEqual([]);
  });
});
