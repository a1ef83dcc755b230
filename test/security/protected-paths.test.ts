/**
 * The model as an attacker, through nothing but tool calls: inside the writable
 * workspace, what the host later loads or runs (config names, a hooks module, a
 * trusted plugin under node_modules, .git/hooks and .git/config, the config's own
 * `protect` list) stays read-only — to write_file and patch (PERMISSION_DENIED naming
 * the path and why), to the terminal's bubblewrap sandbox (mounted read-only, and its
 * folders cannot be renamed away), and to an untrusted plugin granted the workspace.
 * explain and the summary list the protected paths and what is not in force.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixture, tempDir } from '../helpers.js';
import { call } from './helpers.js';

// npm test installs bubblewrap (scripts/test-prerequisites.mjs): its absence fails this file, it never skips it.
if (spawnSync('bwrap', ['--version']).status !== 0)
  throw new Error('bubblewrap (bwrap) is not installed: npm test installs it (scripts/test-prerequisites.mjs)');

let work: ReturnType<typeof tempDir>;
let ws: string;
/** What each protected file held when the test began: none may change. */
const originals = new Map<string, string>();

const rel = (...parts: string[]) => path.join(ws, ...parts);

beforeAll(() => {
  work = tempDir('toolshed-protect-');
  ws = path.join(work.dir, 'workspace');
  mkdirSync(ws);
  expect(spawnSync('git', ['init', '-q', ws]).status).toBe(0);
  writeFileSync(rel('hooks.mjs'), 'export default { beforeCall() {} };\n');
  cpSync(fixture('plugins', 'greetings'), rel('node_modules', 'toolshed-plugin-greetings'), { recursive: true });
  mkdirSync(rel('deploy'));
  writeFileSync(rel('deploy', 'prod.env'), 'TOKEN=x\n');
  writeFileSync(rel('notes.txt'), 'ordinary file\n');
  for (const file of ['.git/config', 'hooks.mjs', 'node_modules/toolshed-plugin-greetings/index.js', 'deploy/prod.env'])
    originals.set(file, readFileSync(rel(file), 'utf8'));
});
/** The hosts withWorkspace opened, by the terminal's options: each serves every test that asks for the same. */
const hosts = new Map<string, Promise<ToolHost>>();
afterAll(async () => {
  await Promise.all([...hosts.values()].map(async (host) => (await host.catch(() => undefined))?.close()));
  hosts.clear();
  work.cleanup();
});

/**
 * A host on the workspace with the file tools and the terminal, the hooks module, a trusted plugin from node_modules,
 * and `protect`.
 */
async function withWorkspace<T>(
  terminal: Record<string, unknown> | undefined,
  fn: (host: ToolHost) => Promise<T>,
): Promise<T> {
  const key = JSON.stringify(terminal ?? null);
  if (!hosts.has(key)) hosts.set(key, openWorkspace(terminal));
  return fn(await hosts.get(key)!);
}

function openWorkspace(terminal: Record<string, unknown> | undefined): Promise<ToolHost> {
  return createToolHost({
    cwd: ws,
    root: ws,
    env: { PATH: process.env.PATH },
    config: {
      enable: ['file', 'terminal', 'greetings'],
      hooks: ['./hooks.mjs'],
      protect: ['deploy'],
      plugins: [
        { package: 'toolshed-plugin-greetings', trust: 'trusted' },
        ...(terminal ? [{ package: '@toolshed/terminal', options: terminal }] : []),
      ],
    },
  });
}

function expectUnchanged(): void {
  for (const [file, text] of originals) expect(readFileSync(rel(file), 'utf8'), file).toBe(text);
}

