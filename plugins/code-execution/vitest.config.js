import { defineConfig } from 'vitest/config';

/** Lets `npm test` run this package on its own; without it vitest would pick up the repo root's config. */
export default defineConfig({ test: { include: ['test/**/*.test.js'] } });
