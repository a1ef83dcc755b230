/**
 * toolshed as the OAuth client of one remote MCP server, on the SDK's `auth()`: discovery
 * (RFC 9728, RFC 8414), the client (a configured id, else a client ID metadata document, else
 * dynamic registration), authorization code with PKCE, resource indicators (RFC 8707) and scopes
 * as the SDK chooses them, and refresh. Its state is the server's file (oauth-state.ts).
 *
 * Two uses. `toolshed auth NAME` logs in (a `Login`: the loopback redirect and the browser step).
 * A host only uses what that stored: it sends the access token, refreshes it before a call once
 * it has expired (and on a 401), and never opens a browser or registers a client; a server with
 * no tokens, or whose refresh was refused (the tokens are then dropped), is `NeedsAuthorization`,
 * which hides it with a reason naming `toolshed auth NAME`.
 */
import { randomBytes } from 'node:crypto';
import {
  auth,
  extractWWWAuthenticateParams,
  type AuthProvider,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { McpOAuthSettings } from '../config/config.js';
import type { ServerAuth } from '../runners/connection-report.js';
import { oauthFetch } from './oauth-fetch.js';
import { keptTokens, type OAuthState, type KeptTokens } from './oauth-state.js';
import { systemClock } from '../state/clock.js';
import type { Clock } from '../state/clock.js';

/** What the transport hands `onUnauthorized`: the 401 response among it. */
type UnauthorizedContext = Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

/** An access token is refreshed this long before it expires, so a call never carries one that expires on the way. */
const REFRESH_EARLY_MS = 2_000;

/** The reason a server with no tokens is hidden with. */
const needsAuthorizationReason = (name: string) => `needs authorization: run toolshed auth ${name}`;
/** The reason a server whose refresh was refused (or whose token was rejected with no refresh token) is hidden with. */
const expiredReason = (name: string) => `authorization expired or was revoked: run toolshed auth ${name}`;

/** The server needs a login a host cannot do: `toolshed auth NAME` can. */
class NeedsAuthorization extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'NeedsAuthorization';
  }
}

/** The `NeedsAuthorization` behind an error (the SDK may wrap it), with its reason; undefined for any other error. */
export function needsAuthorization(error: unknown): { reason: string } | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++)
    if (e instanceof NeedsAuthorization) return e;
  return undefined;
}

/** The browser step of `toolshed auth`: where the authorization server redirects to, and what to do with its URL. */
export interface Login {
  redirectUrl: string;
  /** the `state` the redirect must carry back */
  state: string;
  /** shows the authorization URL to the person (prints it, opens a browser) */
  open(url: URL): void;
}

/** One server as its OAuth client sees it. */
export interface OAuthServer {
  name: string;
  url: URL;
  settings: McpOAuthSettings;
  /** the environment the client secret (`settings.clientSecretEnv`) is read from */
  env: Record<string, string | undefined>;
  /** what token expiry is read against (default the real clock) */
  clock?: Clock;
}

/** The OAuth client of one server, backed by its state file. */
export class ServerOAuth implements OAuthClientProvider {
  /** the step of a login under way, for the message of a failure */
  step = 'discovering the authorization server';
  readonly clientMetadataUrl?: string;
  private verifier = '';
  /** the issuer a configured client id was last used with (the SDK stamps client information with it) */
  private configuredIssuer: string | undefined;
  private refreshing: Promise<void> | undefined;
  /** why the tokens were dropped in a host (a refused refresh): every request says so until a login stores new ones */
  private revoked: string | undefined;

  constructor(
    private readonly server: OAuthServer,
    readonly store: OAuthState,
    private readonly login?: Login,
  ) {
    if (server.settings.clientMetadataUrl) this.clientMetadataUrl = server.settings.clientMetadataUrl;
  }

  /** The loopback redirect of the login; in a host, the last login's (never listened on: a host never redirects). */
  get redirectUrl(): string {
    // A host never redirects, but the SDK needs one to take the interactive (code) flow for refreshes.
    return this.login?.redirectUrl ?? `http://127.0.0.1:${this.store.read().redirectPort ?? 0}/callback`;
  }

  /** What dynamic registration registers: a public client (unless a secret is configured) on the loopback redirect. */
  get clientMetadata(): OAuthClientMetadata {
    const secret = this.secret();
    const scopes = this.server.settings.scopes;
    return {
      client_name: 'toolshed',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_basic' : 'none',
      ...(scopes?.length ? { scope: scopes.join(' ') } : {}),
    };
  }

  /** The `state` the redirect must carry back. */
  state(): string {
    return this.login?.state ?? randomBytes(16).toString('base64url');
  }

  /** The configured client, else the one registered (or named by a metadata document) and kept. */
  clientInformation(): StoredOAuthClientInformation | undefined {
    const client = this.configuredClient() ?? this.store.read().client;
    if (client) this.step = 'requesting authorization';
    return client;
  }

  /** The client id of the config (with its secret from the environment), or undefined. */
  private configuredClient(): StoredOAuthClientInformation | undefined {
    const { clientId } = this.server.settings;
    if (!clientId) return undefined;
    const secret = this.secret();
    return {
      client_id: clientId,
      ...(secret ? { client_secret: secret } : {}),
      ...(this.configuredIssuer ? { issuer: this.configuredIssuer } : {}),
    };
  }

  /** Keeps a registered client in the file; a configured one only gets its issuer stamp, in memory. */
  saveClientInformation(client: StoredOAuthClientInformation): void {
    this.step = 'requesting authorization';
    // A configured client (and its secret) stays in the config and the environment, never in the file.
    if (this.server.settings.clientId) this.configuredIssuer = client.issuer;
    else this.store.update((record) => ({ ...record, client }));
  }