describe('write_file and patch inside the workspace', () => {
  it('refuse every protected path, naming it and why; ordinary files stay writable', async () => {
    await withWorkspace(undefined, async (host) => {
      const attempts: Array<[string, string]> = [
        ['.toolshedrc.mjs', 'config'],
        ['sub/toolshed.config.mjs', 'config'],
        ['.toolshedrc', 'config'],
        ['hooks.mjs', 'hooks module'],
        ['node_modules/toolshed-plugin-greetings/index.js', 'toolshed-plugin-greetings'],
        ['.git/hooks/pre-commit', 'hooks'],
        ['.git/config', 'git'],
        ['deploy/prod.env', 'protect'],
        // Round four: what starts Node and npm, git metadata beyond config and hooks, editors and shells.
        ['.npmrc', 'node-options'],
        ['packages/app/.npmrc', 'node-options'],
        ['.yarnrc.yml', 'yarn'],
        ['.pnpmfile.cjs', 'pnpm'],
        ['node_modules/.bin/toolshed', 'npx'],
        ['.git/commondir', 'git'],
        ['.git/info/attributes', 'git'],
        ['.git/config.worktree', 'git'],
        ['.git/modules/sub/config', 'git'],
        ['packages/app/.git', 'gitdir'],
        ['.gitmodules', 'submodules'],
        ['.vscode/tasks.json', 'VS Code'],
        ['.idea/workspace.xml', 'JetBrains'],
        ['.bashrc', 'shell'],
        ['.envrc', 'direnv'],
      ];
      for (const [file, why] of attempts) {
        const result = await call(host, 'write_file', { path: file, content: 'export default {}; // injected\n' });
        expect(result.code, file).toBe('PERMISSION_DENIED');
        expect(result.error, file).toContain(file);
        expect(result.error, file).toContain(why);
      }
      const patched = await call(host, 'patch', {
        path: 'hooks.mjs',
        old_string: 'beforeCall() {}',
        new_string: 'beforeCall() { globalThis.pwned = 1; }',
      });
      expect(patched.code).toBe('PERMISSION_DENIED');
      expect(existsSync(rel('.toolshedrc.mjs'))).toBe(false);
      expect(existsSync(rel('sub', 'toolshed.config.mjs'))).toBe(false);
      expect(existsSync(rel('.git', 'hooks', 'pre-commit'))).toBe(false);
      expectUnchanged();
      for (const file of ['.npmrc', 'node_modules/.bin/toolshed', '.git/commondir', 'packages/app/.git', '.vscode'])
        expect(existsSync(rel(file)), file).toBe(false);
      const ordinary = await call(host, 'write_file', { path: 'src/app.js', content: 'console.log(1);\n' });
      expect(ordinary).toMatchObject({ created: true });
      // What git add, commit and branch write under .git stays writable (a ref, by hand).
      const head = readFileSync(rel('.git', 'HEAD'), 'utf8');
      expect(
        await call(host, 'write_file', { path: '.git/refs/heads/side', content: `${'0'.repeat(40)}\n` }),
      ).toMatchObject({ created: true });
      expect(readFileSync(rel('.git', 'HEAD'), 'utf8')).toBe(head);
      spawnSync('rm', ['-f', rel('.git', 'refs', 'heads', 'side')]);
    });
  });

  it('refuse a protected path reached through a link the model made', async () => {
    await withWorkspace({ sandbox: 'off' }, async (host) => {
      const made = await call(host, 'terminal', { command: 'ln -s .git/hooks h && ln -s hooks.mjs hk.mjs && echo ok' });
      expect(made.output).toContain('ok');
      expect((await call(host, 'write_file', { path: 'h/post-checkout', content: 'touch /tmp/pwned\n' })).code).toBe(
        'PERMISSION_DENIED',
      );
      expect((await call(host, 'write_file', { path: 'hk.mjs', content: 'globalThis.pwned = 1;\n' })).code).toBe(
        'PERMISSION_DENIED',
      );
      expect(existsSync(rel('.git', 'hooks', 'post-checkout'))).toBe(false);
      expectUnchanged();
      spawnSync('rm', ['-f', rel('h'), rel('hk.mjs')]);
    });
  });
});

describe('the terminal in its bubblewrap sandbox', () => {
  it('cannot change a protected path, nor rename its folder away, and still works on the rest', async () => {
    await withWorkspace(undefined, async (host) => {
      const attempts = [
        "git config core.fsmonitor 'touch /tmp/toolshed-fsmonitor-pwned'",
        'echo "[core] fsmonitor = touch x" >> .git/config',
        'printf "#!/bin/sh\\ntouch x\\n" > .git/hooks/pre-commit',
        'mv .git .git-old && mkdir .git',
        'mv .git/hooks .git/hooks-old',
        'echo "globalThis.pwned = 1" >> hooks.mjs',
        'rm -f hooks.mjs',
        'echo "globalThis.pwned = 1" > node_modules/toolshed-plugin-greetings/index.js',
        'mv node_modules nm-old',
        'echo TOKEN=stolen > deploy/prod.env',
      ];
      for (const command of attempts) {
        const result = await call(host, 'terminal', { command });
        expect(result.exitCode, command).not.toBe(0);
      }
      expectUnchanged();
      expect(existsSync(rel('.git', 'hooks', 'pre-commit'))).toBe(false);
      expect(existsSync(rel('.git-old'))).toBe(false);
      // Work on the rest goes on: a new file, and a commit (git writes objects, refs and its index).
      const work = await call(host, 'terminal', {
        command:
          'echo hi > a.txt && git add a.txt && git -c user.name=t -c user.email=t@t commit -qm one && git log --oneline | wc -l',
      });
      expect(work.exitCode, work.output).toBe(0);
      expect(work.output.trim()).toBe('1');
    });
  });
});

