/**
 * Issue 23 §5: an untrusted plugin's granted write folder, as a new author meets it. The folder
 * may also be read (docs/plugins.md says so and `explain` prints it as readable); a granted
 * folder that does not exist at start can be created and then written in the same run; and a
 * file the permission model refuses comes back as PERMISSION_DENIED naming the permission, the
 * path and the grant that opens it, not Node's "Access to this API has been restricted".
 * Real untrusted fixture plugin, real child process (bubblewrap where the machine has it).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixture, tempDir } from '../helpers.js';
import { untrustedOptions } from '../security/helpers.js';

const NOTEBOOK = fixture('plugin-author', 'notebook');

describe('an untrusted plugin and its fsWrite folder', () => {
  let work: ReturnType<typeof tempDir>;
  let host: ToolHost;
  beforeAll(async () => {
    work = tempDir();
    mkdirSync(path.join(work.dir, 'notes'));
    writeFileSync(path.join(work.dir, 'notes', 'first.txt'), 'one');
    writeFileSync(path.join(work.dir, 'secret.txt'), 'not granted');
    host = await createToolHost(
      untrustedOptions([{ package: NOTEBOOK, grant: { fsWrite: ['./notes'] } }], { cwd: work.dir }),
    );
  });
  afterAll(async () => {
    await host.close();
    work.cleanup();
  });

  it('reads the folder it may write (a write grant implies read), as explain says', async () => {
    expect(JSON.parse(await host.dispatch('notes_list', {}))).toEqual(['first.txt']);
    const plugin = host.explain().plugins.find((p) => p.name === 'toolshed-plugin-notebook')!;
    expect(plugin.tier).toBe('process');
    expect(await host.dispatch('notes_save', { topic: 'ideas', text: 'two' })).toBe('saved ideas');
    expect(JSON.parse(await host.dispatch('notes_list', {}))).toEqual(['first.txt', 'ideas']);
    expect(await host.dispatch('notes_read', { file: path.join(work.dir, 'notes', 'ideas', 'note.txt') })).toBe('two');
  });

  it('a refused read is PERMISSION_DENIED naming the permission, the path and the grant', async () => {
    const secret = path.join(work.dir, 'secret.txt');
    const envelope = JSON.parse(await host.dispatch('notes_read', { file: secret }));
    expect(envelope.code).toBe('PERMISSION_DENIED');
    expect(envelope.error).toContain("this plugin's entry of the toolshed config's plugins");
    expect(envelope.error).toContain(`may not read ${secret}`);
    expect(envelope.error).toContain('FileSystemRead');
    expect(envelope.error).toContain(`grant: { fsRead: ['${secret}'] }`);
    expect(envelope.error).not.toContain('Access to this API has been restricted');
  });

  it("a plugin's own error around the refusal keeps its message and gains the permission's", async () => {
    const secret = path.join(work.dir, 'secret.txt');
    const envelope = JSON.parse(await host.dispatch('notes_read_wrapped', { file: secret }));
    expect(envelope.code).toBe('PERMISSION_DENIED');
    expect(envelope.error).toMatch(/^could not read secret\.txt: Permission denied: the plugin may not read /);
  });

  it('a refused write names fsWrite', async () => {
    const envelope = JSON.parse(await host.dispatch('notes_save', { topic: '../elsewhere', text: 'x' }));
    expect(envelope.code).toBe('PERMISSION_DENIED');
    expect(envelope.error).toContain(`may not write ${path.join(work.dir, 'elsewhere')}`);
    expect(envelope.error).toContain('grant: { fsWrite: [');
    expect(existsSync(path.join(work.dir, 'elsewhere'))).toBe(false);
  });
});

describe('a granted fsWrite folder that does not exist when the plugin starts', () => {
  it('is created by the plugin and written in the same run', async () => {
    const work = tempDir();
    try {
      const host = await createToolHost(
        untrustedOptions([{ package: NOTEBOOK, grant: { fsWrite: ['./notes'] } }], { cwd: work.dir }),
      );
      try {
        expect(existsSync(path.join(work.dir, 'notes'))).toBe(false);
        // The child starts (and Node reads its grants) while the folder is still missing.
        expect(await host.dispatch('notes_save', { topic: 'first', text: 'hello' })).toBe('saved first');
        expect(readFileSync(path.join(work.dir, 'notes', 'first', 'note.txt'), 'utf8')).toBe('hello');
        expect(JSON.parse(await host.dispatch('notes_list', {}))).toEqual(['first']);
        // Beside the granted folder is still closed: `notes-other` is not below `notes`.
        const beside = JSON.parse(await host.dispatch('notes_save', { topic: '../notes-other', text: 'x' }));
        expect(beside.code).toBe('PERMISSION_DENIED');
        expect(existsSync(path.join(work.dir, 'notes-other', 'note.txt'))).toBe(false);
      } finally {
        await host.close();
      }
    } finally {
      work.cleanup();
    }
  });
});
