import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise as depcruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const FIXTURE = fileURLToPath(new URL('../fixtures/import-rules/', import.meta.url));
const CONSOLE_FIXTURE = fileURLToPath(new URL('../fixtures/import-rules-console/', import.meta.url));

/** The parts of dependency-cruiser's JSON report this test reads. */
interface CruiseReport {
  summary: {
    totalCruised: number;
    violations: { type: string; from: string; to: string; rule: { name: string }; cycle?: { name: string }[] }[];
  };
}

/** A violation as `rule: from → to`; a cycle as its whole path. */
function violationLine({ rule, from, to, cycle }: CruiseReport['summary']['violations'][number]): string {
  const steps = cycle ? [from, ...cycle.map((step) => step.name)] : [from, to];
  return `${rule.name}: ${steps.join(' → ')}`;
}

/**
 * Cruises what `npm run lint:imports` names (core, sandbox, boundary, and the console page, console/src, by its
 * config and the tsconfig the config names) from `baseDir`, with the cruiser's API in this process, as its CLI
 * does: loading dependency-cruiser and TypeScript once serves every cruise, where a CLI run each loaded them again.
 */
async function cruise(
  baseDir: string,
  folders = ['core', 'sandbox', 'boundary'],
): Promise<{ modules: number; violations: string[] }> {
  const options = await extractDepcruiseOptions(CONFIG);
  const tsConfig = extractTSConfig(options.tsConfig!.fileName!);
  const { output } = await depcruise(folders, { ...options, baseDir }, undefined, { tsConfig });
  const report = output as ICruiseResult & CruiseReport;
  return { modules: report.summary.totalCruised, violations: report.summary.violations.map(violationLine).sort() };
}

describe('import rules (.dependency-cruiser.cjs)', () => {
  it('hold for core/, sandbox/ and boundary/, type imports included', async () => {
    const { modules, violations } = await cruise(ROOT);
    expect(modules).toBeGreaterThan(150);
    expect(violations).toEqual([]);
  });

  it('fail on a tree that breaks each rule once, and allow core/expose → sandbox/code', async () => {
    const { modules, violations } = await cruise(FIXTURE);
    expect(modules).toBe(20);
    expect(violations).toEqual([
      'boundary-imports-only-boundary: boundary/wire.ts → core/text/helper.ts',
      'expose-not-to-call: core/expose/probe.ts → core/call/dispatch.ts',
      'expose-to-sandbox-only-code: core/expose/escape.ts → sandbox/worker/entry.ts',
      'host-folder-has-a-rank: core/extra/loose.ts → core/text/helper.ts',
      'host-not-to-sandbox: core/runners/spawn.ts → sandbox/worker/entry.ts',
      'host-rank-0: boundary/wire.ts → core/text/helper.ts',
      'host-rank-10: core/cli/main.ts → core/index.ts',
      'host-rank-3: core/config/config.ts → core/load/types.ts',
      'host-rank-5: core/expose/probe.ts → core/call/dispatch.ts',
      'no-folder-cycle: core/load → core/mcp-client → core/load',
      'no-folder-cycle: core/mcp-client → core/load → core/mcp-client',
      'no-import-into-subfolder: core/runners/spawn.ts → core/runners/thread/pool.ts',
      'no-module-cycle: core/load/a.ts → core/load/b.ts → core/load/a.ts',
      'no-unresolved: core/text/missing.ts → ./nowhere.js',
      'sandbox-imports-only-sandbox-and-boundary: sandbox/worker/entry.ts → core/load/types.ts',
    ]);
  });

  it('hold for the console page: its own files, its npm packages, and the API types, type-only', async () => {
    const { modules, violations } = await cruise(ROOT, ['console/src']);
    expect(modules).toBeGreaterThan(20);
    expect(violations).toEqual([]);
  });

  it('fail on a page that imports the host, a Node module, or the API types as values', async () => {
    const { modules, violations } = await cruise(CONSOLE_FIXTURE, ['console/src']);
    expect(modules).toBe(8);
    expect(violations).toEqual([
      'console-page-api-types-type-only: console/src/leak.ts → core/console/api-types.ts',
      'console-page-imports-its-own: console/src/node.ts → path',
      'console-page-imports-its-own: console/src/reach.ts → core/host/host.ts',
    ]);
  });
});
