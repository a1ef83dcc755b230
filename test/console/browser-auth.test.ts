/**
 * The console with a bearer token (`toolshed ui --token-env NAME`), in a real browser: the page
 * asks for the token when the API answers 401, refuses a wrong one, and works once given the right
 * one; a `#token=` fragment signs in at once and leaves the address bar. Under `serve.auth`, the
 * page works as the identity of an OAuth token holding the toolshed:console scope, and says why a
 * token without it is refused (then takes another).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer } from '../support/oauth.js';
import { consoleProject, launchChromium, openPage, type Running, startServe, startUi } from './browser-setup.js';

const TOKEN = 'console-test-token-6d1f0c';
const project = consoleProject();
let ui: Running;
let browser: Browser;

beforeAll(async () => {
  [ui, browser] = await Promise.all([
    startUi(project, ['--token-env', 'CONSOLE_TEST_TOKEN'], { CONSOLE_TEST_TOKEN: TOKEN }),
    launchChromium(),
  ]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await ui?.stop();
  project.cleanup();
});

describe('the console behind a bearer token', () => {
  it('asks for the token, refuses a wrong one, and works after the right one is given', {
    timeout: 60_000,
  }, async () => {
    const { page, misdeeds } = await openPage(browser, ui.url);
    const form = page.getByRole('form', { name: 'Sign in to the toolshed console' });
    await form.getByLabel('Token').fill('not-the-token');
    await form.getByRole('button', { name: 'Sign in' }).click();
    await form.getByRole('alert').filter({ hasText: 'That token was not accepted.' }).waitFor();
    await form.getByLabel('Token').fill(TOKEN);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'read_file', exact: true }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Live stream: live' }).waitFor();
    expect(await page.context().cookies()).toEqual([]);
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('toolshed-console-token'))).toBe(TOKEN);
    expect(misdeeds.dialogs).toEqual([]);
    await page.context().close();
  });

  it('takes a #token= fragment once and removes it from the address bar', { timeout: 60_000 }, async () => {
    const { page } = await openPage(browser, `${ui.url}#token=${TOKEN}`);
    await page.getByRole('button', { name: 'read_file', exact: true }).waitFor();
    expect(page.url()).toBe(ui.url);
    await page.context().close();
  });
});

describe('the console under serve.auth', () => {
  it('works as the identity of a token with the toolshed:console scope, and says why one without it is refused', {
    timeout: 60_000,
  }, async () => {
    const auth = await startAuthServer();
    const oauthProject = consoleProject({ serve: { auth: { issuer: auth.issuer } } });
    const serve = await startServe(oauthProject);
    try {
      const base = serve.url.replace(/mcp$/, 'ui/');
      const plain = await auth.userToken({ user: 'bob', audience: serve.url, scope: 'mcp:tools' });
      const { page } = await openPage(browser, `${base}#token=${plain.accessToken}`);
      const alert = page
        .getByRole('alert')
        .filter({ hasText: 'ACCESS_DENIED' })
        .filter({ hasText: 'toolshed:console' });
      await alert.getByRole('button', { name: 'Use another token' }).click();
      const operator = await auth.userToken({ user: 'alice', audience: serve.url, scope: 'toolshed:console' });
      const form = page.getByRole('form', { name: 'Sign in to the toolshed console' });
      await form.getByLabel('Token').fill(operator.accessToken);
      await form.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText(`alice (${auth.issuer})`, { exact: true }).waitFor();
      await page.getByRole('button', { name: 'echo', exact: true }).click();
      await page.getByRole('region', { name: 'Tool: echo' }).getByRole('textbox', { name: /^text/ }).fill('as alice');
      await page.getByRole('button', { name: 'Run' }).click();
      await page.getByRole('region', { name: 'Result' }).getByText('as alice').waitFor();
      await page
        .getByRole('region', { name: 'Calls' })
        .getByRole('cell', { name: /^alice · / })
        .first()
        .waitFor();
      await page.context().close();
    } finally {
      await serve.stop();
      await auth.close();
      oauthProject.cleanup();
    }
  });
});
