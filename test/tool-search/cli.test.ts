/**
 * The CLI with deferred tools: the summary names them, `list` prints what the model is shown, and
 * `explain --search` shows what a search finds and why.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, tempDir, suiteHome } from '../helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
let work: { dir: string; cleanup(): void };

beforeAll(() => {
  work = tempDir();
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"cli-project","private":true}');
  const config = { builtins: false, plugins: [{ package: fixture('plugins', 'catalog'), trust: 'trusted' }], defer: ['github', 'slack'] };
  writeFileSync(path.join(work.dir, '.toolshedrc.json'), JSON.stringify(config));
});
afterAll(() => work.cleanup());

const toolshed = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: work.dir, encoding: 'utf8', env: { ...suiteHome(), PATH: process.env.PATH ?? '' }, timeout: 60_000 });

describe('toolshed CLI with deferred tools', () => {
  it('the summary names the deferred tools; list prints what the model is shown; call still runs a deferred tool', () => {
    const summary = toolshed([]);
    expect(summary.status).toBe(0);
    expect(summary.stdout).toContain('deferred (listed once tool_search finds them): github_create_issue, github_list_issues, github_merge_pull_request, slack_list_channels, slack_send_message');
    const list = toolshed(['list', '--format', 'names']);
    expect(list.stdout.trim().split('\n')).toEqual(['admin_delete_user', 'calendar_create_event', 'tool_search']);
    const call = toolshed(['call', 'tool_search', '{"query":"post a slack message","limit":1}']);
    expect(JSON.parse(call.stdout).tools[0].name).toBe('slack_send_message');
    const direct = toolshed(['call', 'github_list_issues', '{"repo":"a/b"}']);
    expect(JSON.parse(direct.stdout)).toEqual({ tool: 'github_list_issues', args: { repo: 'a/b' } });
  });

  // The text of the ranking (renderSearch) and the usage errors of --search are in test/unit/cli-program.test.ts.
  it('explain --search ranks every exposed tool, deferred or listed, with its score and the words it matched where', () => {
    const search = toolshed(['explain', '--search', 'post a slack message', '--json']);
    expect(search.status).toBe(0);
    const json = JSON.parse(search.stdout);
    expect(json).toMatchObject({
      query: 'post a slack message',
      indexed: 7,
      results: expect.arrayContaining([expect.objectContaining({ name: 'slack_send_message', deferred: true, matched: expect.objectContaining({ slack: expect.arrayContaining(['name', 'source']) }) })]),
    });
    expect(json.results[0]).toMatchObject({ name: 'slack_send_message', score: expect.any(Number), matched: { post: expect.any(Array), slack: expect.any(Array), message: expect.arrayContaining(['name']) } });
    expect(Object.keys(json.results[0].matched)).toEqual(['post', 'slack', 'message']);
    // A listed tool is ranked too: the operator sees the whole ranking, not only what tool_search would return.
    expect(JSON.parse(toolshed(['explain', '--search', 'calendar event', '--json']).stdout).results[0]).toMatchObject({ name: 'calendar_create_event', deferred: false });
  });
});
