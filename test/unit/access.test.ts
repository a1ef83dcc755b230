/**
 * Access rules on the stage: which rule an identity falls under (core/access/rules.ts), the
 * identity a token's claims name (core/access/claims.ts), and what `toolshed explain --as` says an
 * identity gets (core/cli/explain-as.ts: the identity argument, the summary, its lines). Views of
 * a host under the rules: test/auth/access-rules.test.ts; the command through the real CLI:
 * test/auth/access-explain.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Identity } from 'toolshed';
import { identityFromClaims } from '#internal/core/access/claims.js';
import { matchRule } from '#internal/core/access/rules.js';
import { accessSummary, identityArgument, renderAccess } from '#internal/core/cli/explain-as.js';
import { PLAIN } from '#internal/core/cli/style.js';
import { resolvedConfig } from '../support/registry-fixture.js';

const who = (subject: string, extra: Partial<Identity> = {}): Identity => ({
  subject,
  scopes: [],
  claims: { sub: subject },
  ...extra,
});

/** The rules of test/auth/access-explain.test.ts. */
const config = resolvedConfig({
  approve: ['delete_note'],
  access: [
    { name: 'admins', when: { subject: 'admin-*' } },
    {
      name: 'eng',
      when: { claims: { groups: 'eng' } },
      enable: ['notes'],
      disable: ['write_note'],
      approve: { tools: ['read_note'], timeoutMs: 5000 },
      quota: { callsPerMinute: 30, inFlight: 2, sessions: 3 },
    },
    { name: 'batch', when: { subject: 'batch-*' }, quota: { callsPerMinute: 100, onStoreDown: 'allow' } },
  ],
});
const ENG = '{"sub":"erin","iss":"https://id.example","scope":"notes:read notes:write","groups":["ops","eng"]}';

describe('matchRule', () => {
  const rules = [
    { name: 'readers', when: { subject: ['carol', 'dave'] } },
    { name: 'admins', when: { subject: 'admin-*' } },
    { name: 'eng', when: { claims: { groups: 'eng' } } },
    { when: { scopes: ['notes:read', 'notes:write'] } },
  ];
  const ruleOf = (identity: Identity) => matchRule(rules, identity)?.name;

  it('matches a subject exactly, from a list, or by a * pattern over the whole subject', () => {
    expect(ruleOf(who('dave'))).toBe('readers');
    expect(ruleOf(who('admin-1'))).toBe('admins');
    expect(ruleOf(who('admin-'))).toBe('admins');
    expect(ruleOf(who('xadmin-1'))).toBeUndefined();
    expect(ruleOf(who('carolyn'))).toBeUndefined();
  });

  it('matches a claim by value, and an array claim when it contains the value', () => {
    expect(ruleOf(who('erin', { claims: { sub: 'erin', groups: ['ops', 'eng'] } }))).toBe('eng');
    expect(ruleOf(who('erin', { claims: { sub: 'erin', groups: 'eng' } }))).toBe('eng');
    expect(ruleOf(who('erin', { claims: { sub: 'erin', groups: ['sales'] } }))).toBeUndefined();
  });

  it('needs every scope the rule lists, and names an unnamed rule by its position', () => {
    expect(ruleOf(who('frank', { scopes: ['notes:read', 'notes:write', 'other'] }))).toBe('rule 4');
    expect(ruleOf(who('frank', { scopes: ['notes:read'] }))).toBeUndefined();
  });

  it('lets the first rule that matches decide; a rule without when is for everyone', () => {
    expect(ruleOf(who('dave', { claims: { sub: 'dave', groups: ['eng'] } }))).toBe('readers');
    expect(ruleOf(who('admin-2', { claims: { sub: 'admin-2', groups: ['eng'] } }))).toBe('admins');
    expect(matchRule([{ name: 'all' }, ...rules], who('anyone'))?.name).toBe('all');
  });
});

