/**
 * The token checks of `serve.auth` (core/http/auth.ts) on the stage: what an
 * `Authorization` header must carry to become the caller's identity, and the answer for each
 * way a token can be wrong. The issuer's keys are a JWKS in a `data:` URL (fetched without a
 * socket) and time is a ManualClock, so expiry is tested by moving it. What a client sees over
 * real HTTP against a real authorization server (the challenge leading it to log in, a token
 * refused mid-session) is in test/auth/serve-auth*.test.ts.
 */
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkAuth, resourceServer } from '#internal/core/http/auth.js';
import { identityOf } from '#internal/core/http/caller.js';
import { ManualClock } from '../helpers.js';

const ISSUER = 'https://issuer.example';
const RESOURCE = 'http://127.0.0.1:8080/mcp';
const NOW_SEC = 2_000_000_000;

let signing: CryptoKey;
let stranger: CryptoKey;
let jwks: { keys: JWK[] };

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signing = pair.privateKey;
  stranger = (await generateKeyPair('ES256')).privateKey;
  jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] };
});

/**
 * A token signed with `key` (the issuer's by default), for RESOURCE, valid for an hour from NOW_SEC, with `claims` over
 * the defaults.
 */
function token(claims: Record<string, unknown> = {}, key: CryptoKey = signing, alg = 'ES256'): Promise<string> {
  return new SignJWT({ scope: 'tools:read tools:call', ...claims })
    .setProtectedHeader({ alg, kid: 'k1' })
    .setIssuer(typeof claims.iss === 'string' ? claims.iss : ISSUER)
    .setSubject(typeof claims.sub === 'string' ? claims.sub : 'alice')
    .setAudience((claims.aud as string | undefined) ?? RESOURCE)
    .setIssuedAt(NOW_SEC)
    .setExpirationTime((claims.exp as number | undefined) ?? NOW_SEC + 3600)
    .sign(key);
}

/**
 * The resource server for `auth` over the test issuer's keys, at time `clock`; `errors` collects what it tells the
 * operator.
 */
function server(auth: Record<string, unknown> = {}, clock = new ManualClock(NOW_SEC * 1000)) {
  const errors: unknown[] = [];
  const jwksUri = `data:application/json,${encodeURIComponent(JSON.stringify(jwks))}`;
  return {
    rs: resourceServer({ issuer: ISSUER, jwksUri, ...auth }, RESOURCE, (error) => errors.push(error), clock),
    errors,
    clock,
  };
}

/** The refusal an authenticate answer is: its status and its WWW-Authenticate header. */
function refused(answer: unknown): { status: number; challenge: string } {
  if (!(answer instanceof Response)) throw new Error(`expected a refusal, got ${JSON.stringify(answer)}`);
  return { status: answer.status, challenge: answer.headers.get('www-authenticate') ?? '' };
}

describe('a valid token', () => {
  it("becomes the caller's identity: subject, issuer, scopes and claims, with the token kept for delegation", async () => {
    const { rs } = server();
    const jwt = await token({ tenant: 'acme' });
    const info = await rs.authenticate(`Bearer ${jwt}`);
    if (info instanceof Response) throw new Error(`refused: ${info.status}`);
    expect(info).toMatchObject({ token: jwt, scopes: ['tools:read', 'tools:call'], expiresAt: NOW_SEC + 3600 + 5 });
    expect(identityOf(info)).toMatchObject({
      subject: 'alice',
      issuer: ISSUER,
      scopes: ['tools:read', 'tools:call'],
      claims: { tenant: 'acme' },
      token: jwt,
    });
  });

  it('names its caller by serve.auth.subjectClaim when set, and is refused when that claim is missing', async () => {
    const { rs } = server({ subjectClaim: 'email' });
    const info = await rs.authenticate(`Bearer ${await token({ email: 'alice@example.com' })}`);
    expect(identityOf(info as never)?.subject).toBe('alice@example.com');
    const missing = refused(await rs.authenticate(`Bearer ${await token()}`));
    expect(missing).toMatchObject({
      status: 401,
      challenge: expect.stringContaining('no \\"email\\" claim names its caller'),
    });
  });

  it('is accepted for an audience serve.auth.audience names instead of the resource', async () => {
    const { rs } = server({ audience: ['https://tools.example/mcp'] });
    expect(
      identityOf((await rs.authenticate(`Bearer ${await token({ aud: 'https://tools.example/mcp' })}`)) as never)
        ?.subject,
    ).toBe('alice');
    expect(refused(await rs.authenticate(`Bearer ${await token()}`)).status).toBe(401);
  });
});

