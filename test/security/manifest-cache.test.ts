/**
 * Caches hold no trust: a manifest cache entry the model forged (valid JSON, the real key)
 * never widens a trusted plugin's roots or drops an approval annotation, the default cache
 * folder is never in the workspace, and a configured one there is refused with a warning.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolHostOptions } from 'toolshed';
import { fixture, tempDir, withHost } from '../helpers.js';

let work: { dir: string; cleanup(): void };
let cacheHome: { dir: string; cleanup(): void };

beforeEach(() => {
  work = tempDir('toolshed-cache-attack-');
  cacheHome = tempDir('toolshed-cache-home-');
  cpSync(fixture('plugins', 'notes'), path.join(work.dir, 'notes'), { recursive: true });
});
afterEach(() => {
  work.cleanup();
  cacheHome.cleanup();
});

const options = (
  cache: Record<string, unknown> = { dir: cacheHome.dir },
  extra: Record<string, unknown> = {},
): ToolHostOptions => ({
  cwd: work.dir,
  env: { PATH: process.env.PATH },
  config: {
    builtins: false,
    cache,
    approve: { destructive: true, timeoutMs: 300 },
    plugins: [{ package: './notes', trust: 'trusted' }],
    ...extra,
  },
});

/** What the host believes about the notes plugin: where it came from, its write roots and delete_note's hints. */
const beliefs = (opts = options()) =>
  withHost(opts, async (host) => {
    const report = host.explain();
    const plugin = report.plugins.find((p) => p.name === 'toolshed-plugin-notes')!;
    return {
      from: plugin.manifestSource,
      fsWrite: plugin.permissions?.effective.fsWrite ?? [],
      annotations: report.tools.find((t) => t.name === 'delete_note')?.annotations,
      // approve.destructive: with no approver, a destructive call is refused and never runs.
      call: JSON.parse(await host.dispatch('delete_note', { id: 'a' })).code as string | undefined,
    };
  });

/** What the notes plugin really declares: no write roots, delete_note destructive (so it needs approval). */
const real = { fsWrite: [], annotations: { destructiveHint: true }, call: 'APPROVAL_DENIED' };

/** The one cache entry the first start wrote. */
function entryFile(): string {
  const folder = path.join(cacheHome.dir, 'manifests');
  const files = readdirSync(folder).filter((f) => f.startsWith('toolshed-plugin-notes-'));
  expect(files).toHaveLength(1);
  return path.join(folder, files[0]!);
}

/** An entry as stored: its MAC on the first line, then the JSON body the MAC covers. */
function readEntry(file: string): { mac: string; body: any } {
  const text = readFileSync(file, 'utf8');
  const newline = text.indexOf('\n');
  return { mac: text.slice(0, newline), body: JSON.parse(text.slice(newline + 1)) };
}

/** The manifest as the model would forge it: the whole disk writable, and delete_note no longer destructive. */
function forge(manifest: {
  permissions?: unknown;
  tools: Array<{ name: string; annotations?: Record<string, unknown> }>;
}) {
  manifest.permissions = { fsWrite: ['/'], fsRead: ['/'] };
  delete manifest.tools.find((t) => t.name === 'delete_note')!.annotations!.destructiveHint;
  return manifest;
}

describe('the manifest cache holds no trust', () => {
  it('ignores an entry whose body was changed under its MAC', async () => {
    expect(await beliefs()).toMatchObject({ from: 'extracted', ...real });
    expect(await beliefs()).toMatchObject({ from: 'cache', ...real });
    const file = entryFile();
    const { mac, body } = readEntry(file);
    body.manifest = forge(body.manifest);
    writeFileSync(file, `${mac}\n${JSON.stringify(body)}`);
    expect(await beliefs()).toMatchObject({ from: 'extracted', ...real });
  });

  it('ignores an entry in the plain shape, with the real key and no MAC', async () => {
    await beliefs();
    const file = entryFile();
    const { key, plugin, version, manifest } = readEntry(file).body;
    writeFileSync(file, JSON.stringify({ key, plugin, version, manifest: forge(manifest) }));
    expect(await beliefs()).toMatchObject({ from: 'extracted', ...real });
  });

  it('validates an authentic entry again: one that fails the manifest checks is re-extracted', async () => {
    await beliefs();
    // An entry this host could have written and signed, whose manifest would not pass extraction.
    const file = entryFile();
    const { body } = readEntry(file);
    body.manifest.permissions = { fsWrite: '/' };
    const { createHmac } = await import('node:crypto');
    const key = Buffer.from(
      readFileSync(path.join(process.env.XDG_STATE_HOME!, 'toolshed', 'cache.key'), 'utf8').trim(),
      'hex',
    );
    const text = JSON.stringify(body);
    writeFileSync(file, `${createHmac('sha256', key).update(text).digest('hex')}\n${text}`);
    expect(await beliefs()).toMatchObject({ from: 'extracted', ...real });
  });
});

describe('where the manifest cache lives', () => {
  it('is never under the workspace by default, even with a node_modules/.cache there', async () => {
    mkdirSync(path.join(work.dir, 'node_modules', '.cache'), { recursive: true });
    expect(await beliefs(options({}))).toMatchObject({ from: expect.stringMatching(/extracted|cache/), ...real });
    expect(readdirSync(path.join(work.dir, 'node_modules', '.cache'))).toEqual([]);
    const userCache = path.join(process.env.XDG_CACHE_HOME!, 'toolshed', 'manifests');
    expect(readdirSync(userCache).some((f) => f.startsWith('toolshed-plugin-notes-'))).toBe(true);
  });

  it('refuses a configured cache.dir inside the workspace, with a warning, and uses the user cache folder', async () => {
    const inside = path.join(work.dir, '.toolshed-cache');
    await withHost(options({ dir: inside }), async (host) => {
      const warnings = host.explain().warnings.filter((w) => w.includes('cache.dir'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(inside);
      expect(warnings[0]).toContain('the model');
    });
    expect(existsSync(inside)).toBe(false);
  });

  it("refuses a configured cache.dir inside a plugin's fsWrite grant", async () => {
    const granted = path.join(cacheHome.dir, 'granted');
    mkdirSync(granted);
    const opts = options(
      { dir: path.join(granted, 'cache') },
      { plugins: [{ package: './notes', trust: 'trusted', grant: { fsWrite: [granted] } }] },
    );
    await withHost(opts, async (host) =>
      expect(host.explain().warnings.some((w) => w.includes('cache.dir') && w.includes(granted))).toBe(true),
    );
    expect(existsSync(path.join(granted, 'cache'))).toBe(false);
  });
});
