/**
 * Per-user state against another local user (uid 65534): the three attacks on
 * the todo plugin's shared-temp-dir lists (overwrite through a planted link, a
 * planted list served to the model, a lock kept fresh), a shared XDG state
 * folder, and a manifest cache folder someone else made. The scenario runs in
 * a private mount namespace with its own tmpfs on /tmp, so nothing here touches
 * the machine's real /tmp; it needs root (CI and this machine run as root) for
 * the namespace and for acting as the second uid with setpriv.
 */
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers.js';

const SCENARIO = fixture('security', 'shared-state', 'scenario.mjs');

/**
 * What the scenario needs that may lie under /tmp, carried over into the private /tmp:
 * the checkout (a CI clone may live there) and the Node running the suite (a Node
 * installed for a test run may too).
 */
const KEEP = [fixture('..', '..'), path.dirname(path.dirname(realpathSync(process.execPath)))];

function runScenario(): Record<string, any> {
  // A fresh tmpfs on /tmp would hide whatever lives there: hold each kept path that does on a
  // tmpfs at /mnt (private to this namespace) and bind it back at its own path.
  const script = [
    'set -e',
    'mount -t tmpfs tmpfs /mnt',
    'i=0; for p in "$@"; do i=$((i+1)); case "$p" in /tmp/*) mkdir "/mnt/$i" && mount --bind "$p" "/mnt/$i";; esac; done',
    'mount -t tmpfs -o mode=1777 tmpfs /tmp',
    'i=0; for p in "$@"; do i=$((i+1)); case "$p" in /tmp/*) mkdir -p "$p" && mount --bind "/mnt/$i" "$p";; esac; done',
    `exec "${process.execPath}" "${SCENARIO}"`,
  ].join('\n');
  const run = spawnSync('unshare', ['--mount', '--propagation', 'private', '--', 'sh', '-c', script, 'sh', ...KEEP], { encoding: 'utf8', timeout: 120_000, env: { PATH: process.env.PATH ?? '' } });
  if (run.status !== 0) throw new Error(`the scenario failed (exit ${run.status}; it needs root for unshare and setpriv):\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

describe('per-user state against another local user', () => {
  const results = runScenario();

  it('does not write through a link planted in a folder another user made', () => {
    expect(results.plantedLink.write).toMatchObject({ code: 'PERMISSION_DENIED', error: expect.stringContaining('owned by uid 65534, not by this user (uid 0)') });
    expect(results.plantedLink.victimFile).toBe('precious\n');
  });

  it('does not serve a list another user planted', () => {
    expect(results.plantedList).toMatchObject({ code: 'PERMISSION_DENIED', error: expect.stringContaining('/tmp/planted') });
    expect(JSON.stringify(results.plantedList)).not.toContain('curl');
  });

  it("is not blocked by another user's fresh lock: the folder is refused with a clear reason instead", () => {
    expect(results.freshLock).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(results.freshLock.error).not.toContain('busy');
  });

  it('refuses a state folder below a folder another user owns', () => {
    expect(results.ancestor.write).toMatchObject({ code: 'PERMISSION_DENIED', error: expect.stringContaining('refusing to use /tmp/state/toolshed for per-user state: it is owned by uid 65534') });
    // Refused before anything was created in the other user's folder.
    expect(results.ancestor.created).toEqual([]);
  });

  it("keeps the user's own state private: 0700 folder, 0600 files, unreadable and unplantable by others", () => {
    expect(results.own.write).toMatchObject({ todos: [{ content: 'secret plan' }] });
    expect(results.own.dirMode).toBe('700');
    expect(results.own.fileMode).toBe('600');
    expect(results.own.attackerRead).not.toBe(0);
    expect(results.own.attackerPlant).not.toBe(0);
    expect(results.own.read.todos).toEqual([{ id: '1', content: 'secret plan', status: 'pending' }]);
  });

  it('turns the manifest cache off for a folder another user made, says why, and writes nothing there', () => {
    expect(results.cache.warnings.join('\n')).toMatch(/manifest cache off: refusing to use \/tmp\/shared-cache for per-user state: it is owned by uid 65534/);
    expect(results.cache.files).toEqual([]);
    expect(JSON.parse(results.cache.echo)).toEqual({ ok: 1 });
  });
});
