import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
let work: { dir: string; cleanup(): void };

beforeEach(() => {
  work = tempDir('toolshed-tour-');
});
afterEach(() => work.cleanup());

/** Every file below `dir`, relative to it. */
const filesIn = (dir: string) =>
  (
    readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{
      isFile(): boolean;
      parentPath?: string;
      path?: string;
      name: string;
    }>
  )
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath ?? e.path ?? '', e.name)));

describe("toolshed tour in a user's app", () => {
  it("uses the app's config and files, and writes only in the root and the user's own folders", () => {
    const app = path.join(work.dir, 'app');
    const home = path.join(work.dir, 'home');
    const tmp = path.join(work.dir, 'tmp');
    for (const dir of [app, home, tmp]) mkdirSync(dir);
    writeFileSync(path.join(app, 'package.json'), '{"name":"my-app","private":true}');
    writeFileSync(path.join(app, 'README.md'), '# My app\n\nIt does things.\n\n## Usage\n');
    writeFileSync(path.join(app, '.toolshedrc.json'), JSON.stringify({ disable: ['terminal'] }));
    const result = spawnSync(process.execPath, [BIN, 'tour'], {
      cwd: app,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: home, TMPDIR: tmp, LANG: 'C.UTF-8' },
      timeout: 120_000,
    });
    expect(result.status, result.stderr).toBe(0);
    // A first run in a user's app says, in one line, that the config is now trusted as it is.
    expect(result.stderr).toMatch(
      /^toolshed: trusting \.\/\.toolshedrc\.json as this workspace's config \(first use\); [^\n]*toolshed trust\n/,
    );
    const out = result.stdout;
    expect(out).toContain(`config: ${path.join(realpathSync(app), '.toolshedrc.json')}`);
    expect(out).toContain('→ read_file {"path":"README.md","limit":6}');
    expect(out).toMatch(/→ write_file \{"path":".toolshedrc.mjs".*\n.*PERMISSION_DENIED/);
    expect(out).toContain('.toolshedrc.mjs is a protected name');
    expect(out).toMatch(/1\|# My app/);
    expect(out).toMatch(/README\.md:5:## Usage/);
    expect(out).toMatch(
      /→ terminal .*\n {2}run a shell command in the workspace with a timeout — skipped: not exposed here \(toolset 'terminal' is disabled\)/,
    );
    expect(out).toMatch(/one script calling several tools inside the QuickJS sandbox — ok/);
    expect(out).toContain('"README.md:      1|# My app"');
    // Nothing in the shared temp dir; in the home folder only toolshed's cache and state.
    expect(filesIn(tmp)).toEqual([]);
    const written = filesIn(home);
    expect(written.length).toBeGreaterThan(0);
    expect(
      written.filter(
        (f) =>
          !f.startsWith(path.join('.cache', 'toolshed')) && !f.startsWith(path.join('.local', 'state', 'toolshed')),
      ),
    ).toEqual([]);
    expect(filesIn(app).sort()).toEqual(['.toolshedrc.json', 'README.md', 'package.json']);
  });
});
