#!/usr/bin/env node
/**
 * The public API as reviewed text: one API Extractor report per entry point of package.json "exports"
 * (`api/toolshed.api.md`, `api/toolshed-plugin.api.md`, …), read from the built declarations in dist/.
 * A change to the public surface is then a diff in review (docs/architecture.md, "The public surface").
 *
 * Usage, after `npm run build`: `npm run api` (or `node scripts/api-reports.mjs`) rewrites the reports;
 * `--check` only compares and exits 1 when one differs. test/package/api-reports.test.ts runs the check.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const REPO = fileURLToPath(new URL('..', import.meta.url));
/** Where the committed reports live. */
export const REPORT_FOLDER = path.join(REPO, 'api');
/** The command that rewrites them. */
export const UPDATE_COMMAND = 'npm run build && npm run api';

/** The entry points with types: `{ subpath, name, types }`, `name` being the report's file name without `.api.md`. */
export function entryPoints() {
  const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  return Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === 'object' && typeof target.types === 'string')
    .map(([subpath, target]) => ({
      subpath,
      name: subpath === '.' ? pkg.name : `${pkg.name}-${subpath.slice(2).replaceAll('/', '-')}`,
      types: path.join(REPO, target.types),
    }));
}

/**
 * The compiler settings the declarations are read with: tsconfig.json's, over the one entry file
 * (the program follows its imports) rather than the whole source tree.
 */
const tsconfig = (file) => ({
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    types: ['node'],
    strict: true,
    skipLibCheck: true,
  },
  files: [file],
});

/** Messages that say nothing about the surface: release tags (toolshed has none), doc comments and TSDoc's syntax. */
const QUIET = {
  compilerMessageReporting: { default: { logLevel: 'warning' } },
  extractorMessageReporting: {
    // Never into the report: a message there names lines of dist/, which move with any edit.
    default: { logLevel: 'warning', addToApiReportFile: false },
    'ae-missing-release-tag': { logLevel: 'none' },
    // Doc comments are reviewed with the code: a member without one, or a {@link} to an internal name, is not a change.
    'ae-undocumented': { logLevel: 'none' },
    'ae-unresolved-link': { logLevel: 'none' },
    // A dependency that ships its TypeScript source beside its declarations (@langchain/protocol).
    'ae-wrong-input-file-type': { logLevel: 'none' },
    // A type the entry's declarations use without exporting its name: the report declares it all the same
    // (includeForgottenExports), so a change to its shape is a diff too.
    'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: false },
  },
  tsdocMessageReporting: { default: { logLevel: 'none' } },
};

/**
 * Builds each entry point's report. With `write`, the committed report is replaced when it differs;
 * without, it is left as it is. Returns, per entry, whether the built declarations differ from it
 * and the messages API Extractor gave (errors and warnings).
 */
export function apiReports({ write = false } = {}) {
  const temp = mkdtempSync(path.join(os.tmpdir(), 'toolshed-api-'));
  try {
    const entries = entryPoints().map((entry) => ({ ...entry, config: extractorConfig(entry, temp) }));
    // One program over every entry's declarations: they share most of dist/ and the dependencies' types.
    const compilerState = CompilerState.create(entries[0].config, {
      additionalEntryPoints: entries.map((entry) => entry.types),
    });
    return entries.map(({ config, ...entry }) => {
      const messages = [];
      const result = Extractor.invoke(config, {
        localBuild: write,
        compilerState,
        messageCallback(message) {
          // A report that differs is `changed` (console-api-report-*), not a message.
          const problem = message.logLevel === 'error' || message.logLevel === 'warning';
          if (problem && !message.messageId.startsWith('console-api-report')) {
            messages.push(message.formatMessageWithLocation(REPO));
          }
          message.handled = true;
        },
      });
      return {
        ...entry,
        report: path.join(REPORT_FOLDER, `${entry.name}.api.md`),
        changed: result.apiReportChanged,
        messages,
      };
    });
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** API Extractor's settings for one entry point: the report only, written to `temp` first. */
function extractorConfig(entry, temp) {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: REPO,
      mainEntryPointFilePath: entry.types,
      compiler: { overrideTsconfig: tsconfig(entry.types) },
      apiReport: {
        enabled: true,
        reportFileName: entry.name,
        reportFolder: REPORT_FOLDER,
        reportTempFolder: temp,
        includeForgottenExports: true,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: QUIET,
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: path.join(REPO, 'package.json'),
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const check = process.argv.includes('--check');
  const reports = apiReports({ write: !check });
  for (const report of reports) {
    for (const message of report.messages) console.error(message);
    const status = report.changed ? (check ? 'differs' : 'updated') : 'unchanged';
    console.log(`${status.padEnd(9)} ${path.relative(REPO, report.report)}  (${report.subpath})`);
  }
  if (reports.some((report) => report.messages.length > 0)) process.exitCode = 1;
  if (check && reports.some((report) => report.changed)) {
    console.error(`The public API differs from the committed reports: ${UPDATE_COMMAND}, then review the diff.`);
    process.exitCode = 1;
  }
}
