/**
 * Access rules against the claims a real authorization server puts in its tokens (oidc-provider,
 * test/support/oauth.ts): `toolshed explain --as` takes a token's claims as they are, and the
 * rule that matches them (by groups claim and scope) is the one `host.as` applies. The matching
 * itself, claims of every shape: test/unit/access.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityFromClaims } from '#internal/core/access/claims.js';
import { fixture, fixtureOptions, suiteHome, tempDir, withHost } from '../helpers.js';
import { startAuthServer, type AuthServer } from '../support/oauth.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const AUDIENCE = 'http://127.0.0.1:7777/mcp';
const work = tempDir();
writeFileSync(path.join(work.dir, 'package.json'), '{"name":"access-tokens","private":true}');
const CONFIG = {
  builtins: false,
  plugins: [{ package: fixture('plugins', 'notes'), trust: 'trusted' }],
  access: [{ name: 'eng-writers', when: { claims: { groups: 'eng' }, scopes: ['tools:write'] }, enable: ['notes'] }],
};
writeFileSync(path.join(work.dir, '.toolshedrc.json'), JSON.stringify(CONFIG));
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

const explain = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, 'explain', ...args, '--json'], {
    cwd: work.dir,
    encoding: 'utf8',
    env,
    timeout: 60_000,
  });

describe('access rules and real tokens', () => {
  it("matches a token's groups claim and scope as the authorization server issued them", async () => {
    const result = explain('--as', await claimsOf('alice', 'openid tools:read tools:write'));
    expect(result.status).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.access).toMatchObject({ subject: 'alice', issuer: auth.issuer, rule: 'eng-writers' });
    expect(out.access.scopes).toEqual(expect.arrayContaining(['tools:read', 'tools:write']));
    expect(out.tools.find((t: { name: string }) => t.name === 'delete_note')).toMatchObject({
      exposed: false,
      reason: "not in access rule 'eng-writers' (enable: notes)",
    });
  }, 60_000);

  // The refusal as the CLI prints it: access-explain.test.ts. Here the rule is matched against the
  // real tokens' claims, read as explain --as and serve.auth read them, by host.as.
  it('refuses the same user with a token that lacks the scope, and a user outside the group', async () => {
    const identity = async (user: string, scope: string) =>
      identityFromClaims(JSON.parse(await claimsOf(user, scope)))!;
    const narrow = await identity('alice', 'openid tools:read');
    const bob = await identity('bob', 'openid tools:read tools:write');
    await withHost(fixtureOptions(['notes'], { config: { access: CONFIG.access } }), async (host) => {
      expect(() => host.as(narrow)).toThrow(
        expect.objectContaining({
          code: 'ACCESS_DENIED',
          message: 'alice may not use this host: no access rule matches it',
        }),
      );
      expect(() => host.as(bob)).toThrow(
        expect.objectContaining({
          code: 'ACCESS_DENIED',
          message: expect.stringContaining('bob may not use this host'),
        }),
      );
      // The same claims with the scope do match.
      const view = host.as(await identity('alice', 'openid tools:read tools:write'));
      await view.close();
    });
  }, 60_000);
});
