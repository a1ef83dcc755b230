/**
 * What a first-party plugin's own code enforces comes from its package.json
 * (`toolshed.firstParty`), read for the plugins toolshed ships only: a
 * third-party plugin making the same claims is shown as what it is, a trusted
 * plugin whose grants nothing enforces. Through a real host and its explain.
 */
import { describe, expect, it } from 'vitest';
import { createToolHost } from 'toolshed';
import { fixtureOptions } from '../helpers.js';

describe('first-party claims', () => {
  it("ignores a third-party plugin's package.json claiming first-party enforcement", async () => {
    const host = await createToolHost(fixtureOptions(['claims']));
    try {
      const report = host.explain();
      const claims = report.plugins.find((p) => p.name === 'toolshed-plugin-claims')!;
      expect(claims.permissions?.enforced).toEqual({
        fs: 'declared, not enforced',
        network: 'declared, not enforced',
        env: 'declared, not enforced',
      });
      expect(report.protection.notInForce).toContainEqual(
        expect.stringMatching(/^toolshed-plugin-claims \(trusted, may write .*\): its code runs unsandboxed/),
      );
      expect(report.protection.resources['toolshed-plugin-claims']).toBeUndefined();
    } finally {
      await host.close();
    }
  });

  it('reads the claims of the plugins toolshed ships', async () => {
    const host = await createToolHost({ ...fixtureOptions([]), config: { cache: { enabled: false } } });
    try {
      const report = host.explain();
      const file = report.plugins.find((p) => p.name === '@toolshed/file')!;
      expect(file.permissions?.enforced.fs).toMatchObject({
        by: 'plugin',
        how: expect.stringContaining('every path is checked by real path'),
      });
      const terminal = report.plugins.find((p) => p.name === '@toolshed/terminal')!;
      // Sandboxed or not on this machine, the terminal's line is about its commands, with a note either way.
      expect(terminal.permissions?.enforced.note).toMatch(/terminal/);
      expect(report.protection.writable.length).toBeGreaterThan(0);
    } finally {
      await host.close();
    }
  });
});
