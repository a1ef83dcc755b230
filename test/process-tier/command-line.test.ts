/**
 * The child's command line on this Node: the permission model's spelling, and
 * `--allow-net` only for a plugin granted the network, only where Node has it
 * (Node 25+). The network tests (test/security/network.test.ts) show what each gives.
 */
import { describe, expect, it } from 'vitest';
import { childCommand } from '#internal/core/runners/process/spawn.js';

const flags = process.allowedNodeEnvironmentFlags;
const command = (network: boolean) =>
  childCommand({ childEntry: '/child-main.js', readPaths: ['/r'], writePaths: [], memoryMb: 64, network, cwd: '/' });

describe('the child command line', () => {
  it('spells the permission model as this Node does', () => {
    const { args } = command(false);
    expect(args).toContain(flags.has('--permission') ? '--permission' : '--experimental-permission');
  });

  it('passes --allow-net only with the network grant, and only on a Node that has it', () => {
    expect(command(false).args).not.toContain('--allow-net');
    expect(command(true).args.includes('--allow-net')).toBe(flags.has('--allow-net'));
  });

  it('reports netPermission exactly when Node itself refuses the network', () => {
    expect(command(false).protections.netPermission).toBe(flags.has('--allow-net'));
    expect(command(true).protections.netPermission).toBe(false);
  });
});
