import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIOME = path.join(ROOT, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

/** `biome ci` as `npm run lint` runs it: formatting and lint, a warning fails like an error. */
function biomeCi(cwd: string, ...flags: string[]): { status: number | null; output: string } {
  const run = spawnSync(
    process.execPath,
    [BIOME, 'ci', '--colors=off', '--error-on-warnings', '--max-diagnostics=none', ...flags, '.'],
    { cwd, encoding: 'utf8' },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/**
 * Each error or warning as `file[:line:col] category` (`biome ci`'s full report runs to thousands of lines).
 * Infos (Biome's hints, such as useTemplate) are left out: they do not fail `biome ci`.
 */
function findings(output: string): string[] {
  return [...output.matchAll(/^(\S+) (format|lint\/\S+)\b.*━\n\n {2}([×!]) /gm)].map(
    ([, where, category]) => `${where} ${category}`,
  );
}

describe('lint and format (biome.jsonc)', () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'toolshed-lint-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('find nothing in the repository', () => {
    const { status, output } = biomeCi(ROOT);
    expect(output).toMatch(/Checked \d{3,} files/);
    expect(findings(output)).toEqual([]);
    expect(status, output).toBe(0);
  });

  it('fail on a file the formatter would change, on a lint finding, and on a test importing source, under the same configuration', () => {
    copyFileSync(path.join(ROOT, 'biome.jsonc'), path.join(scratch, 'biome.jsonc'));
    mkdirSync(path.join(scratch, 'core'));
    const clean = "export const quoted = 'single';\n\nexport function twice(n: number): number {\n  return n * 2;\n}\n";
    writeFileSync(path.join(scratch, 'core', 'clean.ts'), clean);
    expect(biomeCi(scratch, '--vcs-enabled=false').status).toBe(0);

    // One run over the three faults, each in a file of its own: each is a finding of its own file
    // (an error or a warning, either of which fails `biome ci` here), and the clean file has none.
    writeFileSync(path.join(scratch, 'core', 'double-quoted.ts'), 'export const quoted = "double"\n');
    writeFileSync(path.join(scratch, 'core', 'debugger.ts'), 'export function stop(): void {\n  debugger;\n}\n');
    mkdirSync(path.join(scratch, 'test', 'area'), { recursive: true });
    writeFileSync(
      path.join(scratch, 'test', 'area', 'source.test.ts'),
      "import { quoted } from '../../core/clean.js';\n\nexport const again = quoted;\n",
    );
    const faults = biomeCi(scratch, '--vcs-enabled=false');
    expect(faults.status).not.toBe(0);
    expect(findings(faults.output).sort(), faults.output).toEqual([
      'core/debugger.ts:2:3 lint/suspicious/noDebugger',
      'core/double-quoted.ts format',
      'test/area/source.test.ts:1:24 lint/style/noRestrictedImports',
    ]);
  });
});
