/**
 * Lines of the project's own source are at most 120 columns (biome.jsonc's lineWidth). Biome formats code to that
 * width but never breaks a string or a comment, so this test holds those to it too. The suite's own files (test/) are
 * formatted at 120 as well, but a test's title and the source text of a script under test may run longer: they are
 * read whole, and are left out here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WIDTH = 120;
/** Folders of source, and files at the top, that the width holds for. */
const SOURCE = ['core', 'sandbox', 'boundary', 'console', 'plugins', 'scripts', 'bin', 'examples', 'bench', 'deploy'];
/** Never read: installed packages, builds, and data kept one record a line. */
const SKIP = new Set(['node_modules', 'dist', 'test', 'fixtures', 'catalogue', '.tmp']);
const CODE = /\.(ts|tsx|js|mjs|cjs)$/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return files(full);
    return CODE.test(entry.name) ? [full] : [];
  });
}

describe('line width', () => {
  it(`holds the source to ${WIDTH} columns`, () => {
    const checked = SOURCE.flatMap((folder) => files(path.join(ROOT, folder)));
    const topLevel = readdirSync(ROOT).filter((name) => CODE.test(name));
    const long = [...checked, ...topLevel.map((name) => path.join(ROOT, name))].flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => ([...line].length > WIDTH ? [`${path.relative(ROOT, file)}:${i + 1}`] : [])),
    );
    expect(checked.length).toBeGreaterThan(300);
    expect(long).toEqual([]);
  });
});
