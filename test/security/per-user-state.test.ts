/**
 * Per-user state against another local user (uid 65534): the todo plugin's lists, which
 * once lived in files (a planted link, a planted list, a shared XDG state folder), now in
 * ctx.session and nowhere on disk; and a manifest cache folder someone else made. The scenario runs in
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
  const run = spawnSync('unshare', ['--mount', '--propagation', 'private', '--', 'sh', '-c', script, 'sh', ...KEEP], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env.PATH ?? '' },
  });
  if (run.status !== 0)
    throw new Error(`the scenario failed (exit ${run.status}; it needs root for unshare and setpriv):\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

describe('per-user state against another local user', () => {
  const results = runScenario();

  it("keeps the todo lists off the file system: another user's folders, links and lists are neither read nor written", () => {
    expect(results.noFiles.write).toMatchObject({ sessionId: 's1', todos: [{ content: 'secret plan' }] });
    expect(results.noFiles.read.todos).toEqual([{ id: '1', content: 'secret plan', status: 'pending' }]);
    expect(results.noFiles.other.todos).toEqual([]);
    expect(JSON.stringify(results.noFiles)).not.toContain('curl');
    expect(results.noFiles.victimFile).toBe('precious\n');
    expect(results.noFiles.sharedTodo).toEqual(['s1.json']);
    expect(results.noFiles.state).toEqual(['planted.json']);
  });

  it('turns the manifest cache off for a folder another user made, says why, and writes nothing there', () => {
    expect(results.cache.warnings.join('\n')).toMatch(
      /manifest cache off: refusing to use \/tmp\/shared-cache for per-user state: it is owned by uid 65534/,
    );
    expect(results.cache.files).toEqual([]);
    expect(JSON.parse(results.cache.echo)).toEqual({ ok: 1 });
  });
});
