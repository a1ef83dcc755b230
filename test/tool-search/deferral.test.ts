/**
 * Deferred tools: left out of definitions() until a tool_search finds them
 * for a session, still subject to the three layers, still callable.
 */
import { describe, expect, it } from 'vitest';
import type { OpenAITool, ToolHost } from 'toolshed';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fixtureOptions, tempDir, withHost } from '../helpers.js';

const names = (tools: OpenAITool[]) => tools.map((t) => t.function.name);
const search = async (host: ToolHost, query: string, sessionId?: string, limit?: number) => {
  const text = await host.dispatch(
    'tool_search',
    { query, ...(limit ? { limit } : {}) },
    sessionId ? { sessionId } : {},
  );
  return JSON.parse(text) as {
    tools: Array<{ name: string; description: string; toolset: string; parameters: Record<string, unknown> }>;
  };
};
const catalog = (config: Record<string, unknown>) => fixtureOptions(['catalog'], { config });

describe('defer', () => {
  it("with defer ['*'] the list holds tool_search and the alwaysLoaded tools only; a search loads the hits for that session", async () => {
    await withHost(catalog({ defer: ['*'], search: { alwaysLoaded: ['slack_list_channels'] } }), async (host) => {
      expect(names(await host.definitions())).toEqual(['slack_list_channels', 'tool_search']);
      const found = await search(host, 'open a new github issue', 'chat-1');
      expect(found.tools[0]).toEqual({
        name: 'github_create_issue',
        description: 'Open a new issue in a GitHub repository.',
        toolset: 'github',
        parameters: expect.objectContaining({ properties: expect.objectContaining({ title: expect.anything() }) }),
        matched: 'name: github, issue; description: open, new',
      });
      expect(found.tools.length).toBeLessThanOrEqual(5);
      const loaded = found.tools.map((t) => t.name);
      // The found tools come after the shared list, in the order the search returned them.
      expect(names(await host.definitions({ sessionId: 'chat-1' }))).toEqual([
        'slack_list_channels',
        'tool_search',
        ...loaded,
      ]);
      expect(names(await host.definitions({ sessionId: 'chat-2' }))).toEqual(['slack_list_channels', 'tool_search']);
      expect(names(await host.definitions())).toEqual(['slack_list_channels', 'tool_search']);
    });
  });

  it('a search without a session id loads into the default session, which definitions() without one shows', async () => {
    await withHost(catalog({ defer: ['*'] }), async (host) => {
      const events: unknown[] = [];
      host.on('loaded', (entry) => events.push(entry));
      const found = await search(host, 'post a message to a slack channel', undefined, 1);
      expect(events).toEqual([{ sessionId: undefined, tools: ['slack_send_message'] }]);
      expect(found.tools.map((t) => t.name)).toEqual(['slack_send_message']);
      expect(names(await host.definitions())).toEqual(['tool_search', 'slack_send_message']);
      expect(names(await host.definitions({ sessionId: 'other' }))).toEqual(['tool_search']);
    });
  });

  it('defers toolsets (with their includes), single tools and * patterns; the rest stays listed', async () => {
    await withHost(catalog({ defer: ['chat', 'github_*', 'calendar_create_event'] }), async (host) => {
      expect(names(await host.definitions())).toEqual(['admin_delete_user', 'tool_search']);
      const report = host.explain();
      expect(report.tools.filter((t) => t.deferred).map((t) => t.name)).toEqual([
        'calendar_create_event',
        'github_create_issue',
        'github_list_issues',
        'github_merge_pull_request',
        'slack_list_channels',
        'slack_send_message',
      ]);
      expect(report.search.deferred).toBe(6);
    });
  });

  it('nothing deferred: no tool_search, and definitions() is what it always was', async () => {
    await withHost(catalog({ defer: [] }), async (host) => {
      expect(names(await host.definitions())).not.toContain('tool_search');
      expect(JSON.parse(await host.dispatch('tool_search', { query: 'github' })).code).toBe('UNKNOWN_TOOL');
    });
  });

  it('an unknown name in defer is TOOLSET_UNKNOWN with a did-you-mean; a pattern matching nothing is a warning', async () => {
    await expect(withHost(catalog({ defer: ['githu'] }), async () => {})).rejects.toMatchObject({
      code: 'TOOLSET_UNKNOWN',
      message: expect.stringContaining("'github'"),
    });
    await withHost(catalog({ defer: ['jira_*', 'github'] }), async (host) => {
      expect(host.explain().warnings).toContain("'jira_*' in defer matches no toolset or tool");
    });
  });
});

