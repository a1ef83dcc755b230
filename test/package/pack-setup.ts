/**
 * The e2e project's global setup: packs the repository and installs the two apps of
 * app.ts once per run, in the background, so the tests that need them wait only for what
 * is left when they start and every other test runs meanwhile. `ready.json` (the paths) or
 * `failed.txt` (what npm said) in the folder tells the tests when it is done. The folder
 * and both apps go when the run ends.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { packApps } from './app.js';

export default function setup(project: TestProject): () => Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolshed-tarball-'));
  project.provide('packedAppsDir', dir);
  const done = packApps(dir).then(
    (apps) => writeFileSync(path.join(dir, 'ready.json'), JSON.stringify(apps)),
    (error: Error & { stderr?: string }) =>
      writeFileSync(path.join(dir, 'failed.txt'), `${error.message}\n${error.stderr ?? ''}`),
  );
  return async () => {
    await done;
    rmSync(dir, { recursive: true, force: true });
  };
}
