/**
 * Which `access` rule an identity falls under: the first whose `when` holds. A rule without
 * `when` is for everyone. Subjects match exactly or by `*` pattern; scopes must all be granted;
 * a claim matches when it equals the value (or one of the listed values), or, for an array
 * claim (groups, roles), when it contains one.
 */
import type { AccessRule } from '../config/public-types.js';
import type { Identity } from '../../boundary/identity.js';

/** A rule and the name it goes by in explain and in the reasons of the tools it hides. */
export interface MatchedRule {
  rule: AccessRule;
  /** its `name`, else `rule N` (its position from 1) */
  name: string;
}

/** The name a rule goes by: its own, or its position. */
function ruleName(rule: AccessRule, index: number): string {
  return rule.name ?? `rule ${index + 1}`;
}

/** The first rule `identity` falls under, or undefined when none does. */
export function matchRule(rules: readonly AccessRule[], identity: Identity): MatchedRule | undefined {
  const index = rules.findIndex((rule) => holds(rule.when, identity));
  return index < 0 ? undefined : { rule: rules[index]!, name: ruleName(rules[index]!, index) };
}

function holds(when: AccessRule['when'], identity: Identity): boolean {
  if (!when) return true;
  if (when.subject !== undefined && ![when.subject].flat().some((pattern) => wildcard(pattern).test(identity.subject)))
    return false;
  if (when.scopes && !when.scopes.every((scope) => identity.scopes.includes(scope))) return false;
  for (const [claim, wanted] of Object.entries(when.claims ?? {})) {
    const values = [wanted].flat();
    const actual = identity.claims[claim];
    const present = Array.isArray(actual) ? actual : [actual];
    if (!present.some((value) => values.includes(value as never))) return false;
  }
  return true;
}

/** A `*` pattern as a whole-string regular expression. */
function wildcard(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}
