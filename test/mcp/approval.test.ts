/**
 * Approval over `toolshed serve`: a call that needs approval asks the client's
 * user through MCP elicitation when the client supports it, and is refused
 * with a clear message when it does not. Tool annotations reach tools/list.
 * Both clients are the official SDK client spawning the real server over stdio.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost } from 'toolshed';
import { serveHttp } from 'toolshed/mcp';
import { fixture, fixtureOptions, tempDir, suiteHome } from '../helpers.js';
import { BIN, textOf } from './setup.js';

const work = tempDir('toolshed-mcp-approval-');
const config = path.join(work.dir, 'toolshed.config.json');
writeFileSync(path.join(work.dir, 'package.json'), '{"name":"mcp-approval","private":true}');
writeFileSync(
  config,
  JSON.stringify({
    builtins: false,
    cache: { enabled: false },
    plugins: [{ package: fixture('plugins', 'notes'), trust: 'trusted' }],
    approve: ['delete_note'],
  }),
);

async function connect(client: Client): Promise<Client> {
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--config', config],
      cwd: work.dir,
      env: { ...suiteHome(), PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    }),
  );
  return client;
}

let asking: Client;
let plain: Client;
const questions: ElicitRequest['params'][] = [];
let reply: ElicitResult = { action: 'accept', content: { approve: true } };

beforeAll(async () => {
  asking = new Client({ name: 'asks-its-user', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  asking.setRequestHandler(ElicitRequestSchema, async (request) => {
    questions.push(request.params);
    return reply;
  });
  [asking, plain] = await Promise.all([connect(asking), connect(new Client({ name: 'cannot-ask', version: '1.0.0' }))]);
});
afterAll(async () => {
  await Promise.all([asking?.close(), plain?.close()]);
  work.cleanup();
});

describe('approval over serve', () => {
  it('lists each tool with its annotations', async () => {
    const { tools } = await asking.listTools();
    expect(tools.find((t) => t.name === 'delete_note')!.annotations).toEqual({ destructiveHint: true });
    expect(tools.find((t) => t.name === 'read_note')!.annotations).toMatchObject({
      readOnlyHint: true,
      title: 'Read a note',
    });
  });

  it("asks the client's user with an elicitation, and runs the call when they approve", async () => {
    reply = { action: 'accept', content: { approve: true } };
    const result = await asking.callTool({ name: 'delete_note', arguments: { id: 'a' } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('deleted a');
    expect(questions).toHaveLength(1);
    expect(questions[0]!.message).toContain('delete_note');
    expect(questions[0]!.message).toContain('{"id":"a"}');
    expect(questions[0]).toMatchObject({
      requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
    });
  });

  it('refuses the call with APPROVAL_DENIED when the user declines or does not tick the box', async () => {
    reply = { action: 'decline' };
    const declined = await asking.callTool({ name: 'delete_note', arguments: { id: 'a' } });
    expect(declined.isError).toBe(true);
    expect(JSON.parse(textOf(declined))).toEqual({
      code: 'APPROVAL_DENIED',
      error: 'delete_note was not approved: the user declined; it did not run',
    });
    reply = { action: 'accept', content: { approve: false } };
    expect(JSON.parse(textOf(await asking.callTool({ name: 'delete_note', arguments: { id: 'a' } }))).code).toBe(
      'APPROVAL_DENIED',
    );
  });

  it('refuses with a clear message when the client cannot ask (no elicitation), and asks nothing for other tools', async () => {
    const result = await plain.callTool({ name: 'delete_note', arguments: { id: 'a' } });
    expect(result.isError).toBe(true);
    const envelope = JSON.parse(textOf(result));
    expect(envelope.code).toBe('APPROVAL_DENIED');
    expect(envelope.error).toContain('this MCP client cannot ask its user (it does not support elicitation)');
    // Each stdio connection is a session of its own, which the fixture names in its answer.
    expect(textOf(await plain.callTool({ name: 'read_note', arguments: { id: 'b' } }))).toMatch(
      /^note b \(session mcp-[0-9a-f-]{36}\)$/,
    );
  });
});

describe('approval over serve --http', () => {
  it("asks through an elicitation on the client's session, and refuses a client that cannot ask", async () => {
    const host = await createToolHost(fixtureOptions(['notes'], { config: { approve: ['delete_note'] } }));
    const endpoint = await serveHttp(host, { host: '127.0.0.1', port: 0 });
    const asked: string[] = [];
    const asker = new Client({ name: 'asks-over-http', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    asker.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    const mute = new Client({ name: 'cannot-ask-over-http', version: '1.0.0' });
    try {
      await asker.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
      await mute.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
      expect(textOf(await asker.callTool({ name: 'delete_note', arguments: { id: 'h' } }))).toBe('deleted h');
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('delete_note');
      const refused = await mute.callTool({ name: 'delete_note', arguments: { id: 'h' } });
      expect(refused.isError).toBe(true);
      expect(JSON.parse(textOf(refused))).toMatchObject({
        code: 'APPROVAL_DENIED',
        error: expect.stringContaining('does not support elicitation'),
      });
      expect(asked).toHaveLength(1);
    } finally {
      await Promise.all([asker.close(), mute.close()]);
      await endpoint.close();
      await host.close();
    }
  });
});
