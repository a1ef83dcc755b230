/**
 * `toolshed explain --as IDENTITY` through the CLI's main() (test/helpers.ts's toolshedMain): which access rule an
 * identity (a subject,
 * or a JSON object of claims) falls under, and what it gets — the view, the approval policy, the
 * quotas — in text and `--json`; an identity no rule matches exits 1 with ACCESS_DENIED. How the
 * argument is read (a usage error without a subject), the summary and its wording (what calls a
 * minute do while the state store is down) are tested on the stage: test/unit/access.test.ts.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, tempDir, toolshedMain } from '../helpers.js';

const work = tempDir();
writeFileSync(path.join(work.dir, 'package.json'), '{"name":"cli-explain-as","private":true}');
const config = {
  builtins: false,
  cache: { enabled: false },
  plugins: [{ package: fixture('plugins', 'notes'), trust: 'trusted' }],
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
};
writeFileSync(path.join(work.dir, '.toolshedrc.json'), JSON.stringify(config));
afterAll(() => work.cleanup());

const explain = (...args: string[]) => toolshedMain(['explain', ...args], { cwd: work.dir });
const ENG = '{"sub":"erin","iss":"https://id.example","scope":"notes:read notes:write","groups":["ops","eng"]}';

describe('toolshed explain --as', () => {
  it('names the rule a JSON identity falls under, its approval policy and quotas, and its view', async () => {
    const result = await explain('--as', ENG);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("as erin (from https://id.example): access rule 'eng'");
    expect(result.stdout).toContain('  scopes:   notes:read notes:write');
    expect(result.stdout).toContain("  approval: read_note (the rule's approve, answered within 5000 ms)");
    expect(result.stdout).toContain(
      '  quota:    30 calls a minute (refused while the state store is unreachable), 2 running at once, 3 sessions',
    );
    expect(result.stdout).toContain("  reason:   disabled in access rule 'eng'");
    expect(result.stdout).toContain("  reason:   not in access rule 'eng' (enable: notes)");
  });

  it('takes a plain subject, and gives one tool with --json', async () => {
    const result = await explain('delete_note', '--as', 'admin-7', '--json');
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.access).toEqual({
      subject: 'admin-7',
      scopes: [],
      claims: { sub: 'admin-7' },
      rule: 'admins',
      approve: { tools: ['delete_note'], destructive: false, timeoutMs: 120000, from: 'host' },
      quota: {},
    });
    expect(out).toMatchObject({ name: 'delete_note', exposed: true, approval: 'listed' });
  });

  it('prints the whole report with --json, the tools as the identity sees them', async () => {
    const out = JSON.parse((await explain('--as', ENG, '--json')).stdout);
    expect(out.access).toMatchObject({
      subject: 'erin',
      issuer: 'https://id.example',
      rule: 'eng',
      quota: { callsPerMinute: 30, inFlight: 2, sessions: 3, onStoreDown: 'refuse' },
    });
    const tool = (name: string) => out.tools.find((t: { name: string }) => t.name === name);
    expect(tool('write_note')).toMatchObject({ exposed: false, reason: "disabled in access rule 'eng'" });
    expect(tool('read_note')).toMatchObject({ exposed: true, approval: 'listed' });
    expect(tool('delete_note')).toMatchObject({ exposed: false });
  });

  it('exits 1 with ACCESS_DENIED when no rule matches', async () => {
    const result = await explain('--as', '{"sub":"mallory","groups":["sales"]}');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    // The refusal names who was refused, and nothing of what the rules ask for.
    expect(result.stderr).toContain(
      'toolshed: ACCESS_DENIED: mallory may not use this host: no access rule matches it\n',
    );
    expect(result.stderr).not.toContain('eng');
  });
});
