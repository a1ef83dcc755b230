import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolHost } from 'toolshed';
import { tempDir } from '../helpers.js';

let work: { dir: string; cleanup(): void };
beforeEach(() => {
  work = tempDir('toolshed-syntax-');
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"syntax","private":true,"type":"module"}');
});
afterEach(() => work.cleanup());

async function loadError(file: string, source: string) {
  writeFileSync(path.join(work.dir, file), source);
  return createToolHost({ cwd: work.dir, env: {} }).then(
    async (host) => {
      await host.close();
      throw new Error('expected the config to fail');
    },
    (error: unknown) => error as { code: string; message: string; data: Record<string, unknown> },
  );
}

describe('config syntax errors', () => {
  it('a .mjs config: file, line and column', async () => {
    const file = path.join(work.dir, 'toolshed.config.mjs');
    const error = await loadError(
      'toolshed.config.mjs',
      'export default {\n  enable: ["all"],\n  disable: [ "x"\n};\n',
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(`${file}:4:1: syntax error: Unexpected token '}'`);
    expect(error.data).toMatchObject({ file, line: 4, column: 1 });
  });

  it('a .ts config: file, line and column, from TypeScript', async () => {
    const file = path.join(work.dir, 'toolshed.config.ts');
    const error = await loadError(
      'toolshed.config.ts',
      'const enable: string[] = ["all"];\nexport default {\n  enable oops,\n};\n',
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(`${file}:3:10: syntax error: ',' expected.`);
  });

  it('a config that throws names the file and the error', async () => {
    const file = path.join(work.dir, 'toolshed.config.js');
    const error = await loadError('toolshed.config.js', "throw new Error('no config today');\n");
    expect(error.message).toBe(`could not load the config ${file}: no config today`);
  });
});
