/**
 * The page's files: index.html and the built assets from dist/console, found
 * next to this module (so the same code serves them from the repository and
 * from an installed package). Asset names carry a content hash, so they are
 * cached for a year; index.html is revalidated on every load. The files are
 * read once and kept (they are the package's, built before the server
 * started). When the page was not built, index.html says so in a plain page.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerResponse } from 'node:http';
import { secure } from './replies.js';

/** dist/console, from dist/core/console/static-files.js. */
const ROOT = fileURLToPath(new URL('../../console/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** What index.html is when dist/console is missing (a checkout that ran tsc but not the page's build). */
const NOT_BUILT =
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolshed console</title></head>
<body><h1>toolshed console</h1><p>The console's page was not built: run <code>npm run build</code> ` +
  `in the toolshed checkout. The API under <code>api/</code> works without it.</p></body></html>
`;

/** A file path below the root: segments of safe characters only, no dot segments. */
const SAFE_PATH = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * The page's files read so far, by name (a handful: the page, its script, its styles); undefined for a name that is no
 * file.
 */
const read = new Map<string, Promise<Buffer | undefined>>();

/** The file `name` below ROOT, read once; undefined when there is none. */
function fileOf(name: string): Promise<Buffer | undefined> {
  let body = read.get(name);
  if (!body) {
    const file = path.join(ROOT, name);
    body = stat(file).then(
      (found) => (found.isFile() ? readFile(file) : undefined),
      () => undefined,
    );
    // Only files are kept: a request for a name that is none must not grow the map.
    void body.then((found) => (found ? undefined : read.delete(name)));
    read.set(name, body);
  }
  return body;
}

/** Answers `relative` (a path below BASE, '' for the page); false when there is no such file. */
export async function sendStatic(res: ServerResponse, relative: string, head: boolean): Promise<boolean> {
  const name = relative === '' ? 'index.html' : relative;
  if (!SAFE_PATH.test(name) || name.split('/').some((segment) => segment.startsWith('.'))) return false;
  const body = (await fileOf(name)) ?? (name === 'index.html' ? Buffer.from(NOT_BUILT) : undefined);
  if (!body) return false;
  secure(res);
  const immutable = name.startsWith('assets/');
  res.writeHead(200, {
    'content-type': TYPES[path.extname(name)] ?? 'application/octet-stream',
    'content-length': body.length,
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  res.end(head ? undefined : body);
  return true;
}
