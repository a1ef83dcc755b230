/**
 * The console at /ui/ of `toolshed serve --http --ui`, in a real browser, watching an MCP client:
 * its calls appear in "Calls" as they end, and a call it makes to a tool in `approve`, with no way
 * to ask its own user (no elicitation), waits in "Approvals" until the console approves or denies
 * it; its session is listed, and a check flipping shows in "Changes". With TOOLSHED_SCREENSHOT=1,
 * the approval test also writes docs/console.png.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleProject, launchChromium, openPage, type Running, startServe } from './browser-setup.js';

const SCREENSHOT = fileURLToPath(new URL('../../docs/console.png', import.meta.url));

const project = consoleProject();
let serve: Running;
let browser: Browser;
let client: Client;
let transport: StreamableHTTPClientTransport;

/** The text of a tools/call result. */
function textOf(result: unknown): string {
  return (result as { content: Array<{ text: string }> }).content.map((part) => part.text).join('');
}

beforeAll(async () => {
  [serve, browser] = await Promise.all([startServe(project), launchChromium()]);
  client = new Client({ name: 'cannot-ask', version: '1.0.0' });
  transport = new StreamableHTTPClientTransport(new URL(serve.url));
  await client.connect(transport);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await browser?.close();
  await serve?.stop();
  project.cleanup();
});

/** The console's URL on serve's listener. */
const consoleUrl = () => serve.url.replace(/mcp$/, 'ui/');

