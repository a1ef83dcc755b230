/**
 * The dependency folders an untrusted plugin's child may read, found from
 * its package.json the way Node resolves them, transitively — and checked,
 * because every name in those package.json files is the plugin's to choose:
 * a dependency named `../../../..` would otherwise make the app folder readable,
 * and a linked dependency (a workspace link) would open whatever it points at.
 *
 * - Every name must be a valid npm package name (validate-npm-package-name).
 * - The folder found for it must lie, by real path, inside the `node_modules`
 *   folder it was found in (a folder of the plugin's own resolution chain),
 *   unless it lies inside a path the operator granted for reading.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import validatePackageName from 'validate-npm-package-name';
import { isInside } from '../../../boundary/launch/paths.js';

/** Packages a plugin's dependency closure may hold before the walk is refused (a runaway tree, not a real plugin). */
const MAX_PACKAGES = 5_000;

/** A dependency that may not be read, and why. */
interface DependencyRefusal {
  /** the name as written in a package.json */
  dependency: string;
  /** the package.json that names it */
  declaredIn: string;
  reason: string;
}

/** The checked dependency folders (real paths), or the first dependency that failed a check. */
type DependencyRoots = { ok: true; roots: string[] } | { ok: false; refusal: DependencyRefusal };

function declaredDependencies(dir: string): string[] {
  try {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      dependencies?: unknown;
      optionalDependencies?: unknown;
    };
    const names = (field: unknown) => (typeof field === 'object' && field !== null ? Object.keys(field) : []);
    return [...names(pkg.dependencies), ...names(pkg.optionalDependencies)];
  } catch {
    return [];
  }
}

/**
 * Finds `name` from `dir` through the node_modules folders up to the root: the folder and the node_modules it is in.
 */
function locate(name: string, dir: string): { folder: string; nodeModules: string } | undefined {
  for (let search = dir; ; search = path.dirname(search)) {
    const nodeModules = path.join(search, 'node_modules');
    const folder = path.join(nodeModules, name);
    if (existsSync(path.join(folder, 'package.json'))) return { folder, nodeModules };
    if (path.dirname(search) === search) return undefined;
  }
}

/** Why `name`, declared by the package in `from`, may not be read, or its real folder (undefined: not installed). */
function check(
  name: string,
  from: string,
  granted: readonly string[],
): { refused: string } | { real: string } | undefined {
  const valid = validatePackageName(name);
  if (!valid.validForOldPackages)
    return { refused: `it is not a valid npm package name (${valid.errors?.join('; ') ?? 'invalid'})` };
  const found = locate(name, from);
  if (!found) return undefined;
  const real = realpathSync(found.folder);
  const within = isInside(real, realpathSync(found.nodeModules)) || granted.some((root) => isInside(real, root));
  if (!within)
    return {
      refused:
        `${found.folder} resolves to ${real}, outside ${found.nodeModules} (a linked folder); grant its path for ` +
        `reading to allow it`,
    };
  return { real };
}

/**
 * The real folders of `dir`'s dependencies and theirs, every one checked;
 * `granted` are absolute paths the operator granted for reading, where a
 * linked dependency may point. Dependencies that are not installed are skipped
 * (optional ones, or ones the plugin never imports).
 */
export function dependencyReadRoots(dir: string, granted: readonly string[]): DependencyRoots {
  const start = realpathSync(dir);
  const queue = [start];
  const seen = new Set<string>(queue);
  const roots: string[] = [];
  while (queue.length) {
    const current = queue.shift()!;
    for (const dependency of declaredDependencies(current)) {
      const result = check(dependency, current, granted);
      if (!result) continue;
      if ('refused' in result)
        return {
          ok: false,
          refusal: { dependency, declaredIn: path.join(current, 'package.json'), reason: result.refused },
        };
      if (seen.has(result.real)) continue;
      if (seen.size >= MAX_PACKAGES) {
        return {
          ok: false,
          refusal: {
            dependency,
            declaredIn: path.join(current, 'package.json'),
            reason: `the dependency tree has more than ${MAX_PACKAGES} packages`,
          },
        };
      }
      seen.add(result.real);
      roots.push(result.real);
      queue.push(result.real);
    }
  }
  return { ok: true, roots };
}
