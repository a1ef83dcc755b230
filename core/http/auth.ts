/**
 * `serve.auth`: `toolshed serve --http` as an OAuth 2.1 resource server (MCP
 * authorization). Every request to `/mcp` carries `Authorization: Bearer
 * <JWT>` issued by the operator's authorization server: jose checks its
 * signature against the issuer's keys (the JWKS that `serve.auth.jwksUri`
 * names, else the one the issuer's RFC 8414 or OpenID metadata names, fetched
 * when first needed and cached), its issuer, audience, expiry and algorithm;
 * then the SDK's bearer helpers check the scopes `serve.auth.scopes` requires.
 * A request without a valid token is answered 401 (403 for a missing scope)
 * with `WWW-Authenticate: Bearer … resource_metadata="…"` naming toolshed's
 * RFC 9728 protected resource metadata, served without a token, which names
 * the issuer: that is how an MCP client finds where to log in. A verified
 * token becomes the caller's `Identity`, carried to the handlers (caller.ts).
 */
import type { IncomingMessage } from 'node:http';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/client';
import { systemClock } from '../state/clock.js';
import type { Clock } from '../state/clock.js';
import {
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  oauthMetadataResponse,
  verifyBearerToken,
  type AuthInfo,
  type AuthMetadataOptions,
  type OAuthMetadata,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { ConfigError } from '../../boundary/errors.js';
import { withIdentity } from './caller.js';
import { identityFromClaims } from '../access/claims.js';
import type { Identity } from '../../boundary/identity.js';
import type { ServeAuthConfig } from '../config/public-types.js';

/** The JWS algorithms accepted when `serve.auth.algorithms` names none. */
const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];

/** Seconds of clock difference tolerated on `exp` and `nbf` when `serve.auth.clockToleranceSec` is not set. */
const DEFAULT_CLOCK_TOLERANCE_SEC = 5;

/** Where protected resource metadata lives (RFC 9728): this path, with the resource's path appended or not. */
const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The resource server of one `serve --http` endpoint. */
export interface ResourceServer {
  /** the resource identifier tokens are for by default, and the metadata names: the public URL, else the bound one */
  readonly resource: string;
  /** the URL of the protected resource metadata, named in every challenge */
  readonly metadataUrl: string;
  /**
   * the metadata document when `req` asks for it (any path under `/.well-known/oauth-protected-resource`), else
   * undefined
   */
  metadata(req: IncomingMessage): Response | undefined;
  /** the verified token of an `Authorization` header, carrying its identity; else the challenge to answer with */
  authenticate(header: string | undefined): Promise<AuthInfo | Response>;
}

/** What the protected resource document of `resource` is built from. */
function documentOptions(auth: ServeAuthConfig, resource: string): AuthMetadataOptions {
  return {
    // The protected resource document reads only the issuer of the authorization server's metadata.
    oauthMetadata: { issuer: auth.issuer } as OAuthMetadata,
    resourceServerUrl: new URL(resource),
    resourceName: 'toolshed',
    ...(auth.scopes?.length ? { scopesSupported: auth.scopes } : {}),
  };
}

/**
 * Checks `auth` before anything listens: a ConfigError unless the issuer is an https URL (http only for localhost and
 * 127.0.0.1).
 */
export function checkAuth(auth: ServeAuthConfig): void {
  try {
    buildOAuthProtectedResourceMetadata(documentOptions(auth, 'http://localhost/mcp'));
  } catch (error) {
    throw new ConfigError(
      `serve.auth.issuer: ${(error as Error).message} (http:// only for localhost and 127.0.0.1), got '${auth.issuer}'`,
      { pointer: '/serve/auth/issuer' },
    );
  }
}

/**
 * The resource server for `auth` (checked with checkAuth) at `resource` (an http(s) URL). Keys
 * are fetched on the first request; a failure to get them answers 500 and is told to `onError`.
 */
