/**
 * Who an MCP request is for. With `serve.auth`, `serve --http` verifies the
 * request's bearer token (auth.ts) and hands the SDK an `AuthInfo` that
 * carries the caller's `Identity`; the handlers read it back from the
 * request's context, and sessions, held calls and quotas are keyed by the
 * caller's owner key. Without `serve.auth` a request has no caller.
 */
import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';
import type { Identity } from '../../boundary/identity.js';

/** Where the identity rides in `AuthInfo.extra`. */
const IDENTITY_KEY = 'toolshedIdentity';

/** `info` (a verified token's) carrying `identity`, as the SDK passes it to the request's handlers. */
export function withIdentity(info: AuthInfo, identity: Identity): AuthInfo {
  return { ...info, extra: { ...info.extra, [IDENTITY_KEY]: identity } };
}

/** The identity a verified request carries, or undefined when the server checks no tokens. */
export function identityOf(info: AuthInfo | undefined): Identity | undefined {
  return info?.extra?.[IDENTITY_KEY] as Identity | undefined;
}

/** The identity of the request a handler answers. */
export function callerOf(ctx: ServerContext): Identity | undefined {
  return identityOf(ctx.http?.authInfo);
}

/**
 * What a session or held call records as its owner: the identity's issuer and subject (two
 * authorization servers may have a subject of the same name); '' for no identity.
 */
export function ownerKey(identity: Pick<Identity, 'issuer' | 'subject'> | undefined): string {
  return identity ? JSON.stringify([identity.issuer ?? '', identity.subject]) : '';
}
