/**
 * The protected-name list and its matcher, as pure functions: which paths the model's
 * tools may not create or change (issue 40, routes 2, 3, 4 and 16), what git add, commit
 * and branch may still write under `.git`, that the list is at least Anthropic's
 * sandbox-runtime mandatory-deny list and Codex's read-only `.git`, and that a refusal
 * on a protected path names no grant to ask for.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROTECTED_NAMES } from '#internal/core/load/protect.js';
import { protectedBy } from '#internal/boundary/protected.js';
import { permissionFailure } from '#internal/boundary/normalize.js';
import { findProtected, protectedMounts, refuseCreated } from '#internal/boundary/launch/protected-mounts.js';
import { tempDir } from '../helpers.js';

const W = '/w/project';
const covered = (rel: string) => protectedBy(path.join(W, rel), PROTECTED_NAMES)?.value;

describe('the protected names', () => {
  it('cover what starts Node and npm, git metadata at any depth, editors, shells and agents, existing or not', () => {
    const refused = [
      '.npmrc',
      'packages/app/.npmrc',
      '.yarnrc',
      '.yarnrc.yml',
      '.pnpmfile.cjs',
      'node_modules/.bin',
      'node_modules/.bin/toolshed',
      'packages/app/node_modules/.bin/vitest',
      '.git',
      '.git/config',
      '.git/hooks/pre-commit',
      '.git/commondir',
      '.git/config.worktree',
      '.git/info/attributes',
      '.git/modules/sub/config',
      '.git/worktrees/wt/gitdir',
      '.git/rebase-merge/git-rebase-todo',
      '.git/objects-x',
      'packages/app/.git',
      'vendor/lib/.git/config',
      '.gitmodules',
      '.gitconfig',
      '.vscode/tasks.json',
      '.vscode/settings.json',
      '.vscode/launch.json',
      '.idea/runConfigurations/x.xml',
      '.bashrc',
      '.bash_profile',
      '.zshrc',
      '.zprofile',
      '.profile',
      '.envrc',
      '.ripgreprc',
      '.mcp.json',
      '.claude/commands/x.md',
      '.claude/agents/x.md',
      '.codex/config.toml',
      '.toolshedrc.mjs',
    ];
    for (const rel of refused) expect(covered(rel), rel).toBeDefined();
  });

  it('leave writable what git add, commit and branch write under .git, and ordinary files', () => {
    const allowed = [
      '.git/objects/ab/cdef',
      '.git/objects/pack/pack-1.pack',
      '.git/refs/heads/main',
      '.git/refs/heads/main.lock',
      '.git/logs/HEAD',
      '.git/logs/refs/heads/side',
      '.git/index',
      '.git/index.lock',
      '.git/HEAD',
      '.git/ORIG_HEAD',
      '.git/COMMIT_EDITMSG',
      '.git/packed-refs',
      'packages/app/.git/refs/heads/main',
      'src/app.js',
      'node_modules/lodash/index.js',
      '.github/workflows/ci.yml',
      'npmrc.txt',
    ];
    for (const rel of allowed) expect(covered(rel), rel).toBeUndefined();
  });

  it("are at least Anthropic's sandbox-runtime mandatory-deny list and Codex's read-only .git and .codex", () => {
    // sandbox-runtime src/sandbox/sandbox-utils.ts: DANGEROUS_FILES, DANGEROUS_DIRECTORIES (+ .claude/commands,
    // .claude/agents), .git/hooks, .git/config.
    const sandboxRuntime = [
      '.gitconfig',
      '.gitmodules',
      '.bashrc',
      '.bash_profile',
      '.zshrc',
      '.zprofile',
      '.profile',
      '.ripgreprc',
      '.mcp.json',
      '.vscode',
      '.idea',
      '.claude/commands',
      '.claude/agents',
      '.git/hooks',
      '.git/config',
    ];
    // Codex codex-rs/protocol/src/protocol.rs, get_writable_roots_with_cwd: .git (folder or gitdir file) and .codex
    // read-only.
    const codex = ['.git', '.codex'];
    for (const name of [...sandboxRuntime, ...codex]) {
      expect(covered(name), name).toBeDefined();
      expect(covered(`deep/er/${name}`), `deep/er/${name}`).toBeDefined();
    }
  });
});

describe('a refusal on a protected path', () => {
  it("names no grant to ask for (Node's permission model), and turns an EROFS into PERMISSION_DENIED with the reason", () => {
    const denied = (resource: string) =>
      Object.assign(new Error('Access to this API has been restricted'), {
        code: 'ERR_ACCESS_DENIED',
        permission: 'FileSystemWrite',
        resource,
      });
    const held = permissionFailure(denied(path.join(W, '.toolshedrc.mjs')), PROTECTED_NAMES) as Error & {
      code: string;
      data: Record<string, unknown>;
    };
    expect(held.code).toBe('PERMISSION_DENIED');
    expect(held.message).toContain('is a protected name (.toolshedrc.mjs)');
    expect(held.message).not.toContain('grant');
    expect(held.data.grant).toBeUndefined();
    const plain = permissionFailure(denied(path.join(W, 'out.txt')), PROTECTED_NAMES) as Error;
    expect(plain.message).toContain("grant: { fsWrite: ['/w/project/out.txt'] }");

    const erofs = Object.assign(new Error("EROFS: read-only file system, open '/w/project/.git/config'"), {
      code: 'EROFS',
      path: path.join(W, '.git/config'),
    });
    const refused = permissionFailure(erofs, PROTECTED_NAMES) as Error & { code: string };
    expect(refused.code).toBe('PERMISSION_DENIED');
    expect(refused.message).toContain('git runs the programs it names');
    const other = Object.assign(new Error('EROFS'), { code: 'EROFS', path: '/usr/lib/x' });
    expect(permissionFailure(other, PROTECTED_NAMES)).toBe(other);
  });
});

describe('the names a sandbox finds and holds', () => {
  const work = tempDir('toolshed-protected-names-');
  afterAll(() => work.cleanup());

  it('finds them at any depth, holds .git but its git-written children, and moves aside a name created since', () => {
    const ws = path.join(work.dir, 'ws');
    for (const dir of ['.git/objects', '.git/refs/heads', '.git/hooks', 'packages/app/src', 'node_modules/.bin'])
      mkdirSync(path.join(ws, dir), { recursive: true });
    for (const file of ['.git/config', '.git/HEAD', '.git/index', 'packages/app/.npmrc', 'node_modules/.bin/tsc'])
      writeFileSync(path.join(ws, file), 'x\n');
    const before = findProtected([ws], PROTECTED_NAMES);
    expect([...before.keys()].map((p) => path.relative(ws, p)).sort()).toEqual([
      '.git/config',
      '.git/hooks',
      'node_modules/.bin',
      'packages/app/.npmrc',
    ]);
    expect(protectedMounts([ws], PROTECTED_NAMES, ws).map((p) => path.relative(ws, p))).toEqual([
      '.git/hooks',
      '.git/config',
      'node_modules/.bin',
      'packages/app/.npmrc',
    ]);

    writeFileSync(path.join(ws, 'packages/app/.git'), 'gitdir: ../../evil\n');
    writeFileSync(path.join(ws, '.git/commondir'), '../evil\n');
    writeFileSync(path.join(ws, '.git/index'), 'y\n');
    const changes = refuseCreated(before, findProtected([ws], PROTECTED_NAMES));
    expect(
      changes.map((c) => [path.relative(ws, c.path), c.change, c.movedTo && path.relative(ws, c.movedTo)]),
    ).toEqual([
      ['.git/commondir', 'created', '.git/commondir.refused-by-toolshed-1'],
      ['packages/app/.git', 'created', 'packages/app/.git.refused-by-toolshed-1'],
    ]);
    // A .git file that was there before: the folder its gitdir: names is held like a .git folder (Codex holds it too).
    mkdirSync(path.join(ws, 'repo.git/refs'), { recursive: true });
    writeFileSync(path.join(ws, 'repo.git/config'), '[core]\n');
    mkdirSync(path.join(ws, 'worktree'));
    writeFileSync(path.join(ws, 'worktree/.git'), 'gitdir: ../repo.git\n');
    expect([...findProtected([ws], PROTECTED_NAMES).keys()].map((p) => path.relative(ws, p))).toEqual(
      expect.arrayContaining(['worktree/.git', 'repo.git/config']),
    );
    expect([...findProtected([ws], PROTECTED_NAMES).keys()].map((p) => path.relative(ws, p))).not.toContain(
      'repo.git/refs',
    );
    // What was moved aside is read by nothing (inside .git it stays protected like every other name there).
    const now = [...findProtected([ws], PROTECTED_NAMES).keys()].map((p) => path.relative(ws, p));
    expect(now).not.toContain('.git/commondir');
    expect(now).not.toContain('packages/app/.git');
  });
});