describe('views', () => {
  it("search a view's own exposure; what a session loaded is shared with the host", async () => {
    await withHost(catalog({ defer: ['*'] }), async (host) => {
      const view = host.view({ enable: ['slack'] });
      try {
        expect(names(await view.definitions())).toEqual(['tool_search']);
        const found = JSON.parse(
          await view.dispatch('tool_search', { query: 'open a github issue on slack', limit: 10 }, { sessionId: 'v' }),
        ).tools.map((t: { name: string }) => t.name);
        expect(found.length).toBeGreaterThan(0);
        expect(found.every((name: string) => name.startsWith('slack_'))).toBe(true);
        expect(names(await view.definitions({ sessionId: 'v' }))).toEqual(['tool_search', ...found]);
        expect(names(await host.definitions({ sessionId: 'v' }))).toEqual(['tool_search', ...found]);
      } finally {
        await view.close();
      }
    });
  });
});

describe('the three layers run before search', () => {
  it('a tool hidden by selection or availability is never found, even by its exact name', async () => {
    await withHost(catalog({ defer: ['*'], disable: ['admin'] }), async (host) => {
      for (const query of [
        'delete a user account',
        'admin_delete_user',
        'weather forecast for a city',
        'weather_forecast',
      ]) {
        const found = (await search(host, query, 's', 10)).tools.map((t) => t.name);
        expect(found).not.toContain('admin_delete_user');
        expect(found).not.toContain('weather_forecast');
      }
      expect(host.explain().tools.find((t) => t.name === 'weather_forecast')).toMatchObject({
        exposed: false,
        layer: 'availability',
      });
      expect(JSON.parse(await host.dispatch('weather_forecast', { city: 'Oslo' })).code).toBe('TOOL_NOT_EXPOSED');
    });
  });

  it('once its requirement is met the same tool is found', async () => {
    await withHost(
      { ...catalog({ defer: ['*'] }), env: { PATH: process.env.PATH, WEATHER_KEY: 'k' } },
      async (host) => {
        expect((await search(host, 'weather forecast for a city', 's', 1)).tools[0]?.name).toBe('weather_forecast');
      },
    );
  });
});

describe('calling a deferred tool', () => {
  it('works without a search (loading is about what the model is shown) and explain counts it', async () => {
    await withHost(catalog({ defer: ['*'] }), async (host) => {
      const out = JSON.parse(
        await host.dispatch('slack_send_message', { channel: 'ops', text: 'hi' }, { sessionId: 'a' }),
      );
      expect(out).toEqual({ tool: 'slack_send_message', args: { channel: 'ops', text: 'hi' } });
      await host.dispatch('slack_send_message', { channel: 'ops', text: 'again' }, { sessionId: 'a' });
      expect(host.explain().search.callsNotLoaded).toEqual({ slack_send_message: 2 });
      // Once this session found it, a call is an ordinary one and is not counted.
      await search(host, 'slack message', 'a');
      await host.dispatch('slack_send_message', { channel: 'ops', text: 'found' }, { sessionId: 'a' });
      expect(host.explain().search.callsNotLoaded).toEqual({ slack_send_message: 2 });
      // Arguments are still validated against the tool's schema.
      expect(JSON.parse(await host.dispatch('slack_send_message', { channel: 1 }, { sessionId: 'b' })).code).toBe(
        'INVALID_ARGUMENTS',
      );
    });
  });
});

