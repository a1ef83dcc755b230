import { mkdir, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SEARCH_BYTES, normalizeGlob } from '../lib/search-files.js';
import { makeCtx, tempDir, tool } from './helpers.js';

const search = tool('search_files').handler;
let tmp;
let ctx;

async function put(rel, content) {
  const file = path.join(tmp.dir, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

beforeAll(async () => {
  tmp = await tempDir();
  ctx = makeCtx(tmp.dir);
  await put('src/app.ts', 'import x from "y";\nexport function main() {\n  // TODO: wire up\n}\n');
  await put('src/util.js', 'export const TODO = 1;\nconst todo = 2;\n');
  await put('src/deep/nested/mod.ts', 'export function helper() {}\n');
  await put('README.md', '# Title\nSee TODO list.\n');
  await put('.github/workflow.yml', 'name: TODO ci\n');
  await put('node_modules/pkg/index.js', 'TODO in a dependency\n');
  await put('.git/config', 'TODO in git\n');
  await put('logo.png', Buffer.from([0x89, 0x50, 0x00, 0x54, 0x4f, 0x44, 0x4f]));
  await put('many.txt', Array.from({ length: 50 }, (_, i) => `hit ${i + 1}`).join('\n'));
  await put('min.js', `${'a'.repeat(5000)}NEEDLE${'b'.repeat(5000)}`);
});
afterAll(() => tmp.remove());

describe('search_files', () => {
  it('returns path:line:text hits, skipping node_modules, .git and binary files', async () => {
    const out = await search({ pattern: 'TODO' }, ctx);
    const hits = out.split('\n\n')[0].split('\n');
    expect(hits).toEqual([
      '.github/workflow.yml:1:name: TODO ci',
      'README.md:2:See TODO list.',
      'src/app.ts:3:  // TODO: wire up',
      'src/util.js:1:export const TODO = 1;',
    ]);
    expect(out).toContain('[4 match(es) in 4 file(s)');
    expect(out).toContain('Skipped 1 binary file(s).');
  });

  it('searches with a regular expression, case-insensitively when asked', async () => {
    expect(await search({ pattern: '^export function \\w+', glob: '*.ts' }, ctx)).toMatch(
      /^src\/app\.ts:2:export function main\(\) \{\nsrc\/deep\/nested\/mod\.ts:1:export function helper\(\) \{\}\n/,
    );
    const out = await search({ pattern: 'todo', ignore_case: true, path: 'src' }, ctx);
    expect(out).toContain('src/util.js:2:const todo = 2;');
    expect(out).toContain('src/util.js:1:export const TODO = 1;');
  });

  it('searches literal text when regex is false', async () => {
    await put('re.txt', 'a.b\naxb\n(x)\n');
    expect(await search({ pattern: 'a.b', regex: false, glob: 're.txt' }, ctx)).toMatch(/^re\.txt:1:a\.b\n\n/);
    expect(await search({ pattern: '(x)', regex: false, glob: 're.txt' }, ctx)).toMatch(/^re\.txt:3:\(x\)\n\n/);
  });

  it('limits hits and says more exist', async () => {
    const out = await search({ pattern: '^hit', path: 'many.txt', limit: 10 }, ctx);
    const hits = out.split('\n').filter((l) => l.startsWith('many.txt:'));
    expect(hits).toHaveLength(10);
    expect(hits[9]).toBe('many.txt:10:hit 10');
    expect(out).toContain('Showing the first 10 matches; there are more.');
    expect(out).toContain('raise limit (up to 1000)');
  });

  it('clips very long lines around the match', async () => {
    const out = await search({ pattern: 'NEEDLE', glob: 'min.js' }, ctx);
    const hit = out.split('\n')[0];
    expect(hit).toContain('NEEDLE');
    expect(hit.length).toBeLessThan(320);
  });

  it('lists files by glob when no pattern is given', async () => {
    expect(await search({ glob: '*.ts' }, ctx)).toBe('src/app.ts\nsrc/deep/nested/mod.ts\n\n[2 file(s).]');
    expect(await search({ glob: 'src/*.ts' }, ctx)).toBe('src/app.ts\n\n[1 file(s).]');
    expect(await search({ glob: '*.{js,md}', path: 'src' }, ctx)).toBe('src/util.js\n\n[1 file(s).]');
    const limited = await search({ limit: 2 }, ctx);
    expect(limited).toMatch(/^\.github\/workflow\.yml\nREADME\.md\n\n\[Showing 2 of \d+ files\./);
    expect(limited).not.toContain('node_modules');
  });

  it('searches inside node_modules when the path points there', async () => {
    expect(await search({ pattern: 'dependency', path: 'node_modules/pkg' }, ctx)).toMatch(
      /^node_modules\/pkg\/index\.js:1:TODO in a dependency/,
    );
  });

  it('reports no matches and no files plainly', async () => {
    expect(await search({ pattern: 'zzz-not-here' }, ctx)).toMatch(
      /^\[No matches for \/zzz-not-here\/ in \d+ file\(s\) under \./,
    );
    expect(await search({ glob: '*.rs' }, ctx)).toBe('[No files under . (glob *.rs).]');
  });

  it('skips files over the size cap and says so', async () => {
    const big = path.join(tmp.dir, 'big', 'dump.txt');
    await put('big/dump.txt', 'TODO at the start\n');
    await truncate(big, MAX_SEARCH_BYTES + 1);
    expect(await search({ pattern: 'TODO', path: 'big' }, ctx)).toMatch(/No matches.*Skipped 1 file\(s\) over 5 MB/);
  });

  it('rejects an invalid regular expression with a way out', async () => {
    await expect(search({ pattern: 'foo(' }, ctx)).rejects.toThrow(
      /Invalid regular expression "foo\(".*set regex to false/,
    );
  });

  it('rejects a missing path', async () => {
    await expect(search({ pattern: 'x', path: 'srcc' }, ctx)).rejects.toThrow('Did you mean: src?');
  });

  it('treats a glob without a slash as any depth', () => {
    expect([normalizeGlob('*.ts'), normalizeGlob('./*.ts'), normalizeGlob('src/*.ts'), normalizeGlob('**/*')]).toEqual([
      '**/*.ts',
      '**/*.ts',
      'src/*.ts',
      '**/*',
    ]);
  });
});
