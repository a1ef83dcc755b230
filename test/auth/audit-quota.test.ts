/**
 * A call its identity's quota refuses (QUOTA_EXCEEDED, counted before anything else runs) gets
 * its audit line like any other refusal, naming who was refused and the access rule they fell under.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createToolHost } from 'toolshed';
import { fixtureOptions, tempDir } from '../helpers.js';

const logs = tempDir('toolshed-audit-quota-');
afterAll(() => logs.cleanup());

it('writes the QUOTA_EXCEEDED line of a call over its quota', async () => {
  const log = path.join(logs.dir, 'quota.jsonl');
  const host = await createToolHost(
    fixtureOptions(['notes'], {
      config: { audit: { to: log }, access: [{ name: 'metered', quota: { callsPerMinute: 1 } }] },
    }),
  );
  const alice = host.as({ subject: 'alice', scopes: [], claims: {} });
  try {
    await alice.dispatch('read_note', { id: 'a' });
    expect(JSON.parse(await alice.dispatch('read_note', { id: 'b' }))).toMatchObject({ code: 'QUOTA_EXCEEDED' });
  } finally {
    await alice.close();
    await host.close();
  }
  const lines = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(lines.map((line) => [line.tool, line.code, line.identity?.subject, line.rule])).toEqual([
    ['read_note', 'OK', 'alice', 'metered'],
    ['read_note', 'QUOTA_EXCEEDED', 'alice', 'metered'],
  ]);
});
