/**
 * The model as an attacker, through the config: its file tools (or a terminal)
 * can write a config, a hooks module or a file a JS config imports inside the
 * workspace. A start after such a change stops with CONFIG_UNTRUSTED, before any
 * of it runs, until the operator accepts it (toolshed trust, --trust-config).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHostOptions } from 'toolshed';
import { knownWritableRoot, rememberWritableRoots } from '#internal/core/config/config-trust.js';
import { fixture, suiteHome, tempDir } from '../helpers.js';
import { toolshedInProcess } from './helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const LIGHT = { builtins: false };

let work: { dir: string; cleanup(): void };
let ws: string;
beforeEach(() => {
  work = tempDir('toolshed-config-trust-');
  ws = realpathSync(work.dir);
  // A package.json ends cosmiconfig's upward search here.
  writeFileSync(path.join(ws, 'package.json'), '{"name":"trust-app","private":true}');
});
afterEach(() => work.cleanup());

/** Starts a host and closes it; resolves with the notes it gave, rejects with its error. */
async function start(options: ToolHostOptions = {}): Promise<string[]> {
  const notes: string[] = [];
  const host = await createToolHost({
    cwd: ws,
    env: { PATH: process.env.PATH },
    onNotice: (note) => notes.push(note),
    ...options,
  });
  await host.close();
  return notes;
}

const refusal = (options: ToolHostOptions = {}) =>
  start(options).then(
    () => undefined,
    (error: unknown) => error as { code: string; message: string; data: Record<string, unknown> },
  );

/** A module that leaves `marker` behind if it is ever imported. */
const planted = (marker: string, exported = '{ builtins: false }') =>
  `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\nexport default ${exported};\n`;

