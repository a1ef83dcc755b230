/**
 * Each test file gets a state folder of its own (trust records, the manifest cache's key) below
 * the suite's (vitest.config.ts): config trust remembers every workspace and writable root a start
 * had, and a config inside one is not trusted on first use, so one file's starts in a fixture
 * folder must not decide whether another file's first use of a folder below it is trusted.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';

const home = process.env.TOOLSHED_TEST_HOME;
if (home) {
  mkdirSync(path.join(home, 'files'), { recursive: true, mode: 0o700 });
  process.env.XDG_STATE_HOME = mkdtempSync(path.join(home, 'files', 'state-'));
}