  /** The tokens kept. */
  tokens(): StoredOAuthTokens | undefined {
    return this.store.read().tokens;
  }

  /** Keeps new tokens, with when the access token expires. */
  saveTokens(tokens: StoredOAuthTokens): void {
    this.store.update((record) => ({ ...record, tokens: keptTokens(tokens, this.now()) }));
  }

  /** The login shows the URL; a host cannot, and says the server needs `toolshed auth`. */
  redirectToAuthorization(url: URL): void {
    if (!this.login)
      throw new NeedsAuthorization(
        this.revoked ?? `could not refresh its token: run toolshed auth ${this.server.name} if this lasts`,
      );
    this.step = 'waiting for the browser login';
    this.login.open(url);
  }

  /** Holds the PKCE verifier of the login under way. */
  saveCodeVerifier(verifier: string): void {
    // Kept in memory: the login that made it is the process that redeems the code.
    this.verifier = verifier;
  }

  /** The PKCE verifier of the login under way. */
  codeVerifier(): string {
    return this.verifier;
  }

  /** Keeps what discovery found: the authorization server (the one the tokens stay bound to) and its endpoints. */
  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.step = 'registering toolshed as a client';
    this.store.update((record) => ({ ...record, discovery }));
  }

  /** What discovery found at the last login. */
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.store.read().discovery;
  }

  /** Drops what the authorization server refused (tokens after `invalid_grant`, a client after `invalid_client`). */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') {
      this.verifier = '';
      return;
    }
    if (!this.login && (scope === 'all' || scope === 'tokens')) this.revoked = expiredReason(this.server.name);
    if (!this.store.file) return;
    this.store.update((record) => {
      const next = { ...record };
      if (scope === 'all' || scope === 'tokens') delete next.tokens;
      if (scope === 'all' || scope === 'client') delete next.client;
      if (scope === 'all' || scope === 'discovery') delete next.discovery;
      return next;
    });
  }

  /** The configured client's secret, from the environment. */
  private secret(): string | undefined {
    const name = this.server.settings.clientSecretEnv;
    return name ? this.server.env[name] : undefined;
  }

  /**
   * Runs the SDK's flow: a refresh when tokens are kept (unless `fresh`), else discovery, registration and the
   * authorization request or the code's redemption.
   */
  run(
    options: { code?: string; iss?: string; resourceMetadataUrl?: URL; fresh?: boolean } = {},
  ): ReturnType<typeof auth> {
    const scope = this.server.settings.scopes?.join(' ');
    return auth(this, {
      serverUrl: this.server.url,
      fetchFn: oauthFetch(),
      ...(scope ? { scope } : {}),
      ...(options.code !== undefined ? { authorizationCode: options.code } : {}),
      ...(options.iss !== undefined ? { iss: options.iss } : {}),
      ...(options.resourceMetadataUrl ? { resourceMetadataUrl: options.resourceMetadataUrl } : {}),
      ...(options.fresh ? { forceReauthorization: true } : {}),
    });
  }

  /** What explain shows: authorized until when, with which scopes; never a token. */
  summary(): ServerAuth {
    const tokens = this.store.read().tokens;
    if (!tokens) return { state: 'needs authorization' };
    return {
      state: 'authorized',
      ...(tokens.expires_at !== undefined ? { expiresAt: new Date(tokens.expires_at).toISOString() } : {}),
      ...(tokens.scope ? { scopes: tokens.scope.split(' ').filter(Boolean) } : {}),
      refreshable: tokens.refresh_token !== undefined,
    };
  }

  /**
   * The transport's side in a host: the access token before each request (refreshed first once expired), and a refresh
   * on a 401.
   */
  transportAuth(): AuthProvider {
    return { token: () => this.accessToken(), onUnauthorized: (context) => this.unauthorized(context) };
  }

  private async accessToken(): Promise<string | undefined> {
    const tokens = this.store.read().tokens;
    // Dropped after a refused refresh: no request goes out without a token to be refused again.
    if (!tokens && this.revoked) throw new NeedsAuthorization(this.revoked);
    if (!tokens) return undefined;
    this.revoked = undefined;
    if (expired(tokens, this.now()) && tokens.refresh_token) await this.refresh();
    return this.store.read().tokens?.access_token;
  }

  private async unauthorized(context: UnauthorizedContext): Promise<void> {
    const tokens = this.store.read().tokens;
    if (!tokens) throw new NeedsAuthorization(this.revoked ?? needsAuthorizationReason(this.server.name));
    if (!tokens.refresh_token) {
      this.invalidateCredentials('tokens');
      throw new NeedsAuthorization(expiredReason(this.server.name));
    }
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(context.response);
    await this.refresh(resourceMetadataUrl);
  }

  private now(): number {
    return (this.server.clock ?? systemClock).now();
  }

  /**
   * One refresh at a time (a rotated refresh token is good for one use); a refused one drops the tokens and throws
   * `NeedsAuthorization`.
   */
  private refresh(resourceMetadataUrl?: URL): Promise<void> {
    this.refreshing ??= (async () => {
      // A host registers no client: without one (tokens imported without their client id), only a login helps.
      if (!this.clientInformation())
        throw new NeedsAuthorization(
          `its tokens cannot be refreshed without a client id (oauth.clientId, or client_id in the imported ` +
            `tokens): run toolshed auth ${this.server.name}`,
        );
      await this.run(resourceMetadataUrl ? { resourceMetadataUrl } : {});
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }
}

/** Whether the access token has expired, or will within REFRESH_EARLY_MS, at `now`. */
export function expired(tokens: KeptTokens, now: number): boolean {
  return tokens.expires_at !== undefined && tokens.expires_at - REFRESH_EARLY_MS <= now;
}
