/**
 * execute_code with deferred tools: its description declares only the loaded
 * tools plus tools.search, and one script can find a deferred tool and call it.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { PluginEntry, ToolHost, ToolHostOptions, ToolshedConfig } from 'toolshed';
import { fixtureOptions, withHost } from '../helpers.js';

const CODE_PLUGIN = fileURLToPath(new URL('../../plugins/code-execution', import.meta.url));
const options = (config: Record<string, unknown>): ToolHostOptions => {
  const base = fixtureOptions(['catalog'], { config });
  const fixtureConfig = base.config as ToolshedConfig;
  const plugins: PluginEntry[] = [{ package: CODE_PLUGIN, trust: 'trusted' }, ...(fixtureConfig.plugins ?? [])];
  return { ...base, config: { ...fixtureConfig, plugins } };
};
const codeDescription = async (host: ToolHost) =>
  (await host.definitions({ format: 'mcp' })).find((t) => t.name === 'execute_code')?.description ?? '';
const run = async (host: ToolHost, code: string, sessionId?: string) =>
  JSON.parse(await host.dispatch('execute_code', { code }, sessionId ? { sessionId } : {}));

describe('execute_code and deferred tools', () => {
  it('declares the loaded sandbox tools and tools.search, not the deferred ones', async () => {
    await withHost(
      options({ defer: ['github', 'slack'], search: { alwaysLoaded: ['execute_code'] } }),
      async (host) => {
        const text = await codeDescription(host);
        expect(text).toContain('search(query: string, limit?: number)');
        expect(text).not.toContain('github_create_issue(args');
        expect(text).not.toContain('slack_send_message(args');
        expect(text).toContain('found with tools.search');
      },
    );
    // Nothing deferred: every sandbox tool is declared and there is no tools.search.
    await withHost(options({}), async (host) => {
      const text = await codeDescription(host);
      expect(text).toContain('github_create_issue(args');
      expect(text).toContain('slack_send_message(args');
      expect(text).not.toContain('search(query');
    });
  });

  it('finds a deferred tool and calls it in one script; the search loads it for the session', async () => {
    await withHost(options({ defer: ['*'], search: { alwaysLoaded: ['execute_code'] } }), async (host) => {
      const out = await run(
        host,
        `const found = await tools.search('post a message to a slack channel', 2);
         const hit = found.tools.find((t) => t.callable);
         const sent = await tools[hit.name]({ channel: 'ops', text: 'from code' });
         return { names: found.tools.map((t) => [t.name, t.callable]), sent };`,
        'coder',
      );
      expect(out.status).toBe('ok');
      expect(out.result.names[0]).toEqual(['slack_send_message', true]);
      expect(out.result.sent).toEqual({ tool: 'slack_send_message', args: { channel: 'ops', text: 'from code' } });
      // The search went through dispatch with the script's session: the tools are loaded there.
      const listed = (await host.definitions({ sessionId: 'coder' })).map((t) => t.function.name);
      expect(listed).toEqual(expect.arrayContaining(['execute_code', 'tool_search', 'slack_send_message']));
      expect((await host.definitions({ sessionId: 'someone-else' })).map((t) => t.function.name)).toEqual([
        'execute_code',
        'tool_search',
      ]);
    });
  });

  it('marks hits the sandbox cannot call, and tools.search errors carry the search error code', async () => {
    await withHost(options({ defer: ['*'], search: { alwaysLoaded: ['execute_code'] } }), async (host) => {
      const out = await run(
        host,
        `const found = await tools.search('merge a pull request', 1);
         let code;
         try { await tools.search('   '); } catch (error) { code = error.code; }
         return { hit: found.tools[0], code };`,
      );
      // github_merge_pull_request is not flagged sandbox: true, so code cannot call it (the model can).
      expect(out.result.hit).toMatchObject({ name: 'github_merge_pull_request', callable: false });
      expect(out.result.code).toBe('INVALID_ARGUMENTS');
    });
  });
});
