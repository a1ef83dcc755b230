import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

// Tests run against the compiled build (npm test builds first): Piscina
// workers load dist/sandbox/worker.js, so the host under test must be the
// same build, reached through the package's public entry points.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^toolshed$/, replacement: fileURLToPath(new URL('./dist/core/index.js', import.meta.url)) },
      { find: /^toolshed\/plugin$/, replacement: fileURLToPath(new URL('./dist/core/plugin.js', import.meta.url)) },
      { find: /^toolshed\/(ai-sdk|openai-agents|langchain)$/, replacement: fileURLToPath(new URL('./dist/core/adapters/$1.js', import.meta.url)) },
    ],
  },
  test: {
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