describe('identityFromClaims', () => {
  it('reads the subject, the issuer, and the scopes from scope or scp', () => {
    expect(identityFromClaims({ sub: 'erin', iss: 'https://id.example', scope: 'a  b' })).toEqual({
      subject: 'erin',
      issuer: 'https://id.example',
      scopes: ['a', 'b'],
      claims: { sub: 'erin', iss: 'https://id.example', scope: 'a  b' },
    });
    expect(identityFromClaims({ sub: 'erin', scp: ['a', 7, 'b'] })?.scopes).toEqual(['a', 'b']);
    expect(identityFromClaims({ oid: 'x-1' }, 'oid')?.subject).toBe('x-1');
    expect(identityFromClaims({ sub: '' })).toBeUndefined();
    expect(identityFromClaims({ sub: 7 })).toBeUndefined();
  });
});

describe('explain --as', () => {
  it('takes a plain subject, or a JSON object of claims', () => {
    expect(identityArgument('admin-7', config)).toEqual({ subject: 'admin-7', scopes: [], claims: { sub: 'admin-7' } });
    expect(identityArgument(ENG, config)).toMatchObject({
      subject: 'erin',
      issuer: 'https://id.example',
      scopes: ['notes:read', 'notes:write'],
    });
  });

  it('is a usage error for claims without a subject, for JSON that does not parse, and for JSON that is not an object', () => {
    expect(() => identityArgument('{"groups":["eng"]}', config)).toThrow(
      expect.objectContaining({
        name: 'UsageError',
        message: "--as: the claims need a non-empty string 'sub' (the subject)",
      }),
    );
    expect(() => identityArgument('{"sub":', config)).toThrow(
      expect.objectContaining({ name: 'UsageError', message: expect.stringMatching(/^--as: not valid JSON: /) }),
    );
    expect(() => identityArgument(' {} ', config)).toThrow(/the claims need a non-empty string 'sub'/);
  });

  it("sums up what the identity gets: its rule, its rule's approval policy, its quotas with onStoreDown as in force", () => {
    const eng = accessSummary(identityArgument(ENG, config), config);
    expect(eng).toMatchObject({
      subject: 'erin',
      issuer: 'https://id.example',
      rule: 'eng',
      approve: { tools: ['read_note'], destructive: false, timeoutMs: 5000, from: 'rule' },
      quota: { callsPerMinute: 30, inFlight: 2, sessions: 3, onStoreDown: 'refuse' },
    });
    expect(accessSummary(identityArgument('admin-7', config), config)).toEqual({
      subject: 'admin-7',
      scopes: [],
      claims: { sub: 'admin-7' },
      rule: 'admins',
      approve: { tools: ['delete_note'], destructive: false, timeoutMs: 120000, from: 'host' },
      quota: {},
    });
    expect(accessSummary(who('anyone'), resolvedConfig({})).rule).toBeNull();
  });

  it('words the rule, the scopes, the approval policy and the quotas, and what calls a minute do while the store is down', () => {
    const text = renderAccess(accessSummary(identityArgument(ENG, config), config), PLAIN);
    expect(text.split('\n')).toEqual([
      "as erin (from https://id.example): access rule 'eng'",
      '  scopes:   notes:read notes:write',
      "  approval: read_note (the rule's approve, answered within 5000 ms)",
      '  quota:    30 calls a minute (refused while the state store is unreachable), 2 running at once, 3 sessions',
    ]);
    expect(renderAccess(accessSummary(identityArgument('batch-1', config), config), PLAIN)).toContain(
      '  quota:    100 calls a minute (let through uncounted while the state store is unreachable)',
    );
    expect(renderAccess(accessSummary(who('anyone'), resolvedConfig({})), PLAIN).split('\n')).toEqual([
      'as anyone: the config has no access rules, so every identity gets the whole host',
      '  scopes:   none',
      "  approval: none (the host's approve)",
      '  quota:    none',
    ]);
  });
});