export function resourceServer(
  auth: ServeAuthConfig,
  resource: string,
  onError: (error: unknown) => void,
  clock: Clock = systemClock,
): ResourceServer {
  const metadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(resource));
  const document = documentOptions(auth, resource);
  const verifier = new JwtVerifier(auth, resource, clock);
  const challenge = { requiredScopes: auth.scopes ?? [], resourceMetadataUrl: metadataUrl };
  return {
    resource,
    metadataUrl,
    metadata(req) {
      if (!new URL(req.url ?? '/', 'http://localhost').pathname.startsWith(METADATA_PATH)) return undefined;
      // Asked at any of its paths, it answers as at its own; a method a Request cannot carry gets the 405 a POST gets.
      const method = ['GET', 'HEAD', 'OPTIONS'].includes(req.method ?? '') ? req.method! : 'POST';
      const asked = req.headers['access-control-request-headers'];
      return oauthMetadataResponse(
        new Request(metadataUrl, {
          method,
          headers: typeof asked === 'string' ? { 'access-control-request-headers': asked } : {},
        }),
        document,
      );
    },
    async authenticate(header) {
      try {
        return await verifyBearerToken(header, { verifier, ...challenge });
      } catch (error) {
        if (error instanceof OAuthError && error.code === OAuthErrorCode.ServerError) onError(error);
        return bearerAuthChallengeResponse(error, challenge);
      }
    },
  };
}

/** Checks access tokens that are JWTs signed by the issuer's keys (RFC 9068), with jose. */
class JwtVerifier implements OAuthTokenVerifier {
  private keys: Promise<JWTVerifyGetKey> | undefined;
  private readonly tolerance: number;

  constructor(
    private readonly auth: ServeAuthConfig,
    /** the audience when `auth.audience` names none */
    private readonly resource: string,
    /** what `exp` and `nbf` are checked against */
    private readonly clock: Clock,
  ) {
    this.tolerance = auth.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC;
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const keys = await this.signingKeys();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.auth.issuer,
        audience: this.auth.audience ?? this.resource,
        algorithms: this.auth.algorithms ?? DEFAULT_ALGORITHMS,
        clockTolerance: this.tolerance,
        currentDate: new Date(this.clock.now()),
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw refusal(error);
    }
    const identity = identityFrom(payload, token, this.auth.subjectClaim ?? 'sub');
    const clientId = payload.client_id ?? payload.azp;
    return withIdentity(
      // The bearer helper refuses a token past expiresAt with no tolerance: jose already applied the operator's.
      {
        token,
        clientId: typeof clientId === 'string' ? clientId : '',
        scopes: [...identity.scopes],
        expiresAt: payload.exp! + this.tolerance,
      },
      identity,
    );
  }

  /** The issuer's keys: from `jwksUri`, else from its metadata, looked up once (again after a failure). */
  private signingKeys(): Promise<JWTVerifyGetKey> {
    this.keys ??= this.jwksUrl().then(remoteKeys);
    this.keys.catch(() => {
      this.keys = undefined;
    });
    return this.keys;
  }

  private async jwksUrl(): Promise<URL> {
    if (this.auth.jwksUri !== undefined) return new URL(this.auth.jwksUri);
    let metadata: Awaited<ReturnType<typeof discoverAuthorizationServerMetadata>>;
    try {
      metadata = await discoverAuthorizationServerMetadata(this.auth.issuer);
    } catch (error) {
      throw new OAuthError(
        OAuthErrorCode.ServerError,
        `could not read the metadata of the authorization server ${this.auth.issuer}: ${(error as Error).message}`,
      );
    }
    if (!metadata?.jwks_uri) {
      throw new OAuthError(
        OAuthErrorCode.ServerError,
        `the authorization server ${this.auth.issuer} publishes no metadata naming its keys (RFC 8414 or ` +
          `OpenID discovery): set serve.auth.jwksUri`,
      );
    }
    return new URL(metadata.jwks_uri);
  }
}

/** The keys at `url` (cached and refreshed by jose); failing to fetch them is the server's error, not the token's. */
function remoteKeys(url: URL): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(url);
  return async (header, input) => {
    try {
      return await remote(header, input);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
      throw new OAuthError(
        OAuthErrorCode.ServerError,
        `could not get the authorization server's signing keys from ${url.href}: ${(error as Error).message}`,
      );
    }
  };
}

/** Why a token is refused: jose's word for what is wrong with it (401), or the server's own failure (500). */
function refusal(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof errors.JWTExpired) return new OAuthError(OAuthErrorCode.InvalidToken, 'Token has expired');
  if (error instanceof errors.JOSEError)
    return new OAuthError(OAuthErrorCode.InvalidToken, `Invalid token: ${error.message}`);
  return new OAuthError(OAuthErrorCode.ServerError, `could not verify the token: ${(error as Error).message}`);
}

/** The caller a verified token names: its subject claim, issuer, scopes and claims, and the token itself. */
function identityFrom(payload: JWTPayload, token: string, subjectClaim: string): Identity {
  const identity = identityFromClaims(payload, subjectClaim);
  if (!identity)
    throw new OAuthError(OAuthErrorCode.InvalidToken, `Invalid token: no "${subjectClaim}" claim names its caller`);
  return { ...identity, token };
}
