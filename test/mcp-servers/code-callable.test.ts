/**
 * `mcpServers.<name>.codeCallable` makes a server's tools callable from execute_code; `sandbox`,
 * its older name, stays accepted until toolshed 2 (docs/mcp-servers.md), and the two disagreeing
 * is a config error rather than a silent pick.
 */
import { describe, expect, it } from 'vitest';
import { ToolshedError } from 'toolshed';
import { resolveConfig } from '#internal/core/config/config.js';
import { resolveServers } from '#internal/core/mcp-client/config.js';

const resolve = (entry: Record<string, unknown>) =>
  resolveServers(
    resolveConfig({ mcpServers: { gh: { command: 'node', args: ['server.js'], ...entry } } }, undefined, '/project', 2),
  )[0]!;

describe('mcpServers.<name>.codeCallable', () => {
  it('is off by default, and set by codeCallable or by its older name sandbox', () => {
    expect(resolve({}).codeCallable).toBe(false);
    expect(resolve({ codeCallable: true }).codeCallable).toBe(true);
    expect(resolve({ sandbox: true }).codeCallable).toBe(true);
    expect(resolve({ codeCallable: true, sandbox: true }).codeCallable).toBe(true);
  });

  it('refuses codeCallable and sandbox that disagree, naming both', () => {
    let error: unknown;
    try {
      resolve({ codeCallable: false, sandbox: true });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ToolshedError);
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
    expect((error as Error).message).toMatch(/mcpServers\.gh: codeCallable and its older name sandbox disagree/);
  });
});
