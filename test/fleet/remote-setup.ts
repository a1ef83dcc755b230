/**
 * What the remote-toolset fleet tests share: a project for `toolshed serve --http`
 * replicas (the kitchen plugin, whose `slow` tool keeps calls in flight), haproxy
 * in front of them, and a host whose only toolset is the balancer's URL.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createToolHost, type Clock, type HostReport, type ToolHost } from 'toolshed';
import { fixture, tempDir, until as waitUntil, type ManualClock } from '../helpers.js';
import { startHaproxy, type Haproxy } from '../support/fleet.js';

/** A project folder whose config serves the kitchen plugin; remove it with `cleanup`. */
export function replicaProject(): { dir: string; cleanup(): void } {
  const project = tempDir('toolshed-remote-');
  const config = {
    builtins: false,
    cache: { enabled: false },
    plugins: [{ package: fixture('plugins', 'kitchen'), trust: 'trusted' }],
  };
  writeFileSync(path.join(project.dir, '.toolshedrc.json'), JSON.stringify(config));
  return project;
}

/**
 * haproxy in front of replicas: round robin (stateless replicas), or `first` (every request to the
 * first replica that is up, so a stateful session moves only when its replica dies). A request
 * refused at connect is sent to another replica (`option redispatch`), as a balancer in front of
 * a fleet is configured. Each server is named by its own address and `http-send-name-header Host`
 * sends that name, so every replica sees its own `host:port`: its loopback Host check refuses any
 * other (until serve learns to trust a proxy).
 */
export function startBalancer(
  addresses: readonly string[],
  dir: string,
  balance: 'roundrobin' | 'first' = 'roundrobin',
): Promise<Haproxy> {
  const servers = addresses
    .map((address) => `    server ${address} ${address} check inter 500ms fall 1 rise 1`)
    .join('\n');
  const config = `global
    maxconn 1000
defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    retries 2
    option redispatch 1
frontend mcp
    bind 127.0.0.1:{{PORT}}
    default_backend replicas
backend replicas
    balance ${balance}
    http-send-name-header Host
${servers}
`;
  return startHaproxy(config, addresses, dir);
}

/**
 * A host whose one toolset is the MCP server at `url` (named `fleet`), probed every `probeIntervalMs` (of `clock`,
 * default the real one).
 */
export function remoteHost(url: string, entry: Record<string, unknown> = {}, clock?: Clock): Promise<ToolHost> {
  return createToolHost({
    cwd: process.cwd(),
    env: { PATH: process.env.PATH },
    ...(clock ? { clock } : {}),
    config: { builtins: false, cache: { enabled: false }, mcpServers: { fleet: { url, ...entry } } },
  });
}

/**
 * Fires the next timer of `clock` once one is set to fall due within `withinMs` (a probe of a
 * host on that clock is set only once the last one was answered): one probe round, without waiting.
 */
export async function nextProbe(clock: ManualClock, withinMs: number): Promise<void> {
  const at = await waitUntil(
    () => {
      const next = clock.next();
      return next !== undefined && next <= clock.now() + withinMs ? next : undefined;
    },
    { what: `a timer due within ${withinMs} ms` },
  );
  clock.advance(at - clock.now());
}

/** The `fleet` server's connection report. */
export function fleet(report: HostReport) {
  return report.plugins.find((plugin) => plugin.name === 'mcp:fleet')!.mcp!;
}

/**
 * Resolves with the report once `predicate` holds, rejects after `timeoutMs`; `step` runs before each look (a clock
 * moved on).
 */
export async function until(
  host: ToolHost,
  predicate: (report: HostReport) => boolean,
  what: string,
  timeoutMs = 30_000,
  step?: () => Promise<void>,
): Promise<HostReport> {
  let last: HostReport | undefined;
  try {
    return await waitUntil(
      async () => {
        await step?.();
        last = host.explain();
        return predicate(last) ? last : undefined;
      },
      { timeoutMs, intervalMs: 25, what },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}: ${last ? JSON.stringify(fleet(last)) : 'no report'}`);
  }
}
