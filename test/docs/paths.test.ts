/**
 * The docs name files of this repository (`boundary/launch/launch.ts`,
 * `test/security/…`, `sandbox/child/`); a file that moved leaves such a name
 * pointing nowhere. Every one named in the README and the docs must exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** A repository path: a top-level folder, then path segments (globs and placeholders end the match). */
const REPO_PATH = /\b(?:boundary|core|sandbox|plugins|test|bench|scripts|examples)\/[\w./-]*[\w/-]/g;
/** Written by a command, not kept in the repository. */
const GENERATED = new Set(['bench/results.json']);

/** Whether `name` exists, as written or (a compiled `.js` named from dist/) as its `.ts` source. */
function exists(name: string): boolean {
  if (GENERATED.has(name)) return true;
  return (
    existsSync(path.join(root, name)) ||
    (name.endsWith('.js') && existsSync(path.join(root, name.replace(/\.js$/, '.ts'))))
  );
}

describe('repository paths named in the docs', () => {
  it.each(pages)('%s names only files and folders that exist', (page) => {
    const text = readFileSync(path.join(root, page), 'utf8');
    const missing = [...new Set(text.match(REPO_PATH) ?? [])].filter((name) => !exists(name));
    expect(missing).toEqual([]);
  });

  it("docs/security.md's suite table names test files that exist (test/security's, or test/DIR/FILE)", () => {
    const text = readFileSync(path.join(root, 'docs/security.md'), 'utf8');
    const table = text.slice(text.indexOf('## The security suite'));
    const named = [...new Set(table.match(/(?<![\w/-])(?:[\w-]+\/)?[\w-]+\.test\.ts/g) ?? [])];
    expect(named.length).toBeGreaterThan(10);
    expect(
      named.filter((file) => !existsSync(path.join(root, 'test', file.includes('/') ? file : `security/${file}`))),
    ).toEqual([]);
  });
});
