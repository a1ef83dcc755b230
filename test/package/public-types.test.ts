/**
 * The public types are the API and nothing else: the declarations an embedder or a plugin author
 * can reach from the package's entry points (package.json "exports", following relative imports
 * through dist/**\/*.d.ts) declare and name no registry, runner, circuit breaker, search index,
 * worker pool or pipeline internals, and every config type among them is one the main entry
 * exports (so a user can name it). Runs against the build (npm test builds first).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { types?: string }>;
};

/** Internal names no public declaration may declare or mention (and the packages behind them). */
const INTERNAL =
  /\b(Registry|Runner|ThreadRunner|ProcessRunner|McpServerRunner|ManifestExtractor|CircuitBreaker|ToolIndex|MiniSearch|LoadedPlugin|ToolRecord|ThreadPool|Piscina|HookList|SearchState|SessionStore|DefinitionsPipeline|Exposure|CheckCache|HostRpc|WorkerTask)\b|['"](piscina|minisearch)['"]/g;

/** The text of a declaration file without its comments (a doc comment may name what the code does not). */
const code = (file: string) =>
  readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1');

/** Every .d.ts reachable from `entry` through relative imports and re-exports. */
function closure(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of code(file).matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.\.?\/[^'"]+)['"]/g)) {
      const target = path.resolve(path.dirname(file), match[1]!).replace(/\.js$/, '.d.ts');
      expect(existsSync(target), `${path.relative(REPO, file)} imports ${match[1]}`).toBe(true);
      queue.push(target);
    }
  }
  return seen;
}

const typeEntries = Object.entries(pkg.exports)
  .filter(
    (entry): entry is [string, { types: string }] => typeof entry[1] === 'object' && typeof entry[1].types === 'string',
  )
  .map(([subpath, target]) => ({ subpath, file: path.join(REPO, target.types) }));
const files = closure(typeEntries.map((entry) => entry.file));
const relative = (file: string) => path.relative(REPO, file).split(path.sep).join('/');

describe('the public types', () => {
  it('cover every entry point of package.json exports', () => {
    expect(typeEntries.map((entry) => entry.subpath)).toEqual(
      expect.arrayContaining(['.', './plugin', './toolkit', './mcp', './ai-sdk', './openai-agents', './langchain']),
    );
    for (const entry of typeEntries) expect(existsSync(entry.file), entry.subpath).toBe(true);
  });

  it('declare and name no runner, registry, breaker, index, pool or pipeline internals', () => {
    const leaks = [...files].flatMap((file) =>
      [...new Set([...code(file).matchAll(INTERNAL)].map((m) => m[0]))].map((name) => `${relative(file)}: ${name}`),
    );
    // The closure's size, for the record (docs/architecture.md, "The public surface").
    console.info(`public .d.ts closure: ${files.size} files from ${typeEntries.length} entry points`);
    expect(leaks).toEqual([]);
  });

  it('name only config types the main entry exports', () => {
    const main = code(path.join(REPO, 'dist', 'core', 'index.d.ts'));
    const exported = new Set(
      [...main.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
        m[1]!.split(',').map(
          (name) =>
            name
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)
              .pop()!,
        ),
      ),
    );
    const declared = [...files].flatMap((file) =>
      [...code(file).matchAll(/\b(?:interface|type|class)\s+(\w*Config\w*)\b/g)].map((m) => m[1]!),
    );
    expect(declared.length).toBeGreaterThan(0);
    expect([...new Set(declared)].filter((name) => !exported.has(name))).toEqual([]);
  });
});
