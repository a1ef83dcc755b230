/**
 * `toolshed accept`: the operator's decision on MCP tool definitions that changed
 * since they were accepted (a server's "rug pull", docs/mcp-servers.md#pinned-definitions).
 * It starts the host (so each server lists what it serves now), shows each
 * change as a line diff, pins the new definitions and says what it accepted.
 */
import type { DefinitionChange } from '../runners/connection-report.js';
import { UsageError } from '../../boundary/errors.js';
import type { CommandContext } from './context.js';
import { openHost } from './open-host.js';

/** The lines that show one change. */
export function changeLines(change: DefinitionChange): string[] {
  const own = change.name === change.tool ? '' : ` (${change.tool} on the server)`;
  const since =
    change.kind === 'added'
      ? `new since its server's tools were accepted on ${change.acceptedAt}`
      : `changed since accepted on ${change.acceptedAt}`;
  return [
    `${change.server}: ${change.name}${own} ${change.mode === 'hold' ? 'held' : 'served with a warning'}, ${since}:`,
    ...change.diff.map((line) => `  ${line}`),
  ];
}

/** The changed definitions the host's servers list now. */
function pending(report: Awaited<ReturnType<Awaited<ReturnType<typeof openHost>>['refresh']>>): DefinitionChange[] {
  return report.plugins.flatMap((p) => p.mcp?.definitionChanges ?? []);
}

/** `toolshed accept [server] [tools...] [--all]`. */
export async function runAcceptCommand({ args, values, io }: CommandContext): Promise<number> {
  const server = args[0];
  const tools = (args[1] as unknown as string[] | undefined) ?? [];
  if (server !== undefined && values.all) throw new UsageError('give a server (and tools), or --all, not both');
  const host = await openHost(values, io);
  try {
    if (server === undefined && !values.all) {
      const changes = pending(await host.refresh());
      if (!changes.length) {
        io.out('nothing to accept: every MCP tool definition is as accepted');
        return 0;
      }
      for (const change of changes) io.out(changeLines(change).join('\n'));
      io.out(`\nnothing accepted: run toolshed accept SERVER [TOOL...], or toolshed accept --all`);
      return 1;
    }
    const accepted = await host.acceptDefinitions({
      ...(server !== undefined ? { server } : {}),
      ...(tools.length ? { tools } : {}),
    });
    if (!accepted.length) {
      io.out('nothing to accept: the definitions named are as accepted');
      return 0;
    }
    for (const change of accepted) io.out(changeLines(change).join('\n'));
    io.out(
      `\naccepted ${accepted.length} definition${accepted.length === 1 ? '' : 's'}: ` +
        `${accepted.map((c) => c.name).join(', ')}`,
    );
    return 0;
  } finally {
    await host.close();
  }
}
