import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ByBlocks from './test/support/sequencer.js';

// The user's state and cache folders (trust records, the manifest cache) are the suite's own:
// a test never reads or changes what the person running it has trusted or cached. Set here,
// before any test worker starts, so every worker and every child a test spawns inherits them;
// test/global-setup.ts removes the folder when the run ends.
if (!process.env.TOOLSHED_TEST_HOME) {
  process.env.TOOLSHED_TEST_HOME = mkdtempSync(path.join(os.tmpdir(), 'toolshed-test-home-'));
  process.env.XDG_STATE_HOME = path.join(process.env.TOOLSHED_TEST_HOME, 'state');
  process.env.XDG_CACHE_HOME = path.join(process.env.TOOLSHED_TEST_HOME, 'cache');
}

/** Every test file. */
const ALL = ['test/**/*.test.ts', 'plugins/*/test/**/*.test.{js,ts}', 'examples/*/test/**/*.test.{js,ts}'];
/** The e2e project: what needs the packed package, an agent client, a browser or the fleet's servers. */
const E2E = [
  'test/package/tarball.test.ts',
  'test/clients/**/*.test.ts',
  'test/console/browser-*.test.ts',
  'test/fleet/**/*.test.ts',
];
/**
 * Integration files that need a fresh module graph (their own project, isolated): they swap a
 * module with vi.mock for one major of a framework, or check that a module is not loaded yet.
 */
const FRESH = [
  'test/adapters/ai-sdk.test.ts',
  'test/adapters/ai-sdk-v7.test.ts',
  'test/adapters/openai-agents.test.ts',
  'test/adapters/openai-agents-v19.test.ts',
  'test/tracing/sdk-registered-later.test.ts',
];
/** The unit project: pure stages, each file listed (a new file is integration until it is moved here). */
const UNIT = [
  'test/unit/**/*.test.ts',
  'test/auth/delegation-config.test.ts',
  'test/code-runtime/declarations.test.ts',
  'test/code-runtime/escapes.test.ts',
  'test/code-runtime/exports.test.ts',
  'test/code-runtime/output.test.ts',
  'test/config/code-limits.test.ts',
  'test/config/documented-defaults.test.ts',
  'test/config/schema-types.test.ts',
  'test/console/api-changes.test.ts',
  'test/console/page-model.test.ts',
  'test/definitions/description-tokens.test.ts',
  'test/definitions/descriptions.test.ts',
  'test/definitions/pipeline-generation.test.ts',
  'test/dispatch/argument-validators.test.ts',
  'test/dispatch/result-text.test.ts',
  'test/architecture/line-width.test.ts',
  'test/docs/architecture.test.ts',
  'test/docs/contributing.test.ts',
  'test/docs/errors-table.test.ts',
  'test/docs/paths.test.ts',
  'test/fleet/plugin-state-rpc.test.ts',
  'test/mcp-servers/code-callable.test.ts',
  'test/package/bundled-plugins.test.ts',
  'test/package/api-reports.test.ts',
  'test/package/public-types.test.ts',
  'test/plugin-author/misspelled-package.test.ts',
  'test/plugin-author/test-context-levels.test.ts',
  'test/plugins/first-party-contract.test.ts',
  'test/providers/anthropic.test.ts',
  'test/providers/gemini.test.ts',
  'test/providers/openai-strict.test.ts',
  'test/schemas/validator-cache.test.ts',
  'test/security/private-dir.test.ts',
  'test/selection/select-tools.test.ts',
  'test/standard-schema/conversion.test.ts',
  'test/standard-schema/docs-example.test.ts',
  'test/thread-tier/pack-scope.test.ts',
  'test/tool-search/plan-deferral.test.ts',
  'test/tool-search/ranking.test.ts',
  'test/types/plugin-api.test.ts',
  'test/types/standard-schema.test.ts',
  'test/types/test-context.test.ts',
  'test/types/tool-metadata.test.ts',
  'plugins/default/test/default.test.js',
  'plugins/file/test/manifest.test.js',
  'plugins/file/test/opened.test.js',
  'plugins/file/test/patch.test.js',
  'plugins/file/test/protect.test.js',
  'plugins/file/test/read-file.test.js',
  'plugins/file/test/search-files.test.js',
  'plugins/file/test/write-file.test.js',
  'plugins/todo/test/todo.test.js',
];

