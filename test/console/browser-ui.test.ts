/**
 * The console in a real browser over `toolshed ui`: a hidden tool's reason, a call run from the
 * form generated from the tool's schema, a call held for approval answered in the page, and a
 * hostile plugin's markup shown as text.
 *
 * Each test opens a page of its own in one browser context: the console keeps nothing in the
 * browser but a tab's sessionStorage (the sign-in token, unused here), so each page starts as a
 * fresh one, and the console's assets (served immutable) load from the context's cache after the
 * first page.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consoleProject,
  launchChromium,
  newContext,
  NOTES_TEXT,
  openPage,
  type Running,
  startUi,
} from './browser-setup.js';

const project = consoleProject();
let ui: Running;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  [ui, browser] = await Promise.all([startUi(project), launchChromium()]);
  context = await newContext(browser);
}, 60_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await ui?.stop();
  project.cleanup();
});

describe('the console over toolshed ui', () => {
  it("lists a tool hidden for a missing env variable with its reason, and shows it in the tool's detail", {
    timeout: 60_000,
  }, async () => {
    const { page, misdeeds } = await openPage(context, ui.url);
    const tools = page.getByRole('region', { name: 'Tools' });
    const row = tools
      .getByRole('listitem')
      .filter({ has: page.getByRole('button', { name: 'weather_now', exact: true }) });
    await row.getByText('missing environment variable CONSOLE_DEMO_WEATHER_KEY').waitFor();
    await row.getByText('hidden (availability)').waitFor();
    await page.getByRole('button', { name: 'weather_now', exact: true }).click();
    const detail = page.getByRole('region', { name: 'Tool: weather_now' });
    await detail.getByText('missing environment variable CONSOLE_DEMO_WEATHER_KEY').first().waitFor();
    await detail
      .getByText('Not exposed, so the model gets no definition', { exact: false })
      .waitFor({ state: 'attached' });
    const funnel = page.getByRole('region', { name: 'Layers' });
    expect(await funnel.getByRole('listitem').filter({ hasText: 'exposed' }).first().textContent()).toMatch(
      /exposed\s*\d+/,
    );
    expect(misdeeds).toEqual({ dialogs: [], errors: [] });
    await page.close();
  });

  it('lists the plugins with their tier, trust and protections, and a failed one with its code and message', {
    timeout: 60_000,
  }, async () => {
    const { page } = await openPage(context, ui.url);
    const plugins = page.getByRole('region', { name: 'Plugins' });
    const demo = plugins
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: /toolshed-plugin-console-demo/ }) });
    await demo.waitFor();
    expect(await demo.getByRole('cell').allTextContents()).toEqual(expect.arrayContaining(['thread', 'trusted']));
    expect(await demo.textContent()).toContain('network: declared, not enforced');
    const failed = plugins.getByRole('row').filter({ hasText: 'no-such-plugin' });
    expect(await failed.textContent()).toMatch(/PLUGIN_NOT_FOUND .*no-such-plugin/);
    await page.close();
  });

  it('ranks tools for a tool_search query and says what each term matched', { timeout: 60_000 }, async () => {
    const { page } = await openPage(context, ui.url);
    const search = page.getByRole('region', { name: 'Search' });
    await search.getByRole('searchbox', { name: 'Search query' }).fill('echo');
    await search.getByRole('button', { name: 'Search' }).click();
    const first = search.getByRole('row').nth(1);
    await first.waitFor();
    const cells = await first.getByRole('cell').allTextContents();
    expect(cells[0]).toBe('1');
    expect(cells[1]).toBe('echo');
    expect(Number(cells[2])).toBeGreaterThan(0);
    expect(cells[3]).toBe('no');
    expect(cells[4]).toMatch(/^echo: .*name/);
    await page.close();
  });

  it("shows a tool's definition in each provider format, its permissions and its schema", {
    timeout: 60_000,
  }, async () => {
    const { page } = await openPage(context, ui.url);
    await page.getByRole('button', { name: 'read_file', exact: true }).click();
    const detail = page.getByRole('region', { name: 'Tool: read_file' });
    await detail.getByText('As the model sees it', { exact: true }).click();
    const format = detail.getByRole('combobox', { name: 'Provider format' });
    const definition = detail
      .locator('details', { has: page.getByRole('combobox', { name: 'Provider format' }) })
      .locator('pre');
    const shapes = {
      openai: '"function"',
      responses: '"type": "function"',
      anthropic: '"input_schema"',
      gemini: '"parameters"',
      mcp: '"inputSchema"',
    };
    for (const [name, marker] of Object.entries(shapes)) {
      await format.selectOption(name);
      expect(await definition.textContent()).toContain(marker);
    }
    await detail.getByText('Permissions', { exact: true }).click();
    for (const label of ['requested', 'granted', 'effective', 'enforced'])
      await detail.getByRole('heading', { name: label, exact: true }).waitFor();
    await detail.getByText('Schema', { exact: true }).click();
    expect(await detail.locator('details', { hasText: 'Schema' }).last().textContent()).toContain('"required"');
    await page.close();
  });

  it('filters the tools by state or reason, and the calls by tool and by outcome', { timeout: 60_000 }, async () => {
    const { page } = await openPage(context, ui.url);
    const tools = page.getByRole('region', { name: 'Tools' });
    await tools.getByRole('searchbox', { name: 'Filter tools' }).fill('hidden (availability)');
    await tools.getByRole('button', { name: 'weather_now', exact: true }).waitFor();
    await expect.poll(() => tools.getByRole('button').allTextContents()).toEqual(['flagged', 'weather_now']);
    await tools.getByRole('searchbox', { name: 'Filter tools' }).fill('weather_key');
    await expect.poll(() => tools.getByRole('button').allTextContents()).toEqual(['weather_now']);
    await page.getByRole('button', { name: 'weather_now', exact: true }).click();
    await page.getByRole('region', { name: 'Tool: weather_now' }).getByRole('textbox', { name: /^city/ }).fill('Oslo');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('region', { name: 'Result' }).getByText('TOOL_NOT_EXPOSED').waitFor();
    await tools.getByRole('searchbox', { name: 'Filter tools' }).fill('echo');
    await page.getByRole('button', { name: 'echo', exact: true }).click();
    await page.getByRole('region', { name: 'Tool: echo' }).getByRole('textbox', { name: /^text/ }).fill('filtered');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('region', { name: 'Result' }).getByText('filtered').waitFor();
    const calls = page.getByRole('region', { name: 'Calls' });
    const toolCells = calls.locator('tbody tr td:nth-child(2)');
    await calls.getByRole('cell', { name: 'TOOL_NOT_EXPOSED', exact: true }).first().waitFor();
    await calls.getByRole('combobox', { name: 'Outcome' }).selectOption('failures');
    await expect.poll(async () => new Set(await toolCells.allTextContents())).toEqual(new Set(['weather_now']));
    await calls.getByRole('combobox', { name: 'Outcome' }).selectOption('ok');
    await expect.poll(async () => (await toolCells.allTextContents()).includes('weather_now')).toBe(false);
    expect(await toolCells.allTextContents()).toContain('echo');
    await calls.getByRole('combobox', { name: 'Outcome' }).selectOption('all');
    await calls.getByRole('combobox', { name: 'Tool' }).selectOption('echo');
    await expect.poll(async () => new Set(await toolCells.allTextContents())).toEqual(new Set(['echo']));
    await page.close();
  });

  it('runs read_file from the form generated from its schema and shows the file in "Result"', {
    timeout: 60_000,
  }, async () => {
    const { page, misdeeds } = await openPage(context, ui.url);
    await page.getByRole('button', { name: 'read_file', exact: true }).click();
    const detail = page.getByRole('region', { name: 'Tool: read_file' });
    await detail.getByRole('textbox', { name: /^path/ }).fill('notes.txt');
    await detail.getByRole('button', { name: 'Run' }).click();
    const result = page.getByRole('region', { name: 'Result' });
    await result.getByText(NOTES_TEXT, { exact: false }).waitFor();
    expect(await result.textContent()).toContain('OK');
    expect(misdeeds).toEqual({ dialogs: [], errors: [] });
    await page.close();
  });

  it('checks the arguments before sending: a missing required field is named, and nothing runs', {
    timeout: 60_000,
  }, async () => {
    const { page } = await openPage(context, ui.url);
    await page.getByRole('button', { name: 'echo', exact: true }).click();
    const detail = page.getByRole('region', { name: 'Tool: echo' });
    await detail.getByRole('button', { name: 'Run' }).click();
    const result = page.getByRole('region', { name: 'Result' });
    await result.getByText('text: required').waitFor();
    await detail.getByRole('checkbox', { name: 'Edit raw JSON' }).check();
    await detail.getByRole('textbox', { name: 'Arguments (JSON)' }).fill('{"text": "hi", "times": "2"}');
    await detail.getByRole('button', { name: 'Run' }).click();
    await result.getByText('/times: must be integer').waitFor();
    await detail.getByRole('textbox', { name: 'Arguments (JSON)' }).fill('{"text": "hi", "times": 2}');
    await detail.getByRole('button', { name: 'Run' }).click();
    await result.getByText('hi hi').waitFor();
    await detail.getByText('Examples', { exact: true }).click();
    await detail.getByRole('button', { name: 'Use example 1' }).click();
    await detail.getByRole('checkbox', { name: 'Edit raw JSON' }).uncheck();
    expect(await detail.getByRole('textbox', { name: /^text/ }).inputValue()).toBe('hello');
    expect(await detail.getByRole('spinbutton', { name: /^times/ }).inputValue()).toBe('2');
    await page.close();
  });

  it('works from the keyboard: filter the tools, select one, fill its form and run it', {
    timeout: 60_000,
  }, async () => {
    const { page } = await openPage(context, ui.url);
    await page.getByRole('button', { name: 'echo', exact: true }).waitFor();
    await page.getByRole('searchbox', { name: 'Filter tools' }).focus();
    await page.keyboard.type('echo');
    await expect.poll(() => page.getByRole('region', { name: 'Tools' }).getByRole('button').count()).toBe(1);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const detail = page.getByRole('region', { name: 'Tool: echo' });
    await detail.getByRole('textbox', { name: /^text/ }).focus();
    await page.keyboard.type('typed');
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'Result' }).getByText('typed').waitFor();
    await page.close();
  });

  it('holds a call run from the form for a tool in approve in "Approvals" until it is approved there', {
    timeout: 60_000,
  }, async () => {
    const { page, misdeeds } = await openPage(context, ui.url);
    await page.getByRole('button', { name: 'delete_thing', exact: true }).click();
    const detail = page.getByRole('region', { name: 'Tool: delete_thing' });
    await detail.getByRole('textbox', { name: /^id/ }).fill('from-the-form');
    await detail.getByRole('button', { name: 'Run' }).click();
    const held = page
      .getByRole('region', { name: 'Approvals' })
      .getByRole('listitem')
      .filter({ hasText: 'delete_thing' });
    await held.getByText('"id": "from-the-form"').waitFor();
    await page.getByRole('status').filter({ hasText: 'delete_thing waiting for approval' }).waitFor();
    expect(await page.title()).toBe('(1) toolshed console');
    await held.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('region', { name: 'Result' }).getByText('deleted from-the-form').waitFor();
    await held.waitFor({ state: 'detached' });
    expect(misdeeds).toEqual({ dialogs: [], errors: [] });
    await page.close();
  });

  it("shows a plugin's markup in a description and in arguments as text, and runs none of it", {
    timeout: 60_000,
  }, async () => {
    const { page, misdeeds } = await openPage(context, ui.url);
    await page.getByRole('button', { name: 'markup', exact: true }).click();
    const detail = page.getByRole('region', { name: 'Tool: markup' });
    const markup = '<img src=x onerror="window.__consolePwned = true; console.error(\'pwned\')">';
    await detail.getByText(`Returns its input. ${markup}`).first().waitFor();
    await detail.getByText(`Any text. ${markup}`).waitFor();
    await detail.getByRole('textbox', { name: /^html/ }).fill(markup);
    await detail.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('region', { name: 'Result' }).getByText(`you sent ${markup}`).waitFor();
    await page.getByRole('checkbox', { name: 'Show arguments and results' }).check();
    const calls = page.getByRole('region', { name: 'Calls' });
    await calls.getByText('arguments and result', { exact: true }).first().click();
    await calls.getByText(`you sent ${markup}`).first().waitFor();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __consolePwned?: boolean }).__consolePwned)).toBeUndefined();
    expect(misdeeds).toEqual({ dialogs: [], errors: [] });
    await page.close();
  });
});
