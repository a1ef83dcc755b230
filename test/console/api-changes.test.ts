/**
 * The console's change events in words: what diffReports makes of two reports of one host (MCP servers, plugins, tools)
 * and of a changed MCP tool definition.
 */
import { describe, expect, it } from 'vitest';
import { definitionChange, diffReports } from '#internal/core/console/changes.js';
import type { HostReport } from 'toolshed';

type Plugin = HostReport['plugins'][number];
type Tool = HostReport['tools'][number];

const report = (plugins: Partial<Plugin>[], tools: Partial<Tool>[] = []) =>
  ({ plugins, tools }) as unknown as HostReport;
const server = (state: string, reason?: string): Partial<Plugin> => ({
  name: 'mcp:github',
  status: 'loaded',
  loadMs: 1,
  tools: 2,
  mcp: { transport: 'http', state, target: 'x', ...(reason ? { reason } : {}) } as Plugin['mcp'],
});

describe('console changes', () => {
  it('says when an MCP server goes away and comes back', () => {
    expect(diffReports(report([server('connected')]), report([server('unreachable', 'connection refused')]))).toEqual([
      {
        kind: 'server',
        name: 'mcp:github',
        from: 'connected',
        to: 'unreachable',
        text: 'mcp:github unreachable: connection refused',
      },
    ]);
    expect(diffReports(report([server('unreachable')]), report([server('connected')]))).toEqual([
      { kind: 'server', name: 'mcp:github', from: 'unreachable', to: 'connected', text: 'mcp:github connected' },
    ]);
  });

  it('says when a plugin fails or loads again, and nothing when nothing changed', () => {
    const loaded: Partial<Plugin> = { name: 'toolshed-plugin-x', status: 'loaded', loadMs: 5, tools: 3 };
    const failed: Partial<Plugin> = {
      name: 'toolshed-plugin-x',
      status: 'failed',
      loadMs: 2,
      error: { code: 'PLUGIN_LOAD_FAILED', message: 'boom' },
    };
    expect(diffReports(report([loaded]), report([failed]))).toEqual([
      {
        kind: 'plugin',
        name: 'toolshed-plugin-x',
        from: 'loaded',
        to: 'failed',
        text: 'failed: PLUGIN_LOAD_FAILED: boom',
      },
    ]);
    expect(diffReports(report([failed]), report([loaded]))).toEqual([
      { kind: 'plugin', name: 'toolshed-plugin-x', from: 'failed', to: 'loaded', text: 'loaded (3 tools)' },
    ]);
    expect(diffReports(report([loaded]), report([loaded]))).toEqual([]);
  });

  it('says which tool was hidden, and why', () => {
    const before = report([], [{ name: 'web_fetch', exposed: true }]);
    const after = report([], [{ name: 'web_fetch', exposed: false, reason: 'missing environment variable KEY' }]);
    expect(diffReports(before, after)).toEqual([
      {
        kind: 'tool',
        name: 'web_fetch',
        from: 'exposed',
        to: 'hidden',
        text: 'web_fetch hidden: missing environment variable KEY',
      },
    ]);
  });

  it('says a changed MCP tool definition is held until accepted', () => {
    expect(
      definitionChange({
        server: 'github',
        tool: 'create_issue',
        name: 'create_issue',
        kind: 'changed',
        mode: 'hold',
        acceptedAt: '2026-01-01T00:00:00Z',
        diff: [],
      }),
    ).toEqual({
      kind: 'definition',
      name: 'create_issue',
      text: 'definition changed on mcp:github: held (run toolshed accept)',
    });
  });
});