// Tests run against the compiled build (npm test builds first): Piscina
// workers load dist/sandbox/worker.js, so the host under test must be the
// same build, reached through the package's public entry points.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^toolshed$/, replacement: fileURLToPath(new URL('./dist/core/index.js', import.meta.url)) },
      { find: /^toolshed\/plugin$/, replacement: fileURLToPath(new URL('./dist/boundary/plugin.js', import.meta.url)) },
      {
        find: /^toolshed\/toolkit$/,
        replacement: fileURLToPath(new URL('./dist/sandbox/toolkit.js', import.meta.url)),
      },
      {
        find: /^toolshed\/(ai-sdk|openai-agents|langchain)$/,
        replacement: fileURLToPath(new URL('./dist/core/adapters/$1.js', import.meta.url)),
      },
      // Internals a test reaches past the public API, always in the same build: `#internal/core/expose/toolsets.js`.
      { find: /^#internal\/(.*)$/, replacement: fileURLToPath(new URL('./dist/$1', import.meta.url)) },
    ],
  },
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Each file its own state folder (trust records): see the file. Every project adds its own after it.
    setupFiles: ['test/file-state.ts'],
    exclude: ['**/node_modules/**', 'test/fixtures/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Three test files at once on two cores: the files wait on children, servers and browsers
    // for about a quarter of their time, which a third file fills (2 workers: 311 s, 3: 266 s,
    // 4: 307 s, as module graphs and contention grow; docs/contributing.md).
    maxWorkers: 3,
    // The tarball tests first, then project by project, longest first: see the file.
    sequence: { sequencer: ByBlocks },
    teardownTimeout: 10_000,
    // expect.poll waits for something that does happen (a message relayed, a counter updated);
    // its 1 s default is short for a 2-core machine running two test files and their workers.
    expect: { poll: { timeout: 10_000 } },
    // The pyramid (docs/contributing.md). `npm test` runs all three; `--project unit` one;
    // `--project 'integration*'` both parts of the integration layer.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // No worker, no child process, no socket (the guard fails a test that starts one),
          // no real clock (a stage takes a Clock; tests advance test/helpers.ts's ManualClock).
          include: UNIT,
          setupFiles: ['test/support/unit-guard.ts'],
          testTimeout: 10_000,
          // One module graph per vitest worker, as for integration: 6 s for the project, not 27.
          isolate: false,
        },
      },
      {
        extends: true,
        // Real Piscina workers, child processes, MCP servers on loopback. The files share one
        // module graph per vitest worker (isolate: false): loading the host build again for each
        // of ~200 files cost a third of the suite's time. So a helper module's top-level hooks
        // would run for the first file only (hooks go in the test file), and a file that sets an
        // environment variable restores it.
        test: {
          name: 'integration',
          include: ALL,
          exclude: ['**/node_modules/**', 'test/fixtures/**', ...UNIT, ...E2E, ...FRESH],
          isolate: false,
        },
      },
      {
        extends: true,
        // The integration files that need a module graph of their own: see FRESH.
        test: { name: 'integration-fresh', include: FRESH },
      },
      {
        extends: true,
        // The packed tarball in fresh apps (packed once per run: test/package/pack-setup.ts),
        // real agent clients, Chromium, the fleet behind haproxy and nginx with redis-server.
        // One module graph per vitest worker, as for integration (playwright-core, the SDKs and the
        // host build loaded once, not per file): the same rules hold, hooks in the test file (the
        // fleet's files call killLeftoversAfterAll()) and an environment variable set is restored.
        test: {
          name: 'e2e',
          include: E2E,
          exclude: ['**/node_modules/**', 'test/fixtures/**', ...UNIT],
          globalSetup: ['test/global-setup.ts', 'test/package/pack-setup.ts'],
          isolate: false,
        },
      },
    ],
  },
});
