/**
 * `npm test` on a machine that lacks the suite's system programs and cannot install them
 * stops before any test with one message (scripts/test-prerequisites.mjs, run as npm test
 * runs it). TOOLSHED_PREREQUISITES_PATH points the search at an empty folder: nothing is
 * found, and no apt-get either, so even root is told what to install instead of installing.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/test-prerequisites.mjs', import.meta.url));

describe('npm test on a machine without the system programs', () => {
  it('stops with exit 1 and one message naming every missing program and how to install them', () => {
    const empty = tempDir('toolshed-no-programs-');
    try {
      for (const args of [[], ['--check']]) {
        const result = spawnSync(process.execPath, [SCRIPT, ...args], {
          encoding: 'utf8',
          env: { PATH: process.env.PATH ?? '', TOOLSHED_PREREQUISITES_PATH: empty.dir },
        });
        expect(result.status).toBe(1);
        expect(result.stdout).toBe('');
        for (const program of ['bwrap', 'redis-server', 'haproxy', 'nginx', 'chromium', 'prlimit'])
          expect(result.stderr).toContain(`  - ${program}, from the package `);
        expect(result.stderr).toMatch(/bubblewrap redis-server haproxy nginx chromium util-linux/);
      }
    } finally {
      empty.cleanup();
    }
  });

  it('does nothing where everything is installed (this machine: npm test provisioned it)', () => {
    const result = spawnSync(process.execPath, [SCRIPT, '--check'], { encoding: 'utf8' });
    expect(result).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });
});
