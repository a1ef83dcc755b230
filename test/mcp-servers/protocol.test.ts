/**
 * The MCP revision toolshed speaks to each server: 2026-07-28 to a server that answers
 * server/discover, the 2025 handshake to the rest, as `protocol` says; the probe runs in the
 * server's own sandboxed process, and a server that exits on it is started again without it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolHost } from 'toolshed';
import { tempDir } from '../helpers.js';
import { DYNAMIC, MODERN, server, serversHost } from './setup.js';

const hosts: ToolHost[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function open(...args: Parameters<typeof serversHost>): Promise<ToolHost> {
  const host = await serversHost(...args);
  hosts.push(host);
  return host;
}

describe('protocol revisions', () => {
  it('speaks 2026-07-28 to a server that offers it, and the 2025 handshake to one that does not (protocol: auto)', async () => {
    const host = await open({
      modern: { command: 'node', args: [MODERN], prefix: 'modern_' },
      v1: { command: 'node', args: [DYNAMIC] },
      old: { command: 'node', args: [MODERN, 'legacy'] },
    });
    const report = host.explain();
    expect(server(report, 'modern')).toMatchObject({ state: 'connected', protocolVersion: '2026-07-28' });
    expect(server(report, 'v1')).toMatchObject({ state: 'connected', protocolVersion: '2025-11-25' });
    expect(server(report, 'old')).toMatchObject({ state: 'connected', protocolVersion: '2025-11-25' });
    expect(await host.dispatch('era', {})).toBe('modern');
    expect(await host.dispatch('plain', {})).toBe('plain answered (2025-11-25)');
  });

  it("'legacy' skips the probe; '2026-07-28' refuses a server that does not offer it, saying so", async () => {
    const host = await open({
      pinned: { command: 'node', args: [MODERN], protocol: 'legacy' },
      insisting: { command: 'node', args: [MODERN, 'legacy'], protocol: '2026-07-28' },
    });
    expect(server(host.explain(), 'pinned')).toMatchObject({ state: 'connected', protocolVersion: '2025-11-25' });
    expect(await host.dispatch('era', {})).toBe('legacy');
    // The failed server is retried with a backoff: on a loaded machine a retry may be connecting as explain looks, and
    // then fails again.
    await expect
      .poll(() => server(host.explain(), 'insisting'), { timeout: 20_000 })
      .toMatchObject({
        state: 'handshake failed',
        reason: expect.stringMatching(
          /^the MCP server insisting could not agree on an MCP revision \(protocol: 2026-07-28\): .*2026-07-28/,
        ),
      });
  });

  it('probes in the one sandboxed process it starts: no second process beside it', async () => {
    const scratch = tempDir('toolshed-probe-');
    cleanups.push(scratch.cleanup);
    const count = path.join(scratch.dir, 'starts.log');
    const host = await open({
      modern: {
        command: 'node',
        args: [MODERN],
        env: { COUNT_FILE: count },
        trust: 'untrusted',
        grant: { fsWrite: [scratch.dir] },
      },
    });
    expect(server(host.explain(), 'modern')).toMatchObject({
      state: 'connected',
      protocolVersion: '2026-07-28',
      restarts: 0,
    });
    expect(server(host.explain(), 'modern').protections?.permissionModel).toBe(true);
    expect(readFileSync(count, 'utf8')).toBe('started serve\n');
  });

  it('starts a server that exits on the probe again, in the 2025 era, at once', async () => {
    const scratch = tempDir('toolshed-probe-');
    cleanups.push(scratch.cleanup);
    const count = path.join(scratch.dir, 'starts.log');
    const logs: string[] = [];
    const host = await open({
      strict: {
        command: 'node',
        args: [MODERN, 'strict'],
        env: { COUNT_FILE: count },
        grant: { fsWrite: [scratch.dir] },
      },
    });
    host.on('log', (entry) => logs.push(entry.message));
    expect(server(host.explain(), 'strict')).toMatchObject({
      state: 'connected',
      protocolVersion: '2025-11-25',
      restarts: 0,
    });
    expect(await host.dispatch('era', {})).toBe('legacy');
    expect(readFileSync(count, 'utf8')).toBe('started strict\nstarted strict\n');
  });
});
