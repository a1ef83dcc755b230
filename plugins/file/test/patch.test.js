import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeCtx, tempDir, tool } from './helpers.js';

const patch = tool('patch').handler;
let tmp;
let ctx;
let file;

const source = ['function a() {', '  return 1;', '}', '', 'function b() {', '  return 1;', '}', ''].join('\n');

beforeEach(async () => {
  tmp = await tempDir();
  ctx = makeCtx(tmp.dir);
  file = path.join(tmp.dir, 'src.js');
  await writeFile(file, source);
});
afterEach(() => tmp.remove());

describe('patch', () => {
  it('replaces one unique string and shows the changed lines', async () => {
    const result = await patch(
      { path: 'src.js', old_string: 'function b() {\n  return 1;', new_string: 'function b() {\n  return 2;' },
      ctx,
    );
    expect(await readFile(file, 'utf8')).toBe(
      source.replace('function b() {\n  return 1;', 'function b() {\n  return 2;'),
    );
    expect(result.path).toBe('src.js');
    expect(result.replacements).toBe(1);
    expect(result.line).toBe(5);
    expect(result.snippet).toContain('     5|function b() {\n     6|  return 2;');
  });

  it('shows context lines around the change but no phantom line after the final newline', async () => {
    const result = await patch(
      {
        path: 'src.js',
        old_string: 'function b() {\n  return 1;\n}\n',
        new_string: 'function b() {\n  return 2;\n}\n',
      },
      ctx,
    );
    expect(result.line).toBe(5);
    expect(result.snippet).toBe(
      ['  return 1;', '}', '', 'function b() {', '  return 2;', '}']
        .map((l, i) => `${String(i + 2).padStart(6)}|${l}`)
        .join('\n'),
    );
  });

  it('fails on several matches, saying how many and at which lines', async () => {
    await expect(patch({ path: 'src.js', old_string: 'return 1;', new_string: 'return 3;' }, ctx)).rejects.toThrow(
      'old_string occurs 2 times in src.js (at lines 2, 6). Include more surrounding lines',
    );
    expect(await readFile(file, 'utf8')).toBe(source);
  });

  it('replaces every occurrence with replace_all', async () => {
    const result = await patch(
      { path: 'src.js', old_string: 'return 1;', new_string: 'return 0;', replace_all: true },
      ctx,
    );
    expect(result.replacements).toBe(2);
    expect(await readFile(file, 'utf8')).not.toContain('return 1;');
  });

  it('fails when nothing matches and leaves the file alone', async () => {
    await expect(patch({ path: 'src.js', old_string: 'return 42;', new_string: 'x' }, ctx)).rejects.toThrow(
      /old_string was not found in src\.js\. Re-read the file/,
    );
    expect(await readFile(file, 'utf8')).toBe(source);
  });

  it('points at a near match that differs only in indentation', async () => {
    await expect(
      patch({ path: 'src.js', old_string: 'function b() {\n    return 1;', new_string: 'x' }, ctx),
    ).rejects.toThrow(/matches at line 5 when indentation and trailing whitespace are ignored/);
  });

  it('spots read_file line-number prefixes pasted into old_string', async () => {
    await expect(patch({ path: 'src.js', old_string: '     2|  return 1;', new_string: 'x' }, ctx)).rejects.toThrow(
      /line-number prefixes/,
    );
  });

  it('keeps dollar signs in new_string literal', async () => {
    await patch(
      { path: 'src.js', old_string: 'function a() {', new_string: "function a() { const s = '$&$1$$';" },
      ctx,
    );
    expect(await readFile(file, 'utf8')).toContain("function a() { const s = '$&$1$$';");
  });

  it('matches LF text against a CRLF file and keeps CRLF endings', async () => {
    await writeFile(file, 'one\r\ntwo\r\nthree\r\n');
    await patch({ path: 'src.js', old_string: 'one\ntwo', new_string: 'uno\ndos' }, ctx);
    expect(await readFile(file, 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('keeps the file mode', async () => {
    await chmod(file, 0o750);
    await patch({ path: 'src.js', old_string: 'function a', new_string: 'function z' }, ctx);
    expect((await stat(file)).mode & 0o777).toBe(0o750);
  });

  it('refuses identical strings, missing files and binary files', async () => {
    await expect(patch({ path: 'src.js', old_string: 'a', new_string: 'a' }, ctx)).rejects.toThrow(/identical/);
    await expect(patch({ path: 'scr.js', old_string: 'a', new_string: 'b' }, ctx)).rejects.toThrow(
      'Did you mean: src.js?',
    );
    await writeFile(path.join(tmp.dir, 'blob'), Buffer.from('ab\0cd'));
    await expect(patch({ path: 'blob', old_string: 'ab', new_string: 'x' }, ctx)).rejects.toThrow(/binary file/);
  });
});
