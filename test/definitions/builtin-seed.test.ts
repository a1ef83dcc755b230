/**
 * The seed case on the first-party web plugin as a user meets it out of the box: loaded among the
 * builtins, without the search key. With the key, and the rule itself, on the pipeline with the
 * plugin's own export: test/unit/availability.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { withHost } from '../helpers.js';

const fetchDescription = async (env: Record<string, string | undefined>) =>
  withHost({ cwd: process.cwd(), env, config: { cache: { enabled: false }, enable: ['web'] } }, async (host) => {
    const defs = (await host.definitions({ format: 'mcp' })) as Array<{ name: string; description: string }>;
    return {
      names: defs.map((d) => d.name),
      fetch: defs.find((d) => d.name === 'web_fetch')!.description,
      report: host.explain(),
    };
  });

describe('the seed case on the first-party web plugin', () => {
  it('web_fetch does not mention web_search while BRAVE_API_KEY is missing', async () => {
    const { names, fetch, report } = await fetchDescription({ PATH: process.env.PATH });
    expect(names).toEqual(['web_fetch']);
    expect(fetch).not.toContain('web_search');
    expect(report.tools.find((t) => t.name === 'web_search')).toMatchObject({
      exposed: false,
      layer: 'availability',
      reason: 'missing environment variable BRAVE_API_KEY',
    });
    expect(report.warnings).toEqual([]);
  });
});
