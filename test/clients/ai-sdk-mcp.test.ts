/**
 * The AI SDK's MCP client (`@ai-sdk/mcp`, `createMCPClient` over its stdio transport) starts
 * `toolshed serve` from its transport config, in both protocol eras: with discovery (its
 * default: `server/discover`, 2026-07-28) and without (`initialize`, 2025-11-25).
 *
 * It has no model of its own here: the test is the application, as an AI SDK app would use
 * the tool set it gets (`tools()`, each tool's `execute`). The client has no handler for
 * server notifications: it reports each one through `onUncaughtError` as an "Unsupported
 * message type" error, which is how the test sees list_changed arrive; an AI SDK app picks
 * up the new tool the way its docs say, by calling `tools()` again.
 */
import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientProject, ENVELOPE, type ClientProject } from './harness.js';

let project: ClientProject;
beforeAll(async () => {
  project = await clientProject();
});
afterAll(async () => {
  await project?.close();
});

/** The text of a tool's MCP result. */
function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

/**
 * The client's stdio transport starting `toolshed serve`. Over stdio the client waits only
 * 1 s for the `server/discover` answer (counted from the spawn, Node's start included), then
 * takes the server for a 2025-era one and sends `initialize`: on a busy machine even a plain
 * SDK server can miss that, so the modern case sets the transport's own switch to wait for
 * the answer, as its docs say a transport that always delivers one should.
 */
function stdioTransport(modern: boolean): StdioMCPTransport {
  const transport = new StdioMCPTransport({
    command: project.serve.command,
    args: project.serve.args,
    env: project.serve.env,
    cwd: project.dir,
    stderr: 'ignore',
  });
  return modern ? Object.assign(transport, { waitsForProtocolVersionDiscovery: true }) : transport;
}

/** What a tool call's execute needs besides the arguments. */
const CALL = { toolCallId: 'call-1', messages: [], context: {} };

for (const { era, discovery, revision } of [
  { era: 'modern', discovery: true, revision: '2026-07-28' },
  { era: 'legacy', discovery: false, revision: '2025-11-25' },
]) {
  describe(`AI SDK MCP client (${era} era)`, () => {
    let client: MCPClient;
    const uncaught: unknown[] = [];
    beforeAll(async () => {
      client = await createMCPClient({
        transport: stdioTransport(discovery),
        protocolVersionDiscovery: discovery,
        onUncaughtError: (error) => uncaught.push(error),
      });
    }, 120_000);
    afterAll(async () => {
      await client?.close();
    });

    it(`negotiates ${revision}`, () => {
      expect(client.initializeResult.protocolVersion).toBe(revision);
      expect(client.serverInfo.name).toBe('toolshed');
    });

    it('sees the tools, calls one, and gets the error envelope of a failing one', async () => {
      const tools = await client.tools();
      expect(Object.keys(tools).sort()).toEqual(['add_numbers', 'divide_numbers', 'tool_search']);
      expect(textOf(await tools.add_numbers!.execute({ a: 2, b: 3 }, CALL))).toBe('{"sum":5}');
      const failed = await tools.divide_numbers!.execute({ a: 1, b: 0 }, CALL);
      expect((failed as { isError?: boolean }).isError).toBe(true);
      expect(textOf(failed)).toBe(ENVELOPE);
    });

    it('gets list_changed when tool_search loads a tool, and lists it next time', async () => {
      const tools = await client.tools();
      const found = textOf(await tools.tool_search!.execute({ query: 'reverse the characters of a text' }, CALL));
      expect(found).toContain('"name":"reverse_text"');
      if (discovery) {
        // A 2026-07-28 client hears list changes only on a subscriptions/listen stream, which this client never opens.
        expect(uncaught).toEqual([]);
      } else {
        await expect
          .poll(() => uncaught.map((error) => String((error as Error).message)))
          .toContain('Unsupported message type');
      }
      const again = await client.tools();
      expect(Object.keys(again)).toContain('reverse_text');
      expect(textOf(await again.reverse_text!.execute({ text: 'toolshed' }, CALL))).toBe('dehsloot');
    });
  });
}