describe('a request refused 401, with the challenge that names the protected resource metadata', () => {
  const metadata = 'resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"';

  it('without a token, or with a header that is not a bearer token', async () => {
    const { rs } = server();
    for (const header of [undefined, '', 'Basic YWxpY2U6c2VjcmV0', 'Bearer']) {
      const answer = refused(await rs.authenticate(header));
      expect(answer.status, String(header)).toBe(401);
      expect(answer.challenge).toContain(metadata);
    }
  });

  it('for a token of another audience, another issuer, or signed with a key the issuer does not publish', async () => {
    const { rs, errors } = server();
    for (const jwt of [
      await token({ aud: 'https://elsewhere.example/mcp' }),
      await token({ iss: 'https://attacker.example' }),
      await token({}, stranger),
    ]) {
      const answer = refused(await rs.authenticate(`Bearer ${jwt}`));
      expect(answer).toMatchObject({ status: 401, challenge: expect.stringContaining('error="invalid_token"') });
      expect(answer.challenge).toContain(metadata);
    }
    expect(errors).toEqual([]);
  });

  it('for an algorithm serve.auth.algorithms does not allow', async () => {
    const { rs } = server({ algorithms: ['RS256'] });
    expect(refused(await rs.authenticate(`Bearer ${await token()}`))).toMatchObject({
      status: 401,
      challenge: expect.stringContaining('invalid_token'),
    });
  });

  it('once it expired, after the clock tolerance (5 s unless serve.auth.clockToleranceSec says)', async () => {
    const { rs, clock } = server();
    const jwt = await token({ exp: NOW_SEC + 60 });
    clock.advance(64_000);
    expect(identityOf((await rs.authenticate(`Bearer ${jwt}`)) as never)?.subject).toBe('alice');
    clock.advance(2_000);
    expect(refused(await rs.authenticate(`Bearer ${jwt}`))).toMatchObject({
      status: 401,
      challenge: expect.stringContaining('Token has expired'),
    });
    const lenient = server({ clockToleranceSec: 30 }, clock);
    expect(identityOf((await lenient.rs.authenticate(`Bearer ${jwt}`)) as never)?.subject).toBe('alice');
  });

  it('for a token without an expiry', async () => {
    const { rs } = server();
    const jwt = await new SignJWT({ sub: 'alice' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .sign(signing);
    expect(refused(await rs.authenticate(`Bearer ${jwt}`))).toMatchObject({
      status: 401,
      challenge: expect.stringContaining('invalid_token'),
    });
  });
});

describe('a request refused 403', () => {
  it('for a valid token without a scope serve.auth.scopes requires, naming the scope', async () => {
    const { rs } = server({ scopes: ['tools:admin'] });
    expect(refused(await rs.authenticate(`Bearer ${await token()}`))).toMatchObject({
      status: 403,
      challenge: expect.stringMatching(/error="insufficient_scope".*scope="tools:admin"/),
    });
    expect(
      identityOf((await rs.authenticate(`Bearer ${await token({ scope: 'tools:admin' })}`)) as never)?.subject,
    ).toBe('alice');
  });
});

describe("the issuer's keys", () => {
  it('that cannot be read answer 500 and are told to the operator, not blamed on the token', async () => {
    const errors: unknown[] = [];
    const rs = resourceServer(
      { issuer: ISSUER, jwksUri: 'data:application/json,not-json' },
      RESOURCE,
      (error) => errors.push(error),
      new ManualClock(NOW_SEC * 1000),
    );
    expect(refused(await rs.authenticate(`Bearer ${await token()}`)).status).toBe(500);
    expect(errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining("could not get the authorization server's signing keys"),
      }),
    ]);
  });
});

describe('serve.auth.issuer', () => {
  it('is an https URL, or http for localhost and 127.0.0.1 only (CONFIG_INVALID at /serve/auth/issuer)', () => {
    expect(() => checkAuth({ issuer: 'https://issuer.example' })).not.toThrow();
    expect(() => checkAuth({ issuer: 'http://127.0.0.1:9000' })).not.toThrow();
    expect(() => checkAuth({ issuer: 'http://issuer.example' })).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        data: expect.objectContaining({ pointer: '/serve/auth/issuer' }),
      }),
    );
  });
});

describe('the protected resource metadata', () => {
  it('is served at its well-known path without a token and names the issuer; other paths are not it', async () => {
    const { rs } = server({ scopes: ['tools:call'] });
    const request = (url: string, method = 'GET') => ({ url, method, headers: {} }) as never;
    expect(rs.metadata(request('/mcp'))).toBeUndefined();
    const answer = rs.metadata(request('/.well-known/oauth-protected-resource/mcp'));
    expect(answer?.status).toBe(200);
    expect(await answer!.json()).toMatchObject({
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      scopes_supported: ['tools:call'],
    });
    expect(rs.metadata(request('/.well-known/oauth-protected-resource', 'DELETE'))?.status).toBe(405);
  });
});