describe('config trust in the library', () => {
  it('records "no config here" on first use, so a config that appears later is refused unrun', async () => {
    const first = await start({ overrides: { enable: [] } });
    expect(first).toHaveLength(1);
    expect(first[0]).toMatch(/^no config in .*toolshed trust/);

    // Written by the model (a terminal running unsandboxed, say): found before toolshed.config.mjs.
    const marker = path.join(ws, 'ran.txt');
    writeFileSync(path.join(ws, '.toolshedrc.mjs'), planted(marker));
    const error = await refusal();
    expect(error?.code).toBe('CONFIG_UNTRUSTED');
    expect(error?.message).toContain('a config appeared where there was none: ./.toolshedrc.mjs');
    expect(error?.message).toContain(`inside ${ws}`);
    expect(error?.message).toContain('toolshed trust');
    expect(error?.message).toContain('--trust-config');
    expect(error?.data).toMatchObject({ file: path.join(ws, '.toolshedrc.mjs'), root: ws });
    expect(existsSync(marker)).toBe(false);
  });

  it("stops a config the model's terminal created (a name that did not exist cannot be mounted read-only) before it runs", async () => {
    // No config here: the first start records that. The terminal runs in its bubblewrap sandbox
    // where it can, where a protected name that does not exist yet cannot be held.
    const host = await createToolHost({
      cwd: ws,
      root: ws,
      env: { PATH: process.env.PATH },
      overrides: { enable: ['terminal'] },
    });
    const marker = path.join(ws, 'ran.txt');
    try {
      const command = `cat > .toolshedrc.mjs <<'EOF'\n${planted(marker)}EOF\necho written`;
      const result = JSON.parse(await host.dispatch('terminal', { command }));
      // The terminal refuses the name it created and moves it aside (docs/security.md, "Protected paths")…
      expect(result.code).toBe('PERMISSION_DENIED');
      expect(existsSync(path.join(ws, '.toolshedrc.mjs'))).toBe(false);
    } finally {
      await host.close();
    }
    // …and config trust is the second line: a config that appears anyway (written by a process-tier plugin granted
    // fsWrite, which has no such comparison) is stopped.
    writeFileSync(path.join(ws, '.toolshedrc.mjs'), planted(marker));
    const error = await refusal();
    expect(error?.code).toBe('CONFIG_UNTRUSTED');
    expect(error?.message).toContain('a config appeared where there was none: ./.toolshedrc.mjs');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a trusted JSON config that gained a trusted MCP server; trustConfig accepts it for the next starts', async () => {
    const file = path.join(ws, '.toolshedrc.json');
    writeFileSync(file, JSON.stringify(LIGHT));
    const first = await start();
    expect(first).toEqual([
      expect.stringMatching(/^trusting \.\/\.toolshedrc\.json as this workspace's config \(first use\)/),
    ]);
    expect(await start()).toEqual([]);

    writeFileSync(
      file,
      JSON.stringify({
        ...LIGHT,
        mcpServers: { helper: { command: process.execPath, args: ['-e', ''], trust: 'trusted', enabled: false } },
      }),
    );
    const error = await refusal();
    expect(error?.code).toBe('CONFIG_UNTRUSTED');
    expect(error?.message).toContain('./.toolshedrc.json changed since it was accepted');

    expect(await start({ trustConfig: true })).toEqual([expect.stringContaining('accepted a changed config')]);
    expect(await start()).toEqual([]);

    // Removing it is a change too: the defaults may allow what the config held back.
    rmSync(file);
    const removed = await refusal({ overrides: { enable: [] } });
    expect(removed?.code).toBe('CONFIG_UNTRUSTED');
    expect(removed?.message).toContain('the accepted config ./.toolshedrc.json is gone');
  });

  it("counts only package.json's toolshed field", async () => {
    const pkg = (extra: Record<string, unknown>) =>
      writeFileSync(
        path.join(ws, 'package.json'),
        JSON.stringify({ name: 'trust-app', private: true, toolshed: LIGHT, ...extra }, null, 2),
      );
    pkg({});
    await start();
    pkg({ dependencies: { 'left-pad': '1.3.0' }, scripts: { test: 'vitest' } });
    expect(await start()).toEqual([]);
    pkg({ dependencies: { 'left-pad': '1.3.0' }, toolshed: { ...LIGHT, hooks: ['./audit.mjs'] } });
    const error = await refusal();
    expect(error?.code).toBe('CONFIG_UNTRUSTED');
    expect(error?.data.file).toBe(path.join(ws, 'package.json'));
  });

  it('needs no trust for a config outside every writable root', async () => {
    const outside = tempDir('toolshed-config-trust-outside-');
    try {
      const config = path.join(outside.dir, 'toolshed.config.json');
      writeFileSync(config, JSON.stringify(LIGHT));
      expect(await start({ config, root: ws })).toEqual([]);
      writeFileSync(config, JSON.stringify({ ...LIGHT, limits: { timeoutMs: 1234 } }));
      expect(await start({ config, root: ws })).toEqual([]);
      // The same file inside the root is trusted by content. Named (--config), it is the operator's pick: recorded on
      // first use.
      const inside = path.join(ws, 'toolshed.config.json');
      writeFileSync(inside, JSON.stringify(LIGHT));
      expect(await start({ config: inside, root: ws })).toHaveLength(1);
      writeFileSync(inside, JSON.stringify({ ...LIGHT, limits: { timeoutMs: 1234 } }));
      expect((await refusal({ config: inside, root: ws }))?.code).toBe('CONFIG_UNTRUSTED');
    } finally {
      outside.cleanup();
    }
  });

  it('accepts a JS config that moved the root away from it, and still holds it to trust: its folder was a writable root', async () => {
    const file = path.join(ws, 'toolshed.config.mjs');
    writeFileSync(file, 'export default { builtins: false };\n');
    await start();
    mkdirSync(path.join(ws, 'sub'));
    writeFileSync(file, "export default { builtins: false, root: './sub' };\n");
    expect((await refusal())?.code).toBe('CONFIG_UNTRUSTED');
    expect(await start({ trustConfig: true })).toEqual([expect.stringContaining('accepted a changed config')]);
    expect(await start()).toEqual([]);
    writeFileSync(file, "export default { builtins: false, root: './sub', limits: { timeoutMs: 1234 } };\n");
    expect((await refusal())?.code).toBe('CONFIG_UNTRUSTED');
  });

  it('refuses a changed hooks module inside the root without importing it', async () => {
    mkdirSync(path.join(ws, 'policy'));
    const hooks = path.join(ws, 'policy', 'audit.mjs');
    writeFileSync(hooks, 'export default { afterCall: () => undefined };\n');
    writeFileSync(path.join(ws, '.toolshedrc.json'), JSON.stringify({ ...LIGHT, hooks: ['./policy/audit.mjs'] }));
    await start();
    const marker = path.join(ws, 'ran.txt');
    writeFileSync(hooks, planted(marker, '{ afterCall: () => undefined }'));
    const error = await refusal();
    expect(error?.code).toBe('CONFIG_UNTRUSTED');
    expect(error?.message).toContain('./policy/audit.mjs');
    expect(error?.data.file).toBe(hooks);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a JS config whose imported helper changed, before importing either', async () => {
    writeFileSync(path.join(ws, 'helper.mjs'), 'export const disable = [];\n');
    writeFileSync(
      path.join(ws, 'toolshed.config.mjs'),
      `import { disable } from './helper.mjs';\nexport default { builtins: false, disable };\n`,
    );
    await start();
    const marker = path.join(ws, 'ran.txt');
    writeFileSync(
      path.join(ws, 'helper.mjs'),
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\nexport const disable = [];\n`,
    );
    const error = await refusal();
    expect(error?.code).toBe('CONFIG_UNTRUSTED');
    expect(error?.data.file).toBe(path.join(ws, 'helper.mjs'));
    expect(existsSync(marker)).toBe(false);
  });
});

/** `toolshed ARGS` as a child process in `cwd`: its exit code and output. */
function toolshedChild(args: string[], env: Record<string, string> = {}, cwd = ws) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...suiteHome(), PATH: process.env.PATH ?? '', LANG: 'C.UTF-8', ...env },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * `toolshed ARGS` in `cwd` through the CLI's main() in this process (toolshedChild checks that the
 * binary answers the same); TOOLSHED_TRUST_CONFIG is unset unless `env` sets it.
 */
const toolshed = (args: string[], env: { TOOLSHED_TRUST_CONFIG?: string } = {}, cwd = ws) =>
  toolshedInProcess(args, { cwd, env: { TOOLSHED_TRUST_CONFIG: undefined, ...env } });

describe('config trust on the command line', () => {
  const config = (extra: Record<string, unknown> = {}) =>
    writeFileSync(
      path.join(ws, '.toolshedrc.json'),
      `${JSON.stringify({ ...LIGHT, plugins: [{ package: fixture('plugins', 'where'), trust: 'trusted' }], ...extra }, null, 2)}\n`,
    );

  it('explains the first use in one line, refuses a change, and toolshed trust shows it and accepts it', async () => {
    config();
    const first = await toolshed(['list', '--format', 'names']);
    expect(first).toMatchObject({ code: 0, stdout: 'where\n' });
    expect(first.stderr).toMatch(
      /^toolshed: trusting \.\/\.toolshedrc\.json as this workspace's config \(first use\); [^\n]*toolshed trust\n$/,
    );

    config({ disable: ['where'] });
    // The binary itself, once: a refused start exits 1 with the one line.
    const refused = toolshedChild(['list', '--format', 'names']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^toolshed: CONFIG_UNTRUSTED: \.\/\.toolshedrc\.json changed since it was accepted; it lies inside .*toolshed trust/,
    );

    const trust = await toolshed(['trust']);
    expect(trust.code).toBe(0);
    expect(trust.stdout).toContain('./.toolshedrc.json changed since it was accepted');
    expect(trust.stdout).toContain('+   "disable": [');
    expect(trust.stdout).toContain('+     "where"');
    expect(await toolshed(['list', '--format', 'names'])).toMatchObject({ code: 0, stderr: '' });
    expect(await toolshed(['trust'])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^nothing to trust: \.\/\.toolshedrc\.json is as accepted/),
    });
  });

  it('--trust-config accepts a change without asking; toolshed trust takes no arguments', async () => {
    config();
    expect((await toolshed(['trust'])).code).toBe(0);
    config({ disable: ['where'] });
    const accepted = await toolshed(['list', '--format', 'names', '--trust-config']);
    expect(accepted.code).toBe(0);
    expect(accepted.stderr).toMatch(/^toolshed: accepted a changed config/);
    expect(await toolshed(['list', '--format', 'names'])).toMatchObject({ code: 0, stderr: '' });
    // The same for a container's environment.
    config({ disable: ['where'], limits: { timeoutMs: 1234 } });
    expect(await toolshed(['list', '--format', 'names'], { TOOLSHED_TRUST_CONFIG: '1' })).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/^toolshed: accepted a changed config/),
    });
    expect(await toolshed(['list', '--format', 'names'])).toMatchObject({ code: 0, stderr: '' });
    const usage = await toolshed(['trust', 'extra']);
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('says a config outside every writable root needs no trust', async () => {
    const outside = tempDir('toolshed-config-trust-outside-');
    try {
      const file = path.join(outside.dir, 'toolshed.config.json');
      writeFileSync(file, JSON.stringify(LIGHT));
      expect(await toolshed(['trust', '--config', file, '--root', ws])).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/^nothing to trust: .* lies outside every folder the model's tools can write/),
      });
    } finally {
      outside.cleanup();
    }
  });
});

describe('config trust on first use, only where the model cannot write', () => {
  it('knows a remembered writable root, and every folder below it, but not the folders above', () => {
    const state = path.join(ws, 'state');
    rememberWritableRoots(state, ['/srv/app', '/data/granted']);
    expect(knownWritableRoot(state, '/srv/app')).toBe('/srv/app');
    expect(knownWritableRoot(state, '/srv/app/packages/web/.toolshedrc.mjs')).toBe('/srv/app');
    expect(knownWritableRoot(state, '/data/granted/x')).toBe('/data/granted');
    expect(knownWritableRoot(state, '/srv')).toBeUndefined();
    expect(knownWritableRoot(state, '/srv/application')).toBeUndefined();
  });

  it('refuses a config planted in a subfolder of a known workspace, unrun, and names the command that trusts it', async () => {
    writeFileSync(path.join(ws, '.toolshedrc.json'), JSON.stringify({ enable: ['terminal'] }));
    // The operator's first start in the workspace records it.
    expect(await toolshed(['list', '--format', 'names'])).toMatchObject({ code: 0, stdout: 'terminal\n' });

    // The model, through the sandboxed terminal of a real host, plants a config one folder down:
    // the terminal refuses the protected name it created (protected-paths.test.ts) and moves it aside.
    const marker = path.join(ws, 'ran.txt');
    const sub = path.join(ws, 'sub');
    const host = await createToolHost({ cwd: ws, env: { PATH: process.env.PATH } });
    try {
      const command = `mkdir sub && cat > sub/.toolshedrc.mjs <<'EOF'\n${planted(marker)}EOF\necho written`;
      expect(JSON.parse(await host.dispatch('terminal', { command }))).toMatchObject({ code: 'PERMISSION_DENIED' });
    } finally {
      await host.close();
    }
    expect(existsSync(path.join(sub, '.toolshedrc.mjs'))).toBe(false);
    // Trust on first use is the second line: a config that got there another way (an untrusted
    // plugin or MCP server granted the workspace, whose writes the terminal's check does not see).
    writeFileSync(path.join(sub, '.toolshedrc.mjs'), planted(marker));

    // The operator runs toolshed there: refused before the module is imported.
    const refused = await toolshed(['list', '--format', 'names'], {}, sub);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).not.toContain('first use)');
    expect(refused.stderr).toContain(
      `toolshed: CONFIG_UNTRUSTED: ./.toolshedrc.mjs is not trusted on first use: it lies inside ${ws}, which toolshed knows the model's tools can write`,
    );
    expect(refused.stderr).toContain(`run toolshed trust in ${sub} to trust it`);
    expect(existsSync(marker)).toBe(false);

    // The one command, run deliberately, trusts it; the next start runs it without a word.
    const trust = await toolshed(['trust'], {}, sub);
    expect(trust).toMatchObject({ code: 0, stdout: expect.stringContaining('accepted ./.toolshedrc.mjs') });
    expect(await toolshed(['list', '--format', 'names'], {}, sub)).toMatchObject({ code: 0, stderr: '' });
  });

  it('refuses on first use a config in a folder a known config grants write access to', async () => {
    const data = tempDir('toolshed-config-trust-granted-');
    try {
      const granted = realpathSync(data.dir);
      writeFileSync(
        path.join(ws, '.toolshedrc.json'),
        JSON.stringify({
          ...LIGHT,
          plugins: [{ package: fixture('plugins', 'where'), grant: { fsWrite: [granted] } }],
        }),
      );
      await start();
      // What an untrusted plugin with that grant could write.
      const marker = path.join(granted, 'ran.txt');
      writeFileSync(path.join(granted, 'package.json'), '{"name":"granted","private":true}');
      writeFileSync(path.join(granted, 'toolshed.config.mjs'), planted(marker));
      const error = await refusal({ cwd: granted });
      expect(error?.code).toBe('CONFIG_UNTRUSTED');
      expect(error?.message).toContain(`./toolshed.config.mjs is not trusted on first use: it lies inside ${granted}`);
      expect(error?.data).toMatchObject({
        file: path.join(granted, 'toolshed.config.mjs'),
        root: granted,
        fix: 'toolshed trust',
      });
      expect(existsSync(marker)).toBe(false);
      // A JSON config there too: refused after reading, before anything it names runs.
      rmSync(path.join(granted, 'toolshed.config.mjs'));
      writeFileSync(path.join(granted, '.toolshedrc.json'), JSON.stringify(LIGHT));
      expect((await refusal({ cwd: granted }))?.message).toContain('./.toolshedrc.json is not trusted on first use');
    } finally {
      data.cleanup();
    }
  });

  it("still records first use below a known workspace where the config is the workspace's accepted one, or there is none", async () => {
    writeFileSync(path.join(ws, '.toolshedrc.json'), JSON.stringify(LIGHT));
    await start();
    const sub = path.join(ws, 'pkg');
    mkdirSync(sub);
    // No package.json in pkg: the search goes on up to the workspace's config, which its record accepted.
    expect(await start({ cwd: sub })).toEqual([
      expect.stringMatching(/^trusting .*\.toolshedrc\.json as this workspace's config \(first use\)/),
    ]);
    expect(await start({ cwd: sub })).toEqual([]);
    // A package of its own without a config: "no config here" is recorded, as before.
    const other = path.join(ws, 'other');
    mkdirSync(other);
    writeFileSync(path.join(other, 'package.json'), '{"name":"other","private":true}');
    expect(await start({ cwd: other, overrides: { enable: [] } })).toEqual([expect.stringMatching(/^no config in /)]);
  });
});