/** The model's attacks on what starts Node, npm and git, as terminal commands (routes 2, 3 and 4 of issue 40). */
const CREATIONS: Array<[command: string, created: string]> = [
  [
    'printf \'node-options=--require ./x.cjs\\n\' > .npmrc && echo \'require("fs").writeFileSync("npm-pwned", "")\' > x.cjs',
    '.npmrc',
  ],
  [
    `git init -q --bare evil && git config -f evil/config core.bare false && git config -f evil/config core.fsmonitor "touch $PWD/git-pwned; echo" && echo "$PWD/evil" > .git/commondir`,
    '.git/commondir',
  ],
  ["mkdir -p packages/app && printf 'gitdir: ../../evil\\n' > packages/app/.git", 'packages/app/.git'],
  [
    "mkdir -p node_modules/.bin && printf '#!/bin/sh\\ntouch npx-pwned\\n' > node_modules/.bin/toolshed && chmod +x node_modules/.bin/toolshed",
    'node_modules/.bin',
  ],
  ['mkdir -p .vscode && echo {} > .vscode/tasks.json', '.vscode'],
];

/** The user's own git and npm in the workspace afterwards: none runs what the model planted. */
function expectNothingPlanted(): void {
  for (const [, created] of CREATIONS) expect(existsSync(rel(created)), created).toBe(false);
  spawnSync('git', ['status', '--short'], { cwd: ws });
  spawnSync('git', ['status', '--short'], { cwd: rel('packages', 'app') });
  expect(existsSync(rel('git-pwned')), 'git ran the planted fsmonitor').toBe(false);
  const npm = spawnSync('npm', ['config', 'get', 'node-options'], {
    cwd: ws,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: work.dir },
  });
  expect(npm.stdout.trim()).not.toContain('x.cjs');
}

describe('the terminal creating a protected name', () => {
  for (const sandbox of ['workspace-write', 'off']) {
    it(`is refused with PERMISSION_DENIED and the name moved aside (sandbox ${sandbox})`, async () => {
      await withWorkspace({ sandbox }, async (host) => {
        for (const [command, created] of CREATIONS) {
          const result = await call(host, 'terminal', { command });
          expect(result.code, command).toBe('PERMISSION_DENIED');
          expect(result.error, command).toContain(`${created} is a protected name`);
          expect(result.error, command).toMatch(/moved it aside to \S+refused-by-toolshed-1/);
        }
        expectNothingPlanted();
        // Ordinary work goes on: a file, and a commit (git writes objects, refs, index, logs, COMMIT_EDITMSG).
        const work = await call(host, 'terminal', {
          command: `echo ${sandbox} > ${sandbox}.txt && git add ${sandbox}.txt && git -c user.name=t -c user.email=t@t commit -qm ${sandbox} && git branch side-${sandbox} && git status --short ${sandbox}.txt`,
        });
        expect(work.exitCode, JSON.stringify(work)).toBe(0);
        expect(work.output).toBe('');
      });
      spawnSync(
        'sh',
        [
          '-c',
          'rm -rf .npmrc.refused-* x.cjs evil packages node_modules/.bin.refused-* .vscode.refused-* .git/commondir.refused-*',
        ],
        { cwd: ws },
      );
    });
  }

  it('overwriting an existing protected file is PERMISSION_DENIED with the reason, not a raw EROFS', async () => {
    await withWorkspace(undefined, async (host) => {
      const result = await call(host, 'terminal', { command: 'echo "[core] fsmonitor = touch x" >> .git/config' });
      expect(result.code).toBe('PERMISSION_DENIED');
      expect(result.error).toContain('.git/config is a protected name (.git/config): git runs the programs it names');
      expect(result.error).toContain('Read-only file system');
      expectUnchanged();
    });
  });
});

describe('an untrusted plugin granted the workspace', () => {
  it('writes the workspace but not the protected paths in it', async () => {
    const host = await createToolHost({
      cwd: ws,
      root: ws,
      env: { PATH: process.env.PATH },
      config: {
        builtins: false,
        hooks: ['./hooks.mjs'],
        plugins: [{ package: fixture('security', 'workspace-writer'), trust: 'untrusted', grant: { fsWrite: ['.'] } }],
      },
    });
    try {
      expect(await call(host, 'write_anywhere', { path: rel('plain.txt') })).toMatchObject({ allowed: true });
      for (const file of ['.git/config', 'hooks.mjs'])
        expect(await call(host, 'write_anywhere', { path: rel(file) }), file).toMatchObject({ allowed: false });
      expectUnchanged();
    } finally {
      await host.close();
    }
  });
});

describe('explain', () => {
  it('lists the model-writable folders and the protected paths, and what is not in force', async () => {
    await withWorkspace({ sandbox: 'off' }, async (host) => {
      const { protection } = host.explain();
      expect(protection.writable).toContain(ws);
      const values = protection.protected.map((e) => e.value);
      expect(values).toEqual(
        expect.arrayContaining([
          '.toolshedrc.mjs',
          'toolshed.config.mjs',
          '.git/hooks',
          '.git/config',
          rel('hooks.mjs'),
          rel('node_modules', 'toolshed-plugin-greetings'),
          rel('deploy'),
        ]),
      );
      expect(protection.notInForce.join('\n')).toMatch(/terminal: .*'off'.*protected paths/);
    });
    await withWorkspace(undefined, async (host) => {
      const { protection } = host.explain();
      expect(protection.notInForce.filter((line) => line.startsWith('terminal'))).toEqual([]);
    });
  });
});
