/**
 * The pins of toolshed's own files that thread-tier workers import: every compiled module
 * of the sandbox folder (the worker entry, the task runner, the execute_code runtime) and of
 * the boundary folder (the wire types and the code both sides run, including the modules the
 * builtin plugins import), and whatever their relative imports reach. Found by reading the compiled imports,
 * so the list cannot fall behind the code. Taken once per process, when the first host
 * starts: the modules a running host has imported are the ones new workers must match.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinFiles, type Pins } from '../../../boundary/pins.js';

/** The compiled sandbox and boundary folders (this file is `dist/core/runners/thread/runtime-pins.js`). */
const WORKER_SIDE_DIRS = [
  fileURLToPath(new URL('../../../sandbox/', import.meta.url)),
  fileURLToPath(new URL('../../../boundary/', import.meta.url)),
];

/**
 * `import … from './x.js'`, `export … from '../../../sandbox/x.js'`, `import './x.js'` and `import('./x.js')` with a
 * relative specifier.
 */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.\.?\/[^'"]+)['"]/g;

function modulesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((item) => item.isFile() && item.name.endsWith('.js'))
    .map((item) => path.join(item.parentPath, item.name));
}

/** `roots` and every module they reach through relative imports. */
function importClosure(roots: readonly string[]): string[] {
  const found = new Set<string>();
  const work = [...roots];
  while (work.length) {
    const file = work.pop()!;
    if (found.has(file)) continue;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    found.add(file);
    for (const match of text.matchAll(RELATIVE_IMPORT)) work.push(path.resolve(path.dirname(file), match[1]!));
  }
  return [...found].sort();
}

let pinned: Pins | undefined;

/** The runtime's pins, taken on the first call in this process. */
export function runtimePins(): Pins {
  return (pinned ??= pinFiles(importClosure(WORKER_SIDE_DIRS.flatMap(modulesUnder))));
}
