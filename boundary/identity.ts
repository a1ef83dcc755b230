/**
 * Who a call is for, and the credentials an embedder supplies per identity. Types only: the
 * boundary holds them because every side reads them (dispatch, the MCP client acting for a
 * caller, the MCP server that checks tokens), and the package's public types stop here.
 */

/**
 * Who a call is made for: the person or service behind the request, as an authorization server
 * vouched for them (`serve.auth` checks the token), or as an embedder says (`host.as(identity)`).
 * It decides what the caller sees and may call (config `access`), is counted for quotas and named
 * in the audit log (config `audit`), and is what per-identity credentials are looked up for.
 */
export interface Identity {
  /** who it is: the token's `sub` (or the claim `serve.auth.subjectClaim` names) */
  subject: string;
  /** the authorization server that vouched for it (the token's `iss`), when one did */
  issuer?: string;
  /** the scopes it was granted (the token's `scope`, split at spaces) */
  scopes: readonly string[];
  /** every claim of its token (or what the embedder supplied); access rules match on them */
  claims: Readonly<Record<string, unknown>>;
  /**
   * The bearer token the caller presented, used only to exchange it for a token a remote MCP
   * server accepts on the caller's behalf (RFC 8693; `mcpServers.NAME.credentials`). Hooks,
   * approvers, plugins and the audit log never see it.
   */
  token?: string;
}

/** An identity as hooks, approvers and the audit log see it: everything but its token. */
export type CallerIdentity = Omit<Identity, 'token'>;

/**
 * What a credentials provider is asked for: a per-identity secret a plugin declared
 * (`kind: 'secret'`, `name` the secret's name), or a token for a remote MCP server used on the
 * caller's behalf (`kind: 'token'`, `name` the server's config name).
 */
export interface CredentialRequest {
  kind: 'secret' | 'token';
  /** the secret's or the server's name */
  name: string;
  /** the plugin that declared the secret (`mcp:NAME` for a server) */
  plugin: string;
  /** who the call is made for */
  identity: Identity;
  /** aborted when the call is */
  signal?: AbortSignal;
}

/**
 * Supplies per-identity credentials (`createToolHost({ credentials })`): a token store, a vault, a
 * token exchange of the embedder's own. Undefined means this identity has none, and the call
 * fails with CREDENTIALS_UNAVAILABLE. docs/security.md#acting-for-the-caller says what trusting it means.
 */
export type CredentialProvider = (request: CredentialRequest) => string | undefined | Promise<string | undefined>;
