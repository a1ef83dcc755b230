/**
 * An identity from a token's claims, as `serve.auth` reads a verified JWT: the subject from
 * `sub` (or the claim `serve.auth.subjectClaim` names), the issuer from `iss`, the scopes from
 * `scope` split at spaces (or an `scp` list). `toolshed explain --as` builds its identity so.
 */
import type { Identity } from '../../boundary/identity.js';

/**
 * The scopes a token's claims grant: `scope` ("a b", RFC 9068), else `scp` (a list or a string, as some servers issue
 * it).
 */
function scopesOf(claims: Readonly<Record<string, unknown>>): string[] {
  const granted = claims.scope ?? claims.scp;
  if (typeof granted === 'string') return granted.split(' ').filter(Boolean);
  return Array.isArray(granted) ? granted.filter((scope): scope is string => typeof scope === 'string') : [];
}

/** The identity `claims` name; undefined when the subject claim is missing or not a non-empty string. */
export function identityFromClaims(
  claims: Readonly<Record<string, unknown>>,
  subjectClaim = 'sub',
): Identity | undefined {
  const subject = claims[subjectClaim];
  if (typeof subject !== 'string' || subject === '') return undefined;
  const identity: Identity = { subject, scopes: scopesOf(claims), claims };
  if (typeof claims.iss === 'string') identity.issuer = claims.iss;
  return identity;
}
