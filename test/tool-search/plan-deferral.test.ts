/**
 * Deferral as a pure function: planDeferral over a registry built in memory (test/support),
 * the cases of deferral.test.ts that decide what is deferred, without a host or a worker.
 */
import { ToolshedError } from '#internal/boundary/errors.js';
import {
  CHARS_PER_TOKEN,
  type DeferralInput,
  definitionSize,
  planDeferral,
  sessionDefinitions,
} from '#internal/core/expose/deferral.js';
import { resolveDescription } from '#internal/core/expose/descriptions.js';
import { selectTools } from '#internal/core/expose/toolsets.js';
import { describe, expect, it } from 'vitest';
import { type FixtureTool, registryOf, resolvedConfig } from '../support/registry-fixture.js';

const str = (description: string) => ({ type: 'string', description });
const tool = (
  name: string,
  toolset: string,
  description: string,
  properties: Record<string, unknown> = {},
): FixtureTool => ({
  name,
  toolset,
  description,
  parameters: { type: 'object', properties, additionalProperties: false },
});

/** test/fixtures/plugins/catalog as data; weather_forecast is the tool layer 2 hides (it needs WEATHER_KEY). */
const CATALOG = {
  name: 'catalog',
  toolsets: {
    github: { description: 'GitHub repositories, issues and pull requests' },
    slack: { description: 'Slack workspace messaging' },
    calendar: { description: 'Google Calendar events' },
    weather: { description: 'Weather forecasts' },
    admin: { description: 'Account administration' },
    chat: { description: 'Every messaging service', includes: ['slack'] },
  },
  tools: [
    tool('github_create_issue', 'github', 'Open a new issue in a GitHub repository.', {
      repo: str('owner/name'),
      title: str('Issue title'),
      body: str('Markdown body'),
    }),
    tool('github_list_issues', 'github', 'List issues of a GitHub repository, filtered by state and label.', {
      repo: str('owner/name'),
      state: str('open, closed or all'),
    }),
    tool('github_merge_pull_request', 'github', 'Merge a pull request.', {
      repo: str('owner/name'),
      number: { type: 'integer', description: 'Pull request number' },
    }),
    tool('slack_send_message', 'slack', 'Post a message to a Slack channel.', {
      channel: str('Channel name or id'),
      text: str('Message text'),
    }),
    tool('slack_list_channels', 'slack', 'List the channels of the Slack workspace.'),
    tool('calendar_create_event', 'calendar', 'Create an event in Google Calendar.', {
      title: str('Event title'),
      start: str('ISO start time'),
      end: str('ISO end time'),
    }),
    {
      ...tool('weather_forecast', 'weather', 'Seven-day weather forecast for a city.', { city: str('City name') }),
      requires: { env: ['WEATHER_KEY'] },
    },
    tool('admin_delete_user', 'admin', 'Delete a user account permanently.', { user: str('User id') }),
  ],
};
/** The search tool's definition size deferral adds to what stays loaded once anything is deferred. */
const SEARCH_SIZE = 400;

/** The catalogue's tools that pass layers 1 and 2, and what planDeferral needs to know of them. */
function catalogInput(): DeferralInput {
  const registry = registryOf([CATALOG]);
  const { selected, toolsets } = selectTools(registry, resolvedConfig());
  const names = [...selected].filter((name) => name !== 'weather_forecast');
  const exposed = new Set(names);
  return {
    names,
    toolsets,
    knownTools: registry.toolNames,
    toolsetOf: (name) => registry.tools.get(name)!.manifest.toolset,
    size: (name) => {
      const manifest = registry.tools.get(name)!.manifest;
      return definitionSize({
        name,
        description: resolveDescription(manifest.description, exposed),
        parameters: manifest.parameters,
      });
    },
    searchSize: SEARCH_SIZE,
  };
}

const deferred = (defer: string[] | 'auto', alwaysLoaded: string[] = [], budgetTokens = 8000) =>
  [...planDeferral(catalogInput(), { defer, alwaysLoaded, budgetTokens }).deferred].sort();

describe('deferral without workers: planDeferral', () => {
  it("defers everything but alwaysLoaded under defer ['*']", () => {
    expect(deferred(['*'], ['slack_list_channels'])).toEqual([
      'admin_delete_user',
      'calendar_create_event',
      'github_create_issue',
      'github_list_issues',
      'github_merge_pull_request',
      'slack_send_message',
    ]);
  });

  it('defers toolsets (with their includes), single tools and * patterns; nothing when defer is empty', () => {
    expect(deferred(['chat', 'github_*', 'calendar_create_event'])).toEqual([
      'calendar_create_event',
      'github_create_issue',
      'github_list_issues',
      'github_merge_pull_request',
      'slack_list_channels',
      'slack_send_message',
    ]);
    expect(deferred([])).toEqual([]);
  });

  it('never defers a tool the layers hid, even named exactly', () => {
    expect(deferred(['weather_forecast', 'weather'])).toEqual([]);
  });

  it('throws TOOLSET_UNKNOWN with a did-you-mean for an unknown name, or warns when lenient; warns for a pattern matching nothing', () => {
    let error: unknown;
    try {
      planDeferral(catalogInput(), { defer: ['githu'], alwaysLoaded: [], budgetTokens: 8000 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ToolshedError);
    expect(error).toMatchObject({ code: 'TOOLSET_UNKNOWN', message: expect.stringContaining("'github'") });
    const lenient: string[] = [];
    expect(
      planDeferral(catalogInput(), { defer: ['githu'], alwaysLoaded: [], budgetTokens: 8000 }, (e) =>
        lenient.push(e.code),
      ).deferred.size,
    ).toBe(0);
    expect(lenient).toEqual(['TOOLSET_UNKNOWN']);
    expect(
      planDeferral(catalogInput(), { defer: ['jira_*', 'github'], alwaysLoaded: [], budgetTokens: 8000 }).warnings,
    ).toEqual(["'jira_*' in defer matches no toolset or tool"]);
  });

  it("'auto' defers the largest toolsets until the rest fits the budget, and nothing when everything fits", () => {
    expect(deferred('auto', [], 100_000)).toEqual([]);
    const input = catalogInput();
    const plan = planDeferral(input, { defer: 'auto', alwaysLoaded: ['github_merge_pull_request'], budgetTokens: 400 });
    // github is the largest toolset, so it goes first; the pinned tool stays loaded.
    expect([...plan.deferred]).toEqual(expect.arrayContaining(['github_create_issue', 'github_list_issues']));
    expect(plan.deferred.has('github_merge_pull_request')).toBe(false);
    const loaded = input.names.filter((name) => !plan.deferred.has(name));
    expect(loaded.reduce((sum, name) => sum + input.size(name), SEARCH_SIZE)).toBeLessThanOrEqual(
      400 * CHARS_PER_TOKEN,
    );
    expect(loaded.length).toBeGreaterThan(2);
  });

  it('shows a session the listed tools, then the deferred tools it loaded, in the order it loaded them', () => {
    const def = (name: string) => ({ name, description: name, parameters: { type: 'object' } });
    const byName = new Map(['a', 'b', 'c', 'd'].map((name) => [name, def(name)]));
    const shown = [def('a'), def('b')];
    expect(sessionDefinitions(shown, byName, new Set(['c', 'd']), ['d', 'c', 'a']).map((d) => d.name)).toEqual([
      'a',
      'b',
      'd',
      'c',
    ]);
  });
});
