/**
 * The transport of one attempt: Streamable HTTP (pinned fetch, the OAuth provider), or the
 * stdio server's sandboxed process, its stderr, its exit and the watchdog on its resources.
 */
import type { ChildProcess } from 'node:child_process';
import { StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { killTree, watchResources } from '../../boundary/launch/resource-watch.js';
import { overLimitMessage } from '../../boundary/launch/resources.js';
import type { Attempt } from './attempt.js';
import type { ResolvedServer } from './config.js';
import type { StdioLaunch } from './launch.js';
import type { ServerOAuth } from './oauth-client.js';
import { pinnedFetch } from './pinned-fetch.js';

/**
 * The SDK's stdio transport under another name. The SDK probes the era of a server on its own
 * `StdioClientTransport` in a sibling process started beside it, outside the host's watchdog; a
 * subclass is probed in place, in the one sandboxed process toolshed started and watches.
 */
class InPlaceStdioTransport extends StdioClientTransport {}

/** What an attempt's transport reports back to its connection. */
export interface TransportHooks {
  /** whether the host closed: a stdio server is then not started */
  closed(): boolean;
  /** text the server wrote to stderr */
  stderr(attempt: Attempt, text: string): void;
  /** a note about the server's process */
  onLog(message: string): void;
}

/** A new transport for `attempt`, kept on it so close() can close it. */
export function attemptTransport(
  attempt: Attempt,
  server: ResolvedServer,
  how: { launch: StdioLaunch | undefined; oauth: ServerOAuth | undefined; hooks: TransportHooks },
): Transport {
  attempt.transport = server.http
    ? httpTransport(server.http, how.oauth)
    : stdioTransport(attempt, server, how.launch!, how.hooks);
  return attempt.transport;
}

function httpTransport(http: NonNullable<ResolvedServer['http']>, oauth: ServerOAuth | undefined): Transport {
  const { url, headers } = http;
  return new StreamableHTTPClientTransport(url, {
    requestInit: { headers },
    fetch: pinnedFetch(url),
    ...(oauth ? { authProvider: oauth.transportAuth() } : {}),
  });
}

function stdioTransport(attempt: Attempt, server: ResolvedServer, launch: StdioLaunch, hooks: TransportHooks) {
  const transport = new InPlaceStdioTransport({
    command: launch.command,
    args: launch.args,
    env: launch.env,
    cwd: launch.cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => hooks.stderr(attempt, chunk.toString('utf8')));
  const close = transport.close.bind(transport);
  transport.close = () => {
    if (!attempt.exit) attempt.closedFirst = true;
    return close();
  };
  const start = transport.start.bind(transport);
  transport.start = async () => {
    if (hooks.closed()) throw new Error('the host is closed');
    const started = start();
    // The SDK keeps the child private and drops its exit code; the code is what tells an operator why it stopped.
    const child = (transport as unknown as { _process?: ChildProcess })._process;
    child?.once('exit', (code, signal) => attempt.exited({ code, signal }, launch.resources));
    if (child?.pid !== undefined) {
      attempt.pid = child.pid;
      watch(attempt, child.pid, server, launch, hooks);
    }
    return started;
  };
  return transport;
}

/** Holds an untrusted server to its `resources`: past one, its whole process tree is killed and the reason kept. */
function watch(attempt: Attempt, pid: number, server: ResolvedServer, launch: StdioLaunch, hooks: TransportHooks) {
  const limits = launch.resources;
  if (!limits) return;
  attempt.unwatch = watchResources(pid, limits, (over) => {
    attempt.stopped = overLimitMessage(over.limit, limits, over.seen);
    hooks.onLog(`the MCP server ${server.name} was stopped by toolshed: ${attempt.stopped}`);
    killTree(pid);
  });
}
