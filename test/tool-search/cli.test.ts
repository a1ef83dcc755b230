/**
 * The CLI with deferred tools: the summary names them, `list` prints what the model is shown, and
 * `explain --search` shows what a search finds and why. Each command run by the CLI's main() in
 * this process (test/helpers.ts's toolshedMain); test/cli/ has what only a real process shows.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, tempDir, toolshedMain } from '../helpers.js';

let work: { dir: string; cleanup(): void };

beforeAll(() => {
  work = tempDir();
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"cli-project","private":true}');
  const config = {
    builtins: false,
    plugins: [{ package: fixture('plugins', 'catalog'), trust: 'trusted' }],
    defer: ['github', 'slack'],
  };
  writeFileSync(path.join(work.dir, '.toolshedrc.json'), JSON.stringify(config));
});
afterAll(() => work.cleanup());

const toolshed = (args: string[]) => toolshedMain(args, { cwd: work.dir });

describe('toolshed CLI with deferred tools', () => {
  it('the summary names the deferred tools; list prints what the model is shown; call still runs a deferred tool', async () => {
    const summary = await toolshed([]);
    expect(summary.code).toBe(0);
    expect(summary.stdout).toContain(
      'deferred (listed once tool_search finds them): github_create_issue, github_list_issues, github_merge_pull_request, slack_list_channels, slack_send_message',
    );
    const list = await toolshed(['list', '--format', 'names']);
    expect(list.stdout.trim().split('\n')).toEqual(['admin_delete_user', 'calendar_create_event', 'tool_search']);
    const call = await toolshed(['call', 'tool_search', '{"query":"post a slack message","limit":1}']);
    expect(JSON.parse(call.stdout).tools[0].name).toBe('slack_send_message');
    const direct = await toolshed(['call', 'github_list_issues', '{"repo":"a/b"}']);
    expect(JSON.parse(direct.stdout)).toEqual({ tool: 'github_list_issues', args: { repo: 'a/b' } });
  });

  // The text of the ranking (renderSearch) and the usage errors of --search are in test/unit/cli-program.test.ts.
  it('explain --search ranks every exposed tool, deferred or listed, with its score and the words it matched where', async () => {
    const search = await toolshed(['explain', '--search', 'post a slack message', '--json']);
    expect(search.code).toBe(0);
    const json = JSON.parse(search.stdout);
    expect(json).toMatchObject({
      query: 'post a slack message',
      indexed: 7,
      results: expect.arrayContaining([
        expect.objectContaining({
          name: 'slack_send_message',
          deferred: true,
          matched: expect.objectContaining({ slack: expect.arrayContaining(['name', 'source']) }),
        }),
      ]),
    });
    expect(json.results[0]).toMatchObject({
      name: 'slack_send_message',
      score: expect.any(Number),
      matched: { post: expect.any(Array), slack: expect.any(Array), message: expect.arrayContaining(['name']) },
    });
    expect(Object.keys(json.results[0].matched)).toEqual(['post', 'slack', 'message']);
    // A listed tool is ranked too: the operator sees the whole ranking, not only what tool_search would return.
    expect(
      JSON.parse((await toolshed(['explain', '--search', 'calendar event', '--json'])).stdout).results[0],
    ).toMatchObject({ name: 'calendar_create_event', deferred: false });
  });
});