describe('the console under serve --http --ui', () => {
  it('shows a call an MCP client made in "Calls" within a second of the call returning', {
    timeout: 60_000,
  }, async () => {
    const { page, misdeeds } = await openPage(browser, consoleUrl());
    await page.getByRole('status').filter({ hasText: 'Live stream: live' }).waitFor();
    await page.getByRole('banner').getByText('MCP over http', { exact: true }).waitFor();
    const calls = page.getByRole('region', { name: 'Calls' });
    const result = await client.callTool({ name: 'echo', arguments: { text: 'from the client', times: 1 } });
    expect(textOf(result)).toBe('from the client');
    const row = calls.getByRole('row').filter({ has: page.getByRole('cell', { name: 'echo', exact: true }) });
    await row.first().waitFor({ timeout: 1000 });
    expect(await row.first().getByRole('cell', { name: 'OK', exact: true }).count()).toBe(1);
    expect(await calls.getByText('arguments and result', { exact: true }).count()).toBe(0);
    expect(await calls.textContent()).not.toContain('from the client');
    expect(misdeeds).toEqual({ dialogs: [], errors: [] });
    await page.context().close();
  });

  it('lists the client\'s MCP session in "Sessions", and a check flipping in "Changes" (a form keeps what was typed)', {
    timeout: 60_000,
  }, async () => {
    const { page } = await openPage(browser, consoleUrl());
    await page.getByRole('status').filter({ hasText: 'Live stream: live' }).waitFor();
    await page.getByRole('region', { name: 'Sessions' }).getByText(transport.sessionId!, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'echo', exact: true }).click();
    const text = page.getByRole('region', { name: 'Tool: echo' }).getByRole('textbox', { name: /^text/ });
    await text.fill('typed before the change');
    writeFileSync(path.join(project.dir, 'flag'), '');
    const changes = page.getByRole('region', { name: 'Changes' });
    const flipped = changes
      .getByRole('listitem')
      .filter({ hasText: 'flagged' })
      .filter({ hasText: 'hidden → exposed' });
    // flagged's check runs again once its 200 ms verdict is stale and the host evaluates the tools: a client listing
    // them.
    await expect.poll(async () => (await client.listTools(), await flipped.count())).toBeGreaterThan(0);
    await page
      .getByRole('region', { name: 'Tools' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('button', { name: 'flagged', exact: true }) })
      .getByText('exposed', { exact: true })
      .waitFor();
    // The selected tool's detail was fetched again for the new generation (its conditional part now shown); the form
    // kept what was typed.
    await page
      .getByRole('region', { name: 'Tool: echo' })
      .getByRole('listitem')
      .filter({ hasText: 'if flagged' })
      .getByText('shown', { exact: true })
      .waitFor();
    expect(await text.inputValue()).toBe('typed before the change');
    await page.context().close();
  });

  it('holds a call from a client without elicitation in "Approvals": Approve runs it, Deny refuses the next with APPROVAL_DENIED', {
    timeout: 60_000,
  }, async () => {
    const { page, misdeeds } = await openPage(browser, consoleUrl());
    await page.getByRole('status').filter({ hasText: 'Live stream: live' }).waitFor();
    const approvals = page.getByRole('region', { name: 'Approvals' });

    const approved = client.callTool({ name: 'delete_thing', arguments: { id: 'first' } });
    const held = approvals.getByRole('listitem').filter({ hasText: 'delete_thing' });
    await held.getByText('"id": "first"').waitFor();
    if (process.env.TOOLSHED_SCREENSHOT === '1') await screenshot(page);
    await held.getByRole('button', { name: 'Approve' }).click();
    expect(textOf(await approved)).toBe('deleted first');
    await held.waitFor({ state: 'detached' });

    const denied = client.callTool({ name: 'delete_thing', arguments: { id: 'second' } });
    await held.getByText('"id": "second"').waitFor();
    await held.getByRole('textbox', { name: 'Reason for denying delete_thing' }).fill('not today');
    await held.getByRole('button', { name: 'Deny' }).click();
    const refusal = await denied;
    expect(refusal.isError).toBe(true);
    expect(textOf(refusal)).toContain('APPROVAL_DENIED');
    expect(misdeeds).toEqual({ dialogs: [], errors: [] });
    await page.context().close();
  });

  it('shows a held call its client\'s own user approved first leave "Approvals", saying who answered', {
    timeout: 60_000,
  }, async () => {
    const { page, misdeeds } = await openPage(browser, consoleUrl());
    await page.getByRole('status').filter({ hasText: 'Live stream: live' }).waitFor();
    let answer!: () => void;
    const asked = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const asking = new Client({ name: 'asks-its-user', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    asking.setRequestHandler(ElicitRequestSchema, async () => {
      await asked;
      return { action: 'accept', content: { approve: true } };
    });
    await asking.connect(new StreamableHTTPClientTransport(new URL(serve.url)));
    try {
      const call = asking.callTool({ name: 'delete_thing', arguments: { id: 'by-its-user' } });
      const held = page
        .getByRole('region', { name: 'Approvals' })
        .getByRole('listitem')
        .filter({ hasText: 'by-its-user' });
      await held.waitFor();
      answer();
      expect(textOf(await call)).toBe('deleted by-its-user');
      await page.getByRole('status').filter({ hasText: 'delete_thing: approved by the caller' }).waitFor();
      await held.waitFor({ state: 'detached' });
    } finally {
      await asking.close();
    }
    expect(misdeeds).toEqual({ dialogs: [], errors: [] });
    await page.context().close();
  });
});

/** docs/console.png: echo selected and run from the form, calls in "Calls", delete_thing held in "Approvals". */
async function screenshot(page: import('playwright-core').Page): Promise<void> {
  await page.getByRole('button', { name: 'echo', exact: true }).click();
  const detail = page.getByRole('region', { name: 'Tool: echo' });
  await detail.getByRole('textbox', { name: /^text/ }).fill('hello from the console');
  await detail.getByRole('button', { name: 'Run' }).click();
  await page.getByRole('region', { name: 'Result' }).getByText('hello from the console').waitFor();
  await page.getByRole('region', { name: 'Calls' }).getByRole('cell', { name: 'echo', exact: true }).first().waitFor();
  // Down to the end of the tool's panel, and no further: nothing cut, no half of the next panel.
  const box = await detail.boundingBox();
  await page.setViewportSize({ width: 1440, height: Math.ceil(box!.y + box!.height + 12) });
  await page.screenshot({ path: SCREENSHOT });
}
