/**
 * Access rules against the claims a real authorization server puts in its tokens (oidc-provider,
 * test/support/oauth.ts): `toolshed explain --as` takes a token's claims as they are, and the
 * rule that matches them (by groups claim and scope) is the one `host.as` applies.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, suiteHome, tempDir } from '../helpers.js';
import { startAuthServer, type AuthServer } from '../support/oauth.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const AUDIENCE = 'http://127.0.0.1:7777/mcp';
const work = tempDir();
writeFileSync(path.join(work.dir, 'package.json'), '{"name":"access-tokens","private":true}');
writeFileSync(
  path.join(work.dir, '.toolshedrc.json'),
  JSON.stringify({
    builtins: false,
    cache: { enabled: false },
    plugins: [{ package: fixture('plugins', 'notes'), trust: 'trusted' }],
    access: [{ name: 'eng-writers', when: { claims: { groups: 'eng' }, scopes: ['tools:write'] }, enable: ['notes'] }],
  }),
);
const env = { ...suiteHome(), PATH: process.env.PATH ?? '' };

let auth: AuthServer;
beforeAll(async () => {
  auth = await startAuthServer({ accounts: { alice: { groups: ['eng', 'ops'] }, bob: { groups: ['sales'] } } });
}, 60_000);
afterAll(async () => {
  await auth?.close();
  work.cleanup();
});

/** The claims of a token `user` gets from the authorization server, as `--as` JSON. */
async function claimsOf(user: string, scope: string): Promise<string> {
  const { accessToken } = await auth.userToken({ user, audience: AUDIENCE, scope });
  return JSON.stringify(await auth.verify(accessToken, AUDIENCE));
}

const explain = (...args: string[]) => spawnSync(process.execPath, [BIN, 'explain', ...args, '--json'], { cwd: work.dir, encoding: 'utf8', env, timeout: 60_000 });

describe('access rules and real tokens', () => {
  it("matches a token's groups claim and scope as the authorization server issued them", async () => {
    const result = explain('--as', await claimsOf('alice', 'openid tools:read tools:write'));
    expect(result.status).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.access).toMatchObject({ subject: 'alice', issuer: auth.issuer, rule: 'eng-writers' });
    expect(out.access.scopes).toEqual(expect.arrayContaining(['tools:read', 'tools:write']));
    expect(out.tools.find((t: { name: string }) => t.name === 'delete_note')).toMatchObject({ exposed: false, reason: "not in access rule 'eng-writers' (enable: notes)" });
  }, 60_000);

  it('refuses the same user with a token that lacks the scope, and a user outside the group', async () => {
    const narrow = explain('--as', await claimsOf('alice', 'openid tools:read'));
    expect(narrow.status).toBe(1);
    expect(narrow.stderr).toContain('toolshed: ACCESS_DENIED: alice may not use this host: no access rule matches it');
    const bob = explain('--as', await claimsOf('bob', 'openid tools:read tools:write'));
    expect(bob.status).toBe(1);
    expect(bob.stderr).toContain('toolshed: ACCESS_DENIED: bob may not use this host');
  }, 60_000);
});
