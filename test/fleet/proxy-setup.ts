/**
 * Shared setup of the proxy tests: a project serving the kitchen (echo, slow)
 * and notes (delete_note, which needs approval) fixtures, the shipped balancer
 * configurations read from `deploy/` as they are, and SDK clients of both eras.
 */
import { readFileSync } from 'node:fs';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { kitchenProject } from '../mcp/setup.js';

/** A shipped configuration, `deploy/<balancer>/<mode>`. */
export function shipped(file: string): string {
  return readFileSync(new URL(`../../deploy/${file}`, import.meta.url), 'utf8');
}

/**
 * A temp project folder whose config serves kitchen and notes, approval on delete_note, with `threads` workers (one
 * call each at a time).
 */
export function proxyProject(prefix: string, threads = 2): { dir: string; config: string; cleanup(): void } {
  return kitchenProject(prefix, ['notes'], {
    approve: ['delete_note'],
    // A loaded machine can take seconds to load a plugin: a replica that gave up would not list it.
    limits: { threads, timeoutMs: 120_000, loadTimeoutMs: 60_000 },
  });
}

/** A 2025-era SDK client (1.x) that approves every elicitation, connected to `url`. */
export async function legacyClient(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'proxy-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: true } }));
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

/** A 2026-07-28 SDK client (v2, version negotiation on), connected to `url`. */
export async function modernClient(url: string): Promise<V2Client> {
  const client = new V2Client(
    { name: 'proxy-test-modern', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new V2Transport(new URL(url)));
  return client;
}

/** The text of a tools/call result. */
export function textOf(result: unknown): string {
  return (result as { content: Array<{ text: string }> }).content.map((part) => part.text).join('');
}
