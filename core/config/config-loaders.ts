/**
 * JavaScript config loaders that always read the file's current content.
 * cosmiconfig's default `import()` hits Node's module cache, so an edited
 * config would be ignored for the life of the process (live reload, tests
 * that rewrite a config). ESM files are imported with a query that changes
 * with the file's mtime and size; CommonJS files go through import-fresh.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../../boundary/errors.js';
import { syntaxLocation } from './syntax-location.js';

const require = createRequire(import.meta.url);
const importFresh = require('import-fresh') as (id: string) => unknown;

function isEsm(filepath: string): boolean {
  if (filepath.endsWith('.mjs')) return true;
  if (filepath.endsWith('.cjs')) return false;
  let dir = path.dirname(filepath);
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        return (JSON.parse(readFileSync(pkg, 'utf8')) as { type?: string }).type === 'module';
      } catch {
        return false;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}

/** Loads a .js, .mjs or .cjs config, bypassing the module caches. */
export async function loadJsFresh(filepath: string): Promise<unknown> {
  if (!isEsm(filepath)) {
    const mod = importFresh(filepath) as { default?: unknown } | undefined;
    return mod &&
      typeof mod === 'object' &&
      'default' in mod &&
      mod.default !== undefined &&
      Object.keys(mod).length === 1
      ? mod.default
      : mod;
  }
  const st = statSync(filepath);
  const mod = (await import(`${pathToFileURL(filepath).href}?mtime=${st.mtimeMs}&size=${st.size}`)) as {
    default?: unknown;
  };
  return mod.default;
}

/** A loader as cosmiconfig calls it. */
type Loader = (filepath: string, content: string) => unknown;

/**
 * Wraps a loader so that a config that fails to load names itself, and, for a syntax
 * error, the line and column: `CONFIG_INVALID: /app/toolshed.config.mjs:4:1: Unexpected token '}'`.
 */
export function locatingErrors(loader: Loader): Loader {
  return async (filepath, content) => {
    try {
      return await loader(filepath, content);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      // Whatever the error says (Node's import() gives no position; a bundler's loader its own words), ask the parser.
      const where = syntaxLocation(filepath);
      if (where) {
        throw new ConfigError(
          `${filepath}:${where.line}:${where.column}: syntax error: ${where.message}`,
          { file: filepath, line: where.line, column: where.column } as never,
          { cause: error },
        );
      }
      throw new ConfigError(
        `could not load the config ${filepath}: ${(error as Error)?.message ?? String(error)}`,
        { file: filepath },
        { cause: error },
      );
    }
  };
}
