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

const HAS_BWRAP = spawnSync('bwrap', ['--version']).status === 0;

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
  for (const file of ['.git/config', 'hooks.mjs', 'node_modules/toolshed-plugin-greetings/index.js', 'deploy/prod.env']) originals.set(file, readFileSync(rel(file), 'utf8'));
});
afterAll(() => work.cleanup());

/** A host on the workspace with the file tools and the terminal, the hooks module, a trusted plugin from node_modules, and `protect`. */
async function withWorkspace<T>(terminal: Record<string, unknown> | undefined, fn: (host: ToolHost) => Promise<T>): Promise<T> {
  const host = await createToolHost({
    cwd: ws,
    root: ws,
    env: { PATH: process.env.PATH },
    config: {
      enable: ['file', 'terminal', 'greetings'],
      cache: { enabled: false },
      hooks: ['./hooks.mjs'],
      protect: ['deploy'],
      plugins: [{ package: 'toolshed-plugin-greetings', trust: 'trusted' }, ...(terminal ? [{ package: '@toolshed/terminal', options: terminal }] : [])],
    },
  });
  try {
    return await fn(host);
  } finally {
    await host.close();
  }
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
      ];
      for (const [file, why] of attempts) {
        const result = await call(host, 'write_file', { path: file, content: 'export default {}; // injected\n' });
        expect(result.code, file).toBe('PERMISSION_DENIED');
        expect(result.error, file).toContain(file);
        expect(result.error, file).toContain(why);
      }
      const patched = await call(host, 'patch', { path: 'hooks.mjs', old_string: 'beforeCall() {}', new_string: 'beforeCall() { globalThis.pwned = 1; }' });
      expect(patched.code).toBe('PERMISSION_DENIED');
      expect(existsSync(rel('.toolshedrc.mjs'))).toBe(false);
      expect(existsSync(rel('sub', 'toolshed.config.mjs'))).toBe(false);
      expect(existsSync(rel('.git', 'hooks', 'pre-commit'))).toBe(false);
      expectUnchanged();
      const ordinary = await call(host, 'write_file', { path: 'src/app.js', content: 'console.log(1);\n' });
      expect(ordinary).toMatchObject({ created: true });
    });
  });

  it('refuse a protected path reached through a link the model made', async () => {
    await withWorkspace({ sandbox: 'off' }, async (host) => {
      const made = await call(host, 'terminal', { command: 'ln -s .git/hooks h && ln -s hooks.mjs hk.mjs && echo ok' });
      expect(made.output).toContain('ok');
      expect((await call(host, 'write_file', { path: 'h/post-checkout', content: 'touch /tmp/pwned\n' })).code).toBe('PERMISSION_DENIED');
      expect((await call(host, 'write_file', { path: 'hk.mjs', content: 'globalThis.pwned = 1;\n' })).code).toBe('PERMISSION_DENIED');
      expect(existsSync(rel('.git', 'hooks', 'post-checkout'))).toBe(false);
      expectUnchanged();
      spawnSync('rm', ['-f', rel('h'), rel('hk.mjs')]);
    });
  });
});

describe.runIf(HAS_BWRAP)('the terminal in its bubblewrap sandbox', () => {
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
      const work = await call(host, 'terminal', { command: 'echo hi > a.txt && git add a.txt && git -c user.name=t -c user.email=t@t commit -qm one && git log --oneline | wc -l' });
      expect(work.exitCode, work.output).toBe(0);
      expect(work.output.trim()).toBe('1');
    });
  });
});

describe.runIf(HAS_BWRAP)('an untrusted plugin granted the workspace', () => {
  it('writes the workspace but not the protected paths in it', async () => {
    const host = await createToolHost({
      cwd: ws,
      root: ws,
      env: { PATH: process.env.PATH },
      config: { builtins: false, cache: { enabled: false }, hooks: ['./hooks.mjs'], plugins: [{ package: fixture('security', 'workspace-writer'), trust: 'untrusted', grant: { fsWrite: ['.'] } }] },
    });
    try {
      expect(await call(host, 'write_anywhere', { path: rel('plain.txt') })).toMatchObject({ allowed: true });
      for (const file of ['.git/config', 'hooks.mjs']) expect(await call(host, 'write_anywhere', { path: rel(file) }), file).toMatchObject({ allowed: false });
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
      expect(values).toEqual(expect.arrayContaining(['.toolshedrc.mjs', 'toolshed.config.mjs', '.git/hooks', '.git/config', rel('hooks.mjs'), rel('node_modules', 'toolshed-plugin-greetings'), rel('deploy')]));
      expect(protection.notInForce.join('\n')).toMatch(/terminal: .*'off'.*protected paths/);
    });
    await withWorkspace(undefined, async (host) => {
      const { protection } = host.explain();
      if (HAS_BWRAP) expect(protection.notInForce.filter((line) => line.startsWith('terminal'))).toEqual([]);
    });
  });
});
