import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The user's state and cache folders (trust records, the manifest cache) are the suite's own:
// a test never reads or changes what the person running it has trusted or cached. Set here,
// before any test worker starts, so every worker and every child a test spawns inherits them;
// test/global-setup.ts removes the folder when the run ends.
if (!process.env.TOOLSHED_TEST_HOME) {
  process.env.TOOLSHED_TEST_HOME = mkdtempSync(path.join(os.tmpdir(), 'toolshed-test-home-'));
  process.env.XDG_STATE_HOME = path.join(process.env.TOOLSHED_TEST_HOME, 'state');
  process.env.XDG_CACHE_HOME = path.join(process.env.TOOLSHED_TEST_HOME, 'cache');
}

// Tests run against the compiled build (npm test builds first): Piscina
// workers load dist/sandbox/worker.js, so the host under test must be the
// same build, reached through the package's public entry points.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^toolshed$/, replacement: fileURLToPath(new URL('./dist/core/index.js', import.meta.url)) },
      { find: /^toolshed\/plugin$/, replacement: fileURLToPath(new URL('./dist/boundary/plugin.js', import.meta.url)) },
      { find: /^toolshed\/toolkit$/, replacement: fileURLToPath(new URL('./dist/sandbox/toolkit.js', import.meta.url)) },
      { find: /^toolshed\/(ai-sdk|openai-agents|langchain)$/, replacement: fileURLToPath(new URL('./dist/core/adapters/$1.js', import.meta.url)) },
      // Internals a test reaches past the public API, always in the same build: `#internal/core/expose/toolsets.js`.
      { find: /^#internal\/(.*)$/, replacement: fileURLToPath(new URL('./dist/$1', import.meta.url)) },
    ],
  },
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts', 'plugins/*/test/**/*.test.{js,ts}', 'examples/*/test/**/*.test.{js,ts}'],
    exclude: ['**/node_modules/**', 'test/fixtures/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    teardownTimeout: 10_000,
    // expect.poll waits for something that does happen (a message relayed, a counter updated);
    // its 1 s default is short for a 2-core machine running two test files and their workers.
    expect: { poll: { timeout: 10_000 } },
  },
});
