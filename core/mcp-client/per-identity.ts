/**
 * The calls of an MCP server whose `credentials` are the caller's own, not the operator's
 * (docs/security.md#acting-for-the-caller). Each call gets a bearer token for the identity it is
 * made for: the caller's inbound token exchanged (RFC 8693) at the token endpoint the operator
 * configured or the operator's own issuer names (never one the server names), for a token minted
 * for this server (RFC 8707), or one the embedder's credentials provider supplies. Exchanged tokens are cached in
 * memory only, keyed by
 * a hash of the inbound token, until shortly before they expire. Calls go through a client per
 * token (so per identity), reused across calls and closed when idle and on host close; the
 * shared connection's probing and listing stay the operator's.
 */
import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { discoverAuthorizationServerMetadata, type Client } from '@modelcontextprotocol/client';
import { askProvider } from '../../boundary/credentials.js';
import { redactUrl, redactUrlsIn, withoutSecrets } from '../text/redact-url.js';
import type { McpConnection } from './connection.js';
import type { ServerRequests } from './server-requests.js';
import { secureEndpoint, type TokenExchange } from './config.js';
import type { CredentialProvider, Identity } from '../../boundary/identity.js';

/** The RFC 8693 grant, and the type of token both sides of it are. */
const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** An exchanged token is used until this long before it expires, so no call carries one that lapses on the way. */
const EXPIRY_MARGIN_MS = 30_000;
/** How long an exchanged token without `expires_in` is kept: short, since nothing says how long it lives. */
const UNDATED_TOKEN_MS = 60_000;
/** Exchanged tokens kept at most (one per inbound token); the oldest goes first. */
const MAX_CACHED_TOKENS = 1_000;
/** A caller's client unused this long is closed; the next call opens another. */
const CLIENT_IDLE_MS = 60_000;
/** The longest a token request may take (a discovery or exchange the call waits on). */
const EXCHANGE_TIMEOUT_MS = 30_000;
/** The token endpoint's answer is read up to this many bytes: a token response is small. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/** A token for the caller, or why there is none (in words; never a token). */
type CallerToken = { ok: true; token: string } | { ok: false; why: string };

/** The hex SHA-256 of a token: what the caches are keyed by, so no map holds a token as its key. */
function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** When the inbound token itself expires (its `exp` claim), in ms since the epoch; Infinity when it does not say. */
function inboundExpiry(identity: Identity): number {
  const exp = identity.claims.exp;
  return typeof exp === 'number' ? exp * 1000 : Number.POSITIVE_INFINITY;
}

