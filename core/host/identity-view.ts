/**
 * What `host.as(identity)` gives: the identity's `access` rule (the first that matches) as a
 * view — its enable, disable and defer narrowing the parent's selection, its approve replacing
 * the approval policy, its quota — or ACCESS_DENIED when there are rules and none matches.
 * Without rules every identity gets the whole host.
 */
import { ToolshedError } from '../../boundary/errors.js';
import { ApprovalPolicy } from '../call/approval.js';
import { resolveApprove, type ResolvedConfig } from '../config/config.js';
import { matchRule } from '../access/rules.js';
import type { Identity } from '../../boundary/identity.js';
import type { Registry } from '../expose/registry.js';
import type { RuleQuota } from '../access/quota.js';
import type { ViewOptions } from './tool-host.js';

/** An identity's rule, ready to open as a view. */
export interface AccessView {
  /** the rule's enable, disable and defer */
  options: ViewOptions;
  /** its name (`eng`, or `rule 2`), as the audit log gives it */
  rule: string;
  /** how reasons and errors name it: `access rule 'eng'` */
  label: string;
  /** the rule's own approval policy, when it has an `approve` */
  approval?: ApprovalPolicy;
  /** the rule's quota, when it has one */
  quota?: RuleQuota;
}

/**
 * Throws a TypeError for an identity that is not one: rules would otherwise match it by accident, or fail deep inside.
 */
function checkIdentity(identity: Identity): void {
  if (typeof identity?.subject !== 'string' || identity.subject === '')
    throw new TypeError('as(): identity.subject must be a non-empty string');
  if (!Array.isArray(identity.scopes) || identity.scopes.some((scope) => typeof scope !== 'string'))
    throw new TypeError('as(): identity.scopes must be an array of strings');
  if (typeof identity.claims !== 'object' || identity.claims === null)
    throw new TypeError('as(): identity.claims must be an object');
}

/** The view `identity` gets under `config.access`; undefined without rules; throws ACCESS_DENIED when none matches. */
export function accessView(identity: Identity, registry: Registry, config: ResolvedConfig): AccessView | undefined {
  checkIdentity(identity);
  if (!config.access.length) return undefined;
  const matched = matchRule(config.access, identity);
  // The refusal names who was refused, never what the rules ask for.
  if (!matched)
    throw new ToolshedError('ACCESS_DENIED', `${identity.subject} may not use this host: no access rule matches it`, {
      subject: identity.subject,
    });
  const { rule, name } = matched;
  const label = `access rule '${name}'`;
  const options: ViewOptions = {};
  if (rule.enable) options.enable = rule.enable;
  if (rule.disable) options.disable = rule.disable;
  if (rule.defer !== undefined) options.defer = rule.defer;
  const view: AccessView = { options, rule: name, label };
  if (rule.approve !== undefined)
    view.approval = new ApprovalPolicy(
      resolveApprove(rule.approve, config.approve.timeoutMs),
      registry,
      config,
      `the approve of ${label}`,
    );
  if (rule.quota && (rule.quota.callsPerMinute !== undefined || rule.quota.inFlight !== undefined))
    view.quota = { rule: name, limits: rule.quota };
  return view;
}
