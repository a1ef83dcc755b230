/**
 * The public API is a reviewed artifact: for every entry point of package.json "exports", the API
 * Extractor report of the built declarations equals the one committed in api/ (scripts/api-reports.mjs).
 * A change to the public surface is then a diff of api/*.api.md in review, never a surprise. Runs against
 * the build (npm test builds first); API Extractor reads dist/ in this process.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module script, without declarations
import * as script from '../../scripts/api-reports.mjs';

type Entry = { subpath: string; name: string; types: string };
type Report = Entry & { report: string; changed: boolean; messages: string[] };
const { apiReports, entryPoints, UPDATE_COMMAND } = script as {
  apiReports(): Report[];
  entryPoints(): Entry[];
  UPDATE_COMMAND: string;
};

describe('the public API reports', () => {
  it('cover every entry point with types', () => {
    expect(entryPoints().map((entry) => entry.subpath)).toEqual(
      expect.arrayContaining(['.', './plugin', './toolkit', './mcp', './ai-sdk', './openai-agents', './langchain']),
    );
  });

  it('match the built declarations', () => {
    const reports = apiReports();
    expect(reports.flatMap((report) => report.messages)).toEqual([]);
    const differ = reports.filter((report) => report.changed).map((report) => path.basename(report.report));
    expect(
      differ,
      `the public API differs from api/${differ.join(', api/')}: run \`${UPDATE_COMMAND}\` and review the diff`,
    ).toEqual([]);
  }, 120_000);
});