/** The token endpoint's JSON answer, read up to MAX_TOKEN_RESPONSE_BYTES; undefined when it is longer or not JSON. */
async function tokenResponse(response: Response): Promise<Record<string, unknown> | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_TOKEN_RESPONSE_BYTES) {
      await response.body?.cancel();
      return undefined;
    }
    chunks.push(chunk);
  }
  try {
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Where a server's calls get their callers' tokens: an exchange, or the embedder's provider. */
export class CallerTokens {
  /** exchanged tokens by the digest of the inbound token, with when to stop using each */
  private readonly cache = new Map<string, { token: string; until: number }>();
  /** exchanges in flight by the same key: concurrent calls of one caller make one exchange */
  private readonly pending = new Map<string, Promise<CallerToken>>();
  private endpoint: Promise<URL> | undefined;

  constructor(
    private readonly server: {
      name: string;
      pluginName: string;
      url: URL;
      credentials: 'provider' | { exchange: TokenExchange };
    },
    /** the host's env, where the exchange's client secret is read from */
    private readonly env: Record<string, string | undefined>,
    private readonly provider: CredentialProvider | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token for `identity`'s call, or why there is none. */
  async token(identity: Identity | undefined, signal?: AbortSignal): Promise<CallerToken> {
    const { server } = this;
    if (!identity)
      return {
        ok: false,
        why:
          `the MCP server ${server.name} is called with each caller's own credentials, and this call is made for ` +
          `no identity`,
      };
    if (server.credentials === 'provider') {
      const answer = await askProvider(this.provider, {
        kind: 'token',
        name: server.name,
        plugin: server.pluginName,
        identity,
        ...(signal ? { signal } : {}),
      });
      return answer.ok ? { ok: true, token: answer.value } : answer;
    }
    if (!identity.token)
      return {
        ok: false,
        why:
          `the MCP server ${server.name} is called with ${identity.subject}'s token exchanged for one it ` +
          `accepts, and this call carries no token to exchange`,
      };
    const key = digest(identity.token);
    const cached = this.cache.get(key);
    if (cached && cached.until > this.now()) return { ok: true, token: cached.token };
    this.cache.delete(key);
    let exchanging = this.pending.get(key);
    if (!exchanging) {
      exchanging = this.exchange(server.credentials.exchange, identity, key).finally(() => this.pending.delete(key));
      this.pending.set(key, exchanging);
    }
    return exchanging;
  }

  /** RFC 8693: the caller's token for one this server accepts, kept until shortly before it expires. */
  private async exchange(settings: TokenExchange, identity: Identity, key: string): Promise<CallerToken> {
    const failed = (why: string): CallerToken => ({
      ok: false,
      why: `exchanging ${identity.subject}'s token for the MCP server ${this.server.name} failed: ${why}`,
    });
    let endpoint: URL;
    try {
      endpoint = await this.tokenEndpoint(settings);
    } catch (error) {
      this.endpoint = undefined;
      return failed(`no token endpoint: ${redactUrlsIn((error as Error)?.message ?? String(error))}`);
    }
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: identity.token!,
      subject_token_type: ACCESS_TOKEN_TYPE,
      requested_token_type: ACCESS_TOKEN_TYPE,
      audience: settings.audience,
      resource: withoutSecrets(this.server.url),
    });
    if (settings.scopes.length) body.set('scope', settings.scopes.join(' '));
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const secret = settings.clientSecretEnv === undefined ? undefined : this.env[settings.clientSecretEnv];
    if (settings.clientSecretEnv !== undefined && !secret)
      return failed(`the client secret's variable ${settings.clientSecretEnv} is not set`);
    if (settings.clientId !== undefined && secret)
      headers.authorization =
        `Basic ` +
        `${Buffer.from(`${encodeURIComponent(settings.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    else if (settings.clientId !== undefined) body.set('client_id', settings.clientId);
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers,
        body,
        redirect: 'error',
        signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
      });
    } catch (error) {
      return failed(
        `${redactUrl(endpoint)} is unreachable: ${redactUrlsIn((error as Error)?.message ?? String(error))}`,
      );
    }
    const answer = await tokenResponse(response);
    if (!response.ok) {
      // An OAuth error code is a short ASCII word (RFC 6749 5.2); anything else is not repeated.
      const code =
        typeof answer?.error === 'string' && /^[\x20-\x7e]{1,64}$/.test(answer.error)
          ? answer.error
          : `HTTP ${response.status}`;
      return failed(`the token endpoint refused it (${code})`);
    }
    const token = answer?.access_token;
    if (typeof token !== 'string' || !token) return failed('the token endpoint answered without an access_token');
    const refused = notMintedFor(token, identity.token!, [settings.audience, withoutSecrets(this.server.url)]);
    if (refused) return failed(refused);
    const expiresIn =
      typeof answer?.expires_in === 'number' ? answer.expires_in * 1000 : UNDATED_TOKEN_MS + EXPIRY_MARGIN_MS;
    const until = Math.min(this.now() + expiresIn, inboundExpiry(identity)) - EXPIRY_MARGIN_MS;
    if (until > this.now()) this.keep(key, token, until);
    return { ok: true, token };
  }

  private keep(key: string, token: string, until: number): void {
    if (this.cache.size >= MAX_CACHED_TOKENS) {
      const now = this.now();
      for (const [old, entry] of this.cache) if (entry.until <= now) this.cache.delete(old);
      if (this.cache.size >= MAX_CACHED_TOKENS) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(key, { token, until });
  }

  /** Drops every exchanged token (the host is closing). */
  forget(): void {
    this.cache.clear();
  }

  /**
   * The entry's token endpoint, else the one the operator's issuer (`serve.auth.issuer`) names in
   * its RFC 8414 / OpenID metadata (found once; again after a failure). Never one the MCP server's
   * own metadata names: a server that chose where its callers' tokens go could take them.
   */
  private tokenEndpoint(settings: TokenExchange): Promise<URL> {
    const { endpoint } = settings;
    if ('tokenEndpoint' in endpoint) return Promise.resolve(endpoint.tokenEndpoint);
    this.endpoint ??= issuerTokenEndpoint(endpoint.issuer);
    return this.endpoint;
  }
}

/**
 * The token endpoint the operator's issuer names in its metadata, checked: the metadata is that issuer's, the endpoint
 * https (or loopback http).
 */
