/**
 * Issue 23 §5: requested and granted paths compared as paths, not strings (both resolve from the
 * config file's folder: the host's cwd for a config object); a grant that matches nothing the
 * plugin requests is reported (explain, summary, and an error under --strict); and a folder asked
 * for by purpose (`permissions.folders`), chosen by the operator (`grant.folders`) and found in
 * `ctx.roots.folders`. Real untrusted fixture plugin in a real child process.
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture, tempDir, withHost } from '../helpers.js';
import { untrustedOptions } from '../security/helpers.js';

const NOTEBOOK = fixture('plugin-author', 'notebook');
let work: ReturnType<typeof tempDir>;
beforeEach(() => {
  work = tempDir();
  mkdirSync(path.join(work.dir, 'notes'));
  writeFileSync(path.join(work.dir, 'notes', 'kept.txt'), 'kept');
});
afterEach(() => work.cleanup());

const notebook = (grant: Record<string, unknown>) =>
  untrustedOptions([{ package: NOTEBOOK, grant: grant as never }], { cwd: work.dir });

describe('requested and granted paths', () => {
  it.each([['notes'], ['notes/'], [`${'./notes/../notes'}`]])(
    "a request for './notes' and a grant of '%s' are the same folder",
    async (spelling) => {
      await withHost(notebook({ fsWrite: [spelling] }), async (host) => {
        const report = host.explain();
        const plugin = report.plugins.find((p) => p.name === 'toolshed-plugin-notebook')!;
        expect(plugin.permissions!.effective.fsWrite).toEqual([spelling]);
        expect(plugin.permissions!.unmatched).toEqual([]);
        expect(report.warnings.filter((w) => w.includes('grant.'))).toEqual([]);
        expect(JSON.parse(await host.dispatch('notes_list', {}))).toEqual(['kept.txt']);
      });
    },
  );

  it('a grant inside the requested folder narrows it; one beside it matches nothing and is reported', async () => {
    mkdirSync(path.join(work.dir, 'notes', 'inner'));
    await withHost(
      notebook({ fsWrite: ['./notes/inner', './elsewhere'], network: true, env: ['NOT_ASKED'] }),
      async (host) => {
        const report = host.explain();
        const plugin = report.plugins.find((p) => p.name === 'toolshed-plugin-notebook')!;
        expect(plugin.permissions!.effective.fsWrite).toEqual(['./notes/inner']);
        expect(plugin.permissions!.effective.network).toBe(false);
        expect(plugin.permissions!.unmatched).toEqual([
          "grant.fsWrite './elsewhere' matches no folder the plugin requests in fsWrite (it requests ./notes; paths of both resolve from the config file's folder), so it has no effect",
          'grant.network is true, but the plugin does not request network access, so it has no effect',
          "grant.env 'NOT_ASKED': the plugin does not request it (it requests none), so it has no effect",
        ]);
        expect(report.warnings).toContain(`plugin toolshed-plugin-notebook: ${plugin.permissions!.unmatched![0]}`);
        // The narrowed folder is what the child may use: inner is readable, notes itself is not.
        expect(JSON.parse(await host.dispatch('notes_list', {}))).toEqual([]);
        expect(
          JSON.parse(await host.dispatch('notes_read', { file: path.join(work.dir, 'notes', 'kept.txt') })).code,
        ).toBe('PERMISSION_DENIED');
      },
    );
  });
});

describe('a folder asked for by purpose', () => {
  it('the operator chooses it with grant.folders, and the plugin finds it in ctx.roots.folders', async () => {
    mkdirSync(path.join(work.dir, 'chosen'));
    await withHost(notebook({ folders: { notes: './chosen' } }), async (host) => {
      const plugin = host.explain().plugins.find((p) => p.name === 'toolshed-plugin-notebook')!;
      expect(plugin.permissions!.requested.folders).toEqual({
        notes: { access: 'write', description: 'Where the notes are kept' },
      });
      expect(plugin.permissions!.effective).toMatchObject({ folders: { notes: './chosen' }, fsWrite: ['./chosen'] });
      expect(plugin.permissions!.unmatched).toEqual([]);
      expect(await host.dispatch('notes_save', { topic: 'today', text: 'by purpose' })).toBe('saved today');
      expect(readFileSync(path.join(work.dir, 'chosen', 'today', 'note.txt'), 'utf8')).toBe('by purpose');
      // ./notes was not granted: the plugin's own fixed folder stays closed.
      expect(
        JSON.parse(await host.dispatch('notes_read', { file: path.join(work.dir, 'notes', 'kept.txt') })).code,
      ).toBe('PERMISSION_DENIED');
    });
  });

  it('a purpose the plugin does not ask for is reported, and grants nothing', async () => {
    await withHost(notebook({ folders: { journal: './notes' } }), async (host) => {
      const plugin = host.explain().plugins.find((p) => p.name === 'toolshed-plugin-notebook')!;
      expect(plugin.permissions!.effective).toMatchObject({ folders: {}, fsWrite: [] });
      expect(plugin.permissions!.unmatched).toEqual([
        'grant.folders.journal: the plugin asks for no folder by that purpose (it asks for notes), so it has no effect',
      ]);
      // Nothing granted: the plugin's own check hides its folder tools, with its reason.
      const tool = host.explain().tools.find((t) => t.name === 'notes_list')!;
      expect(tool).toMatchObject({ exposed: false, reason: expect.stringContaining('no folder granted for notes') });
    });
  });

  it('a trusted plugin gets the chosen folder in ctx.roots too', async () => {
    mkdirSync(path.join(work.dir, 'chosen'));
    await withHost(
      untrustedOptions([{ package: NOTEBOOK, trust: 'trusted', grant: { folders: { notes: './chosen' } } as never }], {
        cwd: work.dir,
      }),
      async (host) => {
        expect(await host.dispatch('notes_save', { topic: 't', text: 'trusted' })).toBe('saved t');
        expect(readFileSync(path.join(realpathSync(work.dir), 'chosen', 't', 'note.txt'), 'utf8')).toBe('trusted');
      },
    );
  });

  it('the config schema and the manifest schema check the shapes', async () => {
    await withHost(notebook({ folders: { notes: 3 } }), async () => undefined).then(
      () => expect.unreachable('a folder path must be a string'),
      (error) =>
        expect(error).toMatchObject({
          code: 'CONFIG_INVALID',
          message: expect.stringContaining('/plugins/0/grant/folders/notes'),
        }),
    );
    const bad = path.join(work.dir, 'bad-plugin.mjs');
    writeFileSync(
      bad,
      "export default { apiVersion: 1, permissions: { folders: { notes: { access: 'rw' } } }, tools: [] };\n",
    );
    await withHost(untrustedOptions([{ package: bad }], { cwd: work.dir }), async (host) => {
      expect(host.explain().plugins[0]).toMatchObject({
        status: 'failed',
        error: { code: 'PLUGIN_INVALID', message: expect.stringContaining('/permissions/folders/notes/access') },
      });
    });
  });
});