describe('bad searches are coded errors', () => {
  it('an empty or blank query, a query over 1000 characters, and a limit outside 1..maxResults are INVALID_ARGUMENTS', async () => {
    await withHost(catalog({ defer: ['*'], search: { maxResults: 3 } }), async (host) => {
      const errorOf = async (args: unknown) =>
        JSON.parse(await host.dispatch('tool_search', args)) as { code: string; error: string };
      expect(await errorOf({ query: '' })).toMatchObject({
        code: 'INVALID_ARGUMENTS',
        error: expect.stringContaining('/query is empty'),
      });
      expect(await errorOf({ query: '  \n ' })).toMatchObject({
        code: 'INVALID_ARGUMENTS',
        error: expect.stringContaining('/query is empty'),
      });
      expect(await errorOf({})).toMatchObject({
        code: 'INVALID_ARGUMENTS',
        error: expect.stringContaining('/query is required'),
      });
      expect(await errorOf({ query: 'github '.repeat(200) })).toMatchObject({
        code: 'INVALID_ARGUMENTS',
        error: expect.stringContaining('/query must NOT have more than 1000 characters'),
      });
      expect(await errorOf({ query: 'github', limit: 4 })).toMatchObject({
        code: 'INVALID_ARGUMENTS',
        error: expect.stringContaining('/limit must be <= 3'),
      });
      expect(await errorOf({ query: 'github', limit: 0 })).toMatchObject({
        code: 'INVALID_ARGUMENTS',
        error: expect.stringContaining('/limit must be >= 1'),
      });
      expect(await errorOf({ query: 'github', limit: 1.5 })).toMatchObject({
        code: 'INVALID_ARGUMENTS',
        error: expect.stringContaining('/limit must be integer'),
      });
      // A failed search loads nothing.
      expect(host.explain().search.sessions).toEqual([]);
    });
  });

  it('a query that matches nothing returns an empty list', async () => {
    await withHost(catalog({ defer: ['*'] }), async (host) => {
      expect(await search(host, 'zzyzx quux')).toEqual({ tools: [] });
    });
  });
});

describe("defer: 'auto'", () => {
  it('defers the largest toolsets until the rest fits the budget, and nothing when everything fits', async () => {
    await withHost(catalog({ defer: 'auto', search: { budgetTokens: 100_000 } }), async (host) => {
      expect(names(await host.definitions())).not.toContain('tool_search');
    });
    await withHost(
      catalog({ defer: 'auto', search: { budgetTokens: 400, alwaysLoaded: ['github_merge_pull_request'] } }),
      async (host) => {
        const listed = names(await host.definitions());
        const report = host.explain();
        const deferred = report.tools.filter((t) => t.deferred);
        // github is the largest toolset, so it goes first; the pinned tool stays listed.
        expect(deferred.map((t) => t.name)).toEqual(
          expect.arrayContaining(['github_create_issue', 'github_list_issues']),
        );
        expect(listed).toContain('github_merge_pull_request');
        expect(listed).toContain('tool_search');
        // The budget counts each definition's JSON ({ name, description, parameters }) at 4 characters a token.
        const chars = (await host.definitions()).reduce((sum, t) => sum + JSON.stringify(t.function).length, 0);
        expect(chars).toBeLessThanOrEqual(400 * 4);
        expect(report.tools.filter((t) => t.exposed && !t.deferred).length).toBeGreaterThan(2);
      },
    );
  });
});

describe('the name tool_search', () => {
  it("belongs to the host while anything is deferred; a plugin's tool of that name is exposed otherwise", async () => {
    const work = tempDir();
    try {
      const dir = path.join(work.dir, 'shadow');
      mkdirSync(dir);
      writeFileSync(
        path.join(dir, 'package.json'),
        JSON.stringify({
          name: 'shadow',
          version: '1.0.0',
          type: 'module',
          main: 'index.js',
          toolshed: { apiVersion: 1 },
        }),
      );
      writeFileSync(
        path.join(dir, 'index.js'),
        "export default { apiVersion: 1, tools: [{ name: 'tool_search', description: 'Mine.', parameters: { type: 'object' }, handler: () => 'plugin search' }] };",
      );
      const options = (defer: string[]) => {
        const base = catalog({ defer });
        const config = base.config as { plugins: unknown[] };
        return {
          ...base,
          config: { ...config, plugins: [...config.plugins, { package: dir, trust: 'trusted' }] },
        } as typeof base;
      };
      await withHost(options([]), async (host) => {
        expect(await host.dispatch('tool_search', {})).toBe('plugin search');
      });
      await withHost(options(['github']), async (host) => {
        expect(JSON.parse(await host.dispatch('tool_search', { query: 'github issue', limit: 1 })).tools[0].name).toBe(
          'github_create_issue',
        );
        const state = host.explain().tools.find((t) => t.name === 'tool_search');
        expect(state).toMatchObject({ plugin: 'toolshed', exposed: true });
        expect(state?.warnings[0]).toContain("plugin shadow's tool_search is not exposed");
      });
    } finally {
      work.cleanup();
    }
  });
});
