/**
 * `toolshed explain --as IDENTITY`: who IDENTITY is (a subject, or a JSON object of a token's
 * claims), which `access` rule it falls under, and what that rule gives it besides its view:
 * the approval policy and the quotas.
 */
import { UsageError } from '../../boundary/errors.js';
import { identityFromClaims } from '../access/claims.js';
import { matchRule } from '../access/rules.js';
import { resolveApprove, type ResolvedConfig } from '../config/config.js';
import type { AccessQuota } from '../config/public-types.js';
import type { Identity } from '../../boundary/identity.js';
import type { Style } from './style.js';

/** What an identity gets, as `explain --as --json` prints it under `access`. */
export interface AccessSummary {
  subject: string;
  issuer?: string;
  scopes: readonly string[];
  claims: Readonly<Record<string, unknown>>;
  /** the matching rule's name; null when the config has no rules (everyone gets the whole host) */
  rule: string | null;
  /** the approval policy its calls are under: its rule's, else the host's */
  approve: ResolvedConfig['approve'] & { from: 'rule' | 'host' };
  /** its rule's quota (none: unlimited); with `callsPerMinute`, `onStoreDown` as in force (default 'refuse') */
  quota: AccessQuota;
}

/** The identity `--as` names: `alice`, or `{"sub":"alice","scope":"a b","groups":["eng"]}`. */
export function identityArgument(value: string, config: ResolvedConfig): Identity {
  const subjectClaim = config.serve.auth?.subjectClaim ?? 'sub';
  if (!value.trimStart().startsWith('{')) return { subject: value, scopes: [], claims: { [subjectClaim]: value } };
  let claims: unknown;
  try {
    claims = JSON.parse(value);
  } catch (error) {
    throw new UsageError(`--as: not valid JSON: ${(error as Error).message}`);
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims))
    throw new UsageError('--as takes a subject or a JSON object of claims');
  const identity = identityFromClaims(claims as Record<string, unknown>, subjectClaim);
  if (!identity) throw new UsageError(`--as: the claims need a non-empty string '${subjectClaim}' (the subject)`);
  return identity;
}

/**
 * What `identity` gets under `config` (call after `host.as(identity)` succeeded, so a rule matches when there are
 * rules).
 */
export function accessSummary(identity: Identity, config: ResolvedConfig): AccessSummary {
  const matched = matchRule(config.access, identity);
  const rule = matched?.rule;
  const approve =
    rule?.approve !== undefined
      ? { ...resolveApprove(rule.approve, config.approve.timeoutMs), from: 'rule' as const }
      : { ...config.approve, from: 'host' as const };
  return {
    subject: identity.subject,
    ...(identity.issuer !== undefined ? { issuer: identity.issuer } : {}),
    scopes: identity.scopes,
    claims: identity.claims,
    rule: matched?.name ?? null,
    approve,
    // What calls a minute do while the store cannot count them is said even when the rule leaves it to the default.
    quota:
      rule?.quota?.callsPerMinute !== undefined
        ? { ...rule.quota, onStoreDown: rule.quota.onStoreDown ?? 'refuse' }
        : (rule?.quota ?? {}),
  };
}

/** The lines above `explain --as`'s report. */
export function renderAccess(access: AccessSummary, s: Style): string {
  const who = `${s.bold(access.subject)}${access.issuer ? ` (from ${access.issuer})` : ''}`;
  const out = [
    access.rule === null
      ? `as ${who}: the config has no access rules, so every identity gets the whole host`
      : `as ${who}: access rule '${access.rule}'`,
  ];
  out.push(`  scopes:   ${access.scopes.join(' ') || 'none'}`);
  const { approve } = access;
  const needs = [
    ...(approve.tools.length ? [approve.tools.join(', ')] : []),
    ...(approve.destructive ? ['every tool that may be destructive'] : []),
  ];
  const source = approve.from === 'rule' ? "the rule's approve" : "the host's approve";
  const approval = needs.length
    ? `${needs.join('; ')} (${source}, answered within ${approve.timeoutMs} ms)`
    : `none (${source})`;
  out.push(`  approval: ${approval}`);
  const { callsPerMinute, inFlight, sessions } = access.quota;
  const quota = [
    ...(callsPerMinute !== undefined
      ? [
          `${callsPerMinute} calls a minute (` +
            `${access.quota.onStoreDown === 'allow' ? 'let through uncounted' : 'refused'} while the state store ` +
            `is unreachable)`,
        ]
      : []),
    ...(inFlight !== undefined ? [`${inFlight} running at once`] : []),
    ...(sessions !== undefined ? [`${sessions} sessions`] : []),
  ];
  out.push(`  quota:    ${quota.join(', ') || 'none'}`);
  return out.join('\n');
}
