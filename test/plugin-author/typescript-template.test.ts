/**
 * Issue 23 §5: docs/plugins.md's TypeScript template is a real package, test/fixtures/typescript-plugin,
 * file for file; here it is type-checked and run against this repository's toolshed (the tarball test
 * does the same against the packed one). Its plugin imports `node:fs/promises` (which `"types": []`
 * could not compile) and has two tools (where `plugin.tools.find(…).handler(…)` stops type-checking).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, suiteHome } from '../helpers.js';
import { toolshedInProcess } from '../security/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const FIXTURE = fixture('typescript-plugin');
const DOC = readFileSync(path.join(ROOT, 'docs', 'plugins.md'), 'utf8');
const SECTION = DOC.slice(DOC.indexOf('## 5. In TypeScript'), DOC.indexOf('## 6. '));

/** The code blocks of section 5 in a given language, in order. */
function blocks(lang: string): string[] {
  return [...SECTION.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}
const file = (name: string) => readFileSync(path.join(FIXTURE, name), 'utf8');

describe('docs/plugins.md section 5 is test/fixtures/typescript-plugin', () => {
  it('shows its files as they are', () => {
    const [pkg, tsconfig, tsconfigTest, ...rest] = blocks('json');
    expect(rest).toEqual([]);
    expect(JSON.parse(pkg!)).toEqual(JSON.parse(file('package.json')));
    expect(tsconfig).toBe(file('tsconfig.json'));
    expect(tsconfigTest).toBe(file('tsconfig.test.json'));
    expect(blocks('ts')).toEqual([file('src/index.ts'), file('src/index.test.ts')]);
    expect(blocks('js')).toEqual([file('toolshed.config.mjs')]);
    expect(JSON.parse(tsconfig!).compilerOptions.types).toEqual(['node']);
  });
});

describe('the template package, built and run', () => {
  let work: string;
  let plugin: string;
  beforeAll(() => {
    // Under the repository (the ignored .tmp/) so that @types/node and typescript resolve from its node_modules;
    // `toolshed` is this repository's package, linked where an app's npm install would put it: its
    // package.json and the entries of its `files`. Not the whole repository: the host pins every file
    // of the plugin's folder, nested packages included, and the repository's own changing files
    // (other tests' folders in .tmp/, vitest's cache) would make the plugin PLUGIN_CHANGED mid-test.
    mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
    work = mkdtempSync(path.join(ROOT, '.tmp', 'typescript-template-'));
    plugin = path.join(work, 'greet-plugin');
    cpSync(FIXTURE, plugin, {
      recursive: true,
      filter: (source) => !/[/\\](dist|dist-test|node_modules)$/.test(source),
    });
    const installed = path.join(plugin, 'node_modules', 'toolshed');
    mkdirSync(installed, { recursive: true });
    const { files } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    for (const entry of ['package.json', ...files.filter((f) => !f.startsWith('!'))])
      symlinkSync(path.join(ROOT, entry), path.join(installed, entry));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const run = (command: string, args: string[]) => {
    const result = spawnSync(command, args, {
      cwd: plugin,
      encoding: 'utf8',
      env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
      timeout: 280_000,
    });
    return { code: result.status, out: result.stdout + result.stderr, stdout: result.stdout };
  };

  it('builds, and its tests type-check and pass (node --test on the compiled test files)', () => {
    // The build skips checking the .d.ts files (lib, @types/node, toolshed's own: most of tsc's
    // time, with the template's skipLibCheck: false): the test config's run checks them all, for
    // the build's files and the test file under the same options (it extends tsconfig.json and
    // changes only declaration and outDir), so an error in one fails here as it would fail `npm run build`.
    expect(run(process.execPath, [TSC, '-p', plugin, '--skipLibCheck'])).toMatchObject({ code: 0, out: '' });
    expect(run(process.execPath, [TSC, '-p', path.join(plugin, 'tsconfig.test.json')])).toMatchObject({
      code: 0,
      out: '',
    });
    // What `npm test` runs after tsc, with the shell's glob expanded here.
    // TAP on every Node (Node 23 and later default to the spec reporter when not on a terminal).
    const tests = run(process.execPath, [
      '--test',
      '--test-reporter=tap',
      path.join(plugin, 'dist-test', 'index.test.js'),
    ]);
    expect(tests.code, tests.out).toBe(0);
    expect(tests.stdout).toMatch(/# pass 2\n/);
    expect(tests.stdout).toMatch(/# fail 0\n/);
  }, 300_000);

  it('loads through its development config, and both tools answer', async () => {
    // Built by the test above when it ran; built here when this one runs alone.
    if (!existsSync(path.join(plugin, 'dist', 'index.js')))
      execFileSync(process.execPath, [TSC, '-p', plugin, '--skipLibCheck'], { cwd: plugin });
    // The CLI's main() in this process (each command a start of its own, the plugin in its own worker), without a Node
    // start each.
    const toolshed = (...args: string[]) => toolshedInProcess(args, { cwd: plugin });
    expect(await toolshed('list', '--format', 'names', '--strict')).toMatchObject({
      code: 0,
      stdout: 'farewell\ngreet\n',
    });
    expect(await toolshed('call', 'greet', '{"name":"Ada","shout":true}')).toMatchObject({
      code: 0,
      stdout: 'HELLO, ADA!\n',
    });
    expect(await toolshed('call', 'farewell', '{"name":"Ada"}')).toMatchObject({
      code: 0,
      stdout: 'Goodbye, Ada. See you soon.\n',
    });
  }, 300_000);
});
