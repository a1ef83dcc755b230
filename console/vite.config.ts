/**
 * Builds the web console (console/src) into dist/console, which the package ships and
 * `toolshed ui` / `serve --http --ui` serve. Relative asset URLs (`base: './'`) so the same build
 * works at `/` and at `/ui/`; no inline script or style, so the server's strict CSP holds; no
 * modulepreload polyfill (every supported browser has modulepreload).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
