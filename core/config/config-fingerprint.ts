/**
 * What a config makes run, as fingerprints: the config file's own content, the
 * files it pulls in (cosmiconfig `$import`s, a JS config's relative imports), its
 * hooks modules and its local-path plugins. Config trust (config-trust.ts)
 * compares these with what the operator last accepted.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { insideAny } from './writable-roots.js';
import { isPath } from './config.js';
import { realOrResolved } from '../../boundary/launch/paths.js';
import type { PluginEntry } from './config.js';
import { canonicalJson } from '../text/canonical-json.js';

/** Fingerprint of a file that is named but absent (or unreadable): its appearing is a change too. */
export const MISSING = 'missing';

/** The longest config text a record keeps for `toolshed trust` to diff against. */
export const MAX_TEXT_CHARS = 256 * 1024;

/** The most files one JS config's static imports are followed to (a guard against a huge import graph). */
const MAX_IMPORTS = 100;

/** Hex sha256 of a string or bytes. */
export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The real path of `file` when it exists, else its absolute path (records and roots compare real paths). */
export const realPath = realOrResolved;

/** The roots as real paths, so a link in a folder's path (macOS's /tmp) does not hide that a file lies inside. */
export function realRoots(roots: readonly string[]): string[] {
  return [...new Set(roots.flatMap((root) => [path.resolve(root), realPath(root)]))];
}

/** The fingerprint and the text shown in a diff, of a config file. */
interface ConfigDigest {
  hash: string;
  text: string;
}

/**
 * What counts of a config file: in package.json only its `toolshed` field (so an
 * ordinary dependency edit does not ask for trust), elsewhere every byte.
 */
export function configDigest(file: string, content: string): ConfigDigest {
  if (path.basename(file) === 'package.json') {
    let field: unknown = null;
    try {
      field = (JSON.parse(content) as { toolshed?: unknown }).toolshed ?? null;
    } catch {
      // Unparseable: cosmiconfig reports it; the fingerprint is of the bytes, so any edit counts.
      return { hash: sha256(content), text: content };
    }
    return { hash: sha256(canonicalJson(field)), text: `${JSON.stringify(field, null, 2)}\n` };
  }
  return { hash: sha256(content), text: content };
}

/** The bytes' fingerprint of a file, or MISSING. */
function fileFingerprint(file: string): string {
  try {
    return sha256(readFileSync(file));
  } catch {
    return MISSING;
  }
}

const JS_FILE = /\.(?:[cm]?js|[cm]?ts|jsx|tsx)$/;

/**
 * Relative module specifiers written literally in `source`: `import … from '../load/x'`, `import('../load/x')`,
 * `require('../load/x')`, `export … from '../load/x'`.
 */
function relativeSpecifiers(source: string): string[] {
  const found = new Set<string>();
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"`])(\.{1,2}\/[^'"`\n]*)\1/g;
  for (const match of source.matchAll(pattern)) found.add(match[2]!);
  return [...found];
}

/** The file a relative specifier names, trying the extensions Node and TypeScript loaders would. */
function resolveRelative(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [
    base,
    ...['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.json'].map((ext) => base + ext),
    path.join(base, 'index.js'),
  ]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // try the next
    }
  }
  return base;
}

/**
 * The files a JS config pulls in through literal relative imports, followed
 * recursively, that lie inside `roots`: real path → fingerprint. A computed
 * specifier (`import(name)`) cannot be followed; docs/security.md says so.
 */
export function staticImports(file: string, content: string, roots: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const queue = relativeSpecifiers(content).map((s) => resolveRelative(file, s));
  const seen = new Set<string>([realPath(file)]);
  while (queue.length && seen.size <= MAX_IMPORTS) {
    const next = realPath(queue.shift()!);
    if (seen.has(next)) continue;
    seen.add(next);
    if (!insideAny(next, roots)) continue;
    out[next] = fileFingerprint(next);
    if (out[next] === MISSING || !JS_FILE.test(next)) continue;
    const text = readFileSync(next, 'utf8');
    queue.push(...relativeSpecifiers(text).map((s) => resolveRelative(next, s)));
  }
  return out;
}

/** The most files of one local plugin folder that are fingerprinted. */
const MAX_PLUGIN_FILES = 2000;

/**
 * The fingerprint of a local plugin: a module file's bytes, or every file of a
 * folder (its code runs with what the config grants it) but node_modules, which
 * npm writes, and dot folders such as .git.
 */
function pluginFingerprint(target: string): string {
  let info;
  try {
    info = statSync(target);
  } catch {
    return MISSING;
  }
  if (!info.isDirectory()) return fileFingerprint(target);
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (files.length >= MAX_PLUGIN_FILES) return;
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files.push(full);
    }
  };
  walk(target);
  return sha256(files.map((file) => `${path.relative(target, file)} ${fileFingerprint(file)}`).join('\n'));
}

/**
 * Fingerprints of the hooks modules and local-path plugins the config names that
 * lie inside `roots` (real path → fingerprint). A package name resolves into
 * node_modules, which the operator installs; only paths are the config's own code.
 */
export function codeModules(
  config: { dir: string; hooks: readonly string[]; plugins: readonly PluginEntry[] },
  roots: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  const target = (spec: string) =>
    realPath(spec.startsWith('file:') ? fileURLToPath(spec) : path.resolve(config.dir, spec));
  for (const spec of config.hooks.filter(isPath)) {
    const file = target(spec);
    if (insideAny(file, roots)) out[file] = fileFingerprint(file);
  }
  for (const entry of config.plugins) {
    const spec = typeof entry === 'string' ? entry : entry.package;
    if (!isPath(spec)) continue;
    const dir = target(spec);
    if (insideAny(dir, roots)) out[dir] = pluginFingerprint(dir);
  }
  return out;
}
