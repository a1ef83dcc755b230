/** Shared setup of the MCP interop tests: a project folder with a config of fixture plugins. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { fixture, tempDir } from '../helpers.js';

/** The CLI entry the stdio tests spawn. */
export const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));

/**
 * The config of a project serving the kitchen fixture (echo, slow, chatty, throws…; its loop, oom
 * and exit tools disabled), then `plugins` (fixture plugin names, or paths), all trusted, with
 * `extra` on top (a `disable` of its own replaces the kitchen's).
 */
export function kitchenConfig(plugins: string[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    builtins: false,
    cache: { enabled: false },
    plugins: ['kitchen', ...plugins].map((plugin) => ({
      package: path.isAbsolute(plugin) ? plugin : fixture('plugins', plugin),
      trust: 'trusted',
    })),
    disable: ['loop', 'oom', 'exit'],
    ...extra,
  };
}

/**
 * A temp project folder holding `toolshed.config.json` (kitchenConfig of `plugins` and `extra`) and a
 * package.json, which ends the config search there; remove it with cleanup().
 * @example
 * const project = kitchenProject('toolshed-fuzz-', ['notes'], { limits: { threads: 1 } });
 */
export function kitchenProject(
  prefix: string,
  plugins: string[] = [],
  extra: Record<string, unknown> = {},
): { dir: string; config: string; cleanup(): void } {
  const work = tempDir(prefix);
  const config = path.join(work.dir, 'toolshed.config.json');
  writeFileSync(
    path.join(work.dir, 'package.json'),
    `{"name":"${path.basename(work.dir).toLowerCase()}","private":true}`,
  );
  writeFileSync(config, JSON.stringify(kitchenConfig(plugins, extra)));
  return { ...work, config };
}

/**
 * What the MCP tests serve besides kitchen: probe (checks driven by `<name>.mode` files in the project folder) and
 * noisy (prints to stdout from its worker).
 */
const MCP_PLUGINS = ['probe', fileURLToPath(new URL('./fixtures/noisy', import.meta.url))];

/**
 * Two threads, because chatty's nested callTool needs a second worker; graceMs 0 so a failing check hides its tool at
 * once.
 */
const mcpLimits = (ttlMs: number) => ({ checks: { ttlMs, graceMs: 0 }, limits: { threads: 2, timeoutMs: 120_000 } });

/** The config every MCP test serves: kitchen, probe and noisy (MCP_PLUGINS), checks cached for `ttlMs`. */
export function mcpConfig(ttlMs: number): Record<string, unknown> {
  return kitchenConfig(MCP_PLUGINS, mcpLimits(ttlMs));
}

/** A temp project folder holding `toolshed.config.json` (mcpConfig); remove it with cleanup(). */
export function mcpProject(ttlMs: number): { dir: string; config: string; cleanup(): void } {
  return kitchenProject('toolshed-mcp-', MCP_PLUGINS, mcpLimits(ttlMs));
}

/** A promise and the function that settles it, for events a test waits on. */
export function signal<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The text of a tools/call result's single text part. */
export function textOf(result: unknown): string {
  const content = (result as { content: Array<{ type: string; text: string }> }).content;
  return content.map((part) => part.text).join('');
}

/**
 * Records every message a connected client's transport delivers, in the order it arrived,
 * before the SDK's Protocol handles it. Progress is checked here, on the wire: the SDK client
 * dispatches notifications a microtask late but responses at once, so a progress notification
 * read in the same chunk as its result is dropped by the client itself
 * (modelcontextprotocol/typescript-sdk#2580), whatever order the server wrote them in.
 */
export function recordIncoming(transport: Transport): JSONRPCMessage[] {
  const seen: JSONRPCMessage[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    seen.push(message);
    deliver?.(message, extra);
  };
  return seen;
}

/**
 * The progress notifications for the one tools/call answered in `wire` (a slice of a
 * recordIncoming() log taken around that call), and where they and its response came.
 */
export function progressOnWire(wire: JSONRPCMessage[]): {
  progress: Array<{ progress: number; total?: number }>;
  responseAt: number;
  lastProgressAt: number;
} {
  const responseAt = wire.findIndex((message) => 'id' in message && ('result' in message || 'error' in message));
  if (responseAt < 0) throw new Error('no response in this part of the wire');
  const id = (wire[responseAt] as { id: string | number }).id;
  const progress: Array<{ progress: number; total?: number }> = [];
  let lastProgressAt = -1;
  wire.forEach((message, index) => {
    if ('method' in message && message.method === 'notifications/progress' && message.params?.progressToken === id) {
      const { progress: done, total } = message.params as { progress: number; total?: number };
      progress.push(total === undefined ? { progress: done } : { progress: done, total });
      lastProgressAt = index;
    }
  });
  return { progress, responseAt, lastProgressAt };
}
