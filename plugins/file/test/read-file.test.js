import { writeFile, mkdir, truncate } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_LINE_CHARS, MAX_UNPAGED_BYTES } from '../lib/read-file.js';
import { makeCtx, tempDir, tool } from './helpers.js';

const read = tool('read_file').handler;
let tmp;
let ctx;

beforeEach(async () => {
  tmp = await tempDir();
  ctx = makeCtx(tmp.dir);
});
afterEach(() => tmp.remove());

const lines = (n) => `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n')}\n`;

describe('read_file', () => {
  it('returns numbered lines with no footer when the whole file fits', async () => {
    await writeFile(path.join(tmp.dir, 'a.txt'), 'first\nsecond\n');
    expect(await read({ path: 'a.txt' }, ctx)).toBe('     1|first\n     2|second');
  });

  it('keeps a last line without a newline and strips CRLF endings', async () => {
    await writeFile(path.join(tmp.dir, 'crlf.txt'), 'a\r\nb\r\nc');
    expect(await read({ path: 'crlf.txt' }, ctx)).toBe('     1|a\n     2|b\n     3|c');
  });

  it('reads absolute paths', async () => {
    await writeFile(path.join(tmp.dir, 'abs.txt'), 'x\n');
    expect(await read({ path: path.join(tmp.dir, 'abs.txt') }, ctx)).toBe('     1|x');
  });

  it('pages with offset and limit and says how to get the next page', async () => {
    await writeFile(path.join(tmp.dir, 'big.txt'), lines(1200));
    const first = await read({ path: 'big.txt' }, ctx);
    expect(first.split('\n').filter((l) => /^\s+\d+\|/.test(l))).toHaveLength(500);
    expect(first).toContain('   500|line 500');
    expect(first).not.toContain('line 501');
    expect(first).toContain('Showing lines 1-500 of 1200. To read more, call read_file with offset=501.');

    const page = await read({ path: 'big.txt', offset: 1190, limit: 5 }, ctx);
    expect(page.startsWith('  1190|line 1190\n')).toBe(true);
    expect(page).toContain('  1194|line 1194');
    expect(page).toContain('offset=1195');

    const tail = await read({ path: 'big.txt', offset: 1195 }, ctx);
    expect(tail).toBe([1195, 1196, 1197, 1198, 1199, 1200].map((n) => `${String(n).padStart(6)}|line ${n}`).join('\n'));
  });

  it('refuses an offset past the end, naming the line count', async () => {
    await writeFile(path.join(tmp.dir, 'short.txt'), lines(3));
    await expect(read({ path: 'short.txt', offset: 10 }, ctx)).rejects.toThrow(/past the end.*3 lines/);
  });

  it('reports an empty file', async () => {
    await writeFile(path.join(tmp.dir, 'empty.txt'), '');
    expect(await read({ path: 'empty.txt' }, ctx)).toBe('[empty.txt is empty]');
  });

  it('cuts very long lines and says so', async () => {
    await writeFile(path.join(tmp.dir, 'long.txt'), `${'x'.repeat(MAX_LINE_CHARS + 500)}\nshort\n`);
    const out = await read({ path: 'long.txt' }, ctx);
    const [first, second] = out.split('\n');
    expect(first).toBe(`     1|${'x'.repeat(MAX_LINE_CHARS)}… [line cut: 500 more characters]`);
    expect(second).toBe('     2|short');
    expect(out).toContain('1 line(s) longer than');
  });

  it('suggests similar names for a missing file', async () => {
    await writeFile(path.join(tmp.dir, 'config.json'), '{}');
    await writeFile(path.join(tmp.dir, 'unrelated.md'), '');
    await expect(read({ path: 'confg.json' }, ctx)).rejects.toThrow(
      'File not found: confg.json. Did you mean: config.json?',
    );
  });

  it('suggests names inside a subdirectory with their path', async () => {
    await mkdir(path.join(tmp.dir, 'src'));
    await writeFile(path.join(tmp.dir, 'src', 'index.ts'), '');
    await expect(read({ path: 'src/index.js' }, ctx)).rejects.toThrow('Did you mean: src/index.ts?');
  });

  it('says when nothing similar exists or the directory is missing', async () => {
    await writeFile(path.join(tmp.dir, 'zzzzzzzz.txt'), '');
    await expect(read({ path: 'a.md' }, ctx)).rejects.toThrow(/File not found: a\.md\. Nothing similar/);
    await expect(read({ path: 'nope/a.md' }, ctx)).rejects.toThrow(/directory nope does not exist/);
  });

  it('refuses binary files', async () => {
    await writeFile(path.join(tmp.dir, 'img.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    await expect(read({ path: 'img.bin' }, ctx)).rejects.toThrow(/binary file/);
  });

  it('refuses a directory and points to listing it', async () => {
    await mkdir(path.join(tmp.dir, 'dir'));
    await expect(read({ path: 'dir' }, ctx)).rejects.toThrow(/dir is a directory/);
  });

  it('refuses a huge file unless paged, and pages it without a total', async () => {
    const file = path.join(tmp.dir, 'huge.log');
    await writeFile(file, lines(2000));
    // Extending the file sparsely makes it huge without writing 10 MB; its NUL tail lies past the
    // first 8 KB, the only part the binary check reads, and past the lines being paged.
    await truncate(file, MAX_UNPAGED_BYTES + 1);
    await expect(read({ path: 'huge.log' }, ctx)).rejects.toThrow(/over the 10\.0 MB limit.*offset and limit/);
    const page = await read({ path: 'huge.log', offset: 2, limit: 3 }, ctx);
    expect(page).toContain('     2|line 2\n     3|line 3\n     4|line 4');
    expect(page).toContain('Showing lines 2-4. To read more, call read_file with offset=5.');
  });

  it('maps permission errors to a clear message', async () => {
    // Tests run as root in CI, where chmod 000 does not stop a read, so the mapping is checked directly.
    const { fsError } = await import('../lib/errors.js');
    const err = await fsError(ctx, path.join(tmp.dir, 'secret.txt'), { code: 'EACCES' });
    expect(err.message).toBe('Permission denied: secret.txt.');
  });
});