async function issuerTokenEndpoint(issuer: string): Promise<URL> {
  let metadata: Awaited<ReturnType<typeof discoverAuthorizationServerMetadata>>;
  try {
    metadata = await discoverAuthorizationServerMetadata(issuer);
  } catch (error) {
    throw new Error(
      `could not read the metadata of serve.auth.issuer ${issuer}: ${(error as Error)?.message ?? String(error)}`,
    );
  }
  if (!metadata)
    throw new Error(
      `serve.auth.issuer ${issuer} publishes no metadata (RFC 8414 or OpenID discovery): set ` +
        `credentials.exchange.tokenEndpoint`,
    );
  if (sameIssuer(metadata.issuer, issuer) === false)
    throw new Error(`the metadata of serve.auth.issuer ${issuer} names another issuer`);
  const named = metadata.token_endpoint;
  if (!named)
    throw new Error(
      `the metadata of serve.auth.issuer ${issuer} names no token_endpoint: set credentials.exchange.tokenEndpoint`,
    );
  const url = new URL(named);
  if (!secureEndpoint(url))
    throw new Error(
      `the token endpoint serve.auth.issuer ${issuer} names is not https: set credentials.exchange.tokenEndpoint`,
    );
  return url;
}

/** RFC 8414 3.3: the metadata's issuer is the one asked for (a trailing slash aside). */
function sameIssuer(named: string, asked: string): boolean {
  return named.replace(/\/+$/, '') === asked.replace(/\/+$/, '');
}

/**
 * Why an exchanged token must not be sent to the server, or undefined when it may: it is the
 * caller's own token handed back (a passthrough), or a JWT whose `aud` names neither the audience
 * nor the resource asked for (a token for somewhere else). An opaque token is the server's to judge.
 */
export function notMintedFor(token: string, inbound: string, audiences: readonly string[]): string | undefined {
  if (token === inbound)
    return "the token endpoint handed back the caller's own token: toolshed passes no caller's token through";
  if (token.split('.').length !== 3) return undefined;
  let aud: unknown;
  try {
    aud = decodeJwt(token).aud;
  } catch {
    return undefined;
  }
  if (aud === undefined) return undefined;
  const named = (Array.isArray(aud) ? aud : [aud]).filter((value): value is string => typeof value === 'string');
  return named.some((value) => audiences.includes(value))
    ? undefined
    : 'the token endpoint answered with a token for another audience (RFC 8707): it is not sent';
}

/** One caller's client and the calls using it. */
interface CallerClient {
  connecting: Promise<{ client: Client; requests: ServerRequests }>;
  inFlight: number;
  idle?: NodeJS.Timeout;
}

/** Closes a caller's client (one that never connected has nothing to close). */
function closeClient(entry: CallerClient): Promise<void> {
  clearTimeout(entry.idle);
  return entry.connecting.then(({ client }) => client.close()).catch(() => {});
}

/**
 * The clients of a server's callers, one per token: reused across calls, closed after CLIENT_IDLE_MS unused and on
 * close.
 */
export class CallerClients {
  private readonly clients = new Map<string, CallerClient>();
  private closed = false;

  constructor(private readonly link: McpConnection) {}

  /**
   * The client whose requests carry `token`, connected (one made on first use), held for one call
   * until `release` is called. Rejects when it cannot connect (the token refused, the server down).
   */
  async acquire(token: string): Promise<{ client: Client; requests: ServerRequests; release(broken?: boolean): void }> {
    if (this.closed) throw new Error('the host is closed');
    const key = digest(token);
    let entry = this.clients.get(key);
    if (!entry) {
      entry = { connecting: this.link.connectWith({ Authorization: `Bearer ${token}` }), inFlight: 0 };
      this.clients.set(key, entry);
    }
    const held = entry;
    clearTimeout(held.idle);
    held.inFlight++;
    try {
      const { client, requests } = await held.connecting;
      return { client, requests, release: (broken) => this.release(key, held, broken) };
    } catch (error) {
      this.release(key, held, true);
      throw error;
    }
  }

  /**
   * One call is done with `entry`. A broken one (its transport failed) is no longer handed out, and
   * closed once its last call is done; an unused one is closed after CLIENT_IDLE_MS.
   */
  private release(key: string, entry: CallerClient, broken = false): void {
    entry.inFlight--;
    if (broken && this.clients.get(key) === entry) this.clients.delete(key);
    if (entry.inFlight > 0 || this.closed) return;
    if (this.clients.get(key) !== entry) return void closeClient(entry);
    entry.idle = setTimeout(() => {
      if (this.clients.get(key) === entry) this.clients.delete(key);
      void closeClient(entry);
    }, CLIENT_IDLE_MS);
    entry.idle.unref();
  }

  /** Closes every caller's client. */
  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(entries.map(closeClient));
  }
}
