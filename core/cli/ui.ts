/**
 * `toolshed ui`: a host with the web console on a listener of its own
 * (docs/console.md). The host opens as `serve` opens it (MCP servers join
 * when they have listed their tools, so a slow one never delays the page).
 * The console's URL is the one line on stdout; notes, the plugins' log lines
 * and failures go to stderr. Runs until SIGINT/SIGTERM, then closes the
 * listener, its event streams and the host.
 */
import { spawn } from 'node:child_process';
import { UsageError } from '../../boundary/errors.js';
import { visible } from '../text/visible.js';
import { isLoopback, parseListenAddress, type ListenAddress } from '../http/address.js';
import { normalizeOrigin } from '../http/access.js';
import { bearerToken, list, refuseUnauthenticated, surviveLostStderr, untilSignal } from './serve.js';
import { failedPlugins, openHost } from './open-host.js';
import { logLine } from './log-line.js';
import type { ConsoleEndpoint, ConsoleListenOptions } from '../console/listener.js';
import type { CommandContext } from './context.js';
import type { ToolHost } from '../host/host.js';
import { configOf } from '../host/inspector.js';

/** Where the console listens when --http is not given. */
const DEFAULT_ADDRESS: ListenAddress = { host: '127.0.0.1', port: 7420 };

function log(line: string): void {
  process.stderr.write(`toolshed ui: ${visible(line)}\n`);
}

/** The command that opens a URL in the system's browser. */
function opener(url: string): [string, string[]] {
  if (process.platform === 'darwin') return ['open', [url]];
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""', url]];
  return ['xdg-open', [url]];
}

/** Opens `url` in the browser; a failure is a note on stderr, never fatal. */
function openBrowser(url: string): void {
  const [command, args] = opener(url);
  const fail = (why: string) => log(`could not open a browser (${command}: ${why}); open ${url} yourself`);
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', (error) => fail(error.message));
    child.once('exit', (code) => {
      if (code !== 0 && code !== null) fail(`exit code ${code}`);
    });
    child.unref();
  } catch (error) {
    fail((error as Error).message);
  }
}

/** Listens on `address`; without --http, a taken default port falls back to a free one. */
async function listen(
  host: ToolHost,
  address: ListenAddress,
  given: boolean,
  options: Omit<ConsoleListenOptions, 'host' | 'port'>,
): Promise<ConsoleEndpoint> {
  const { serveConsole } = await import('../console/listener.js');
  try {
    return await serveConsole(host, { ...address, ...options });
  } catch (error) {
    if (given || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    log(`port ${address.port} is taken; using a free one`);
    return serveConsole(host, { ...address, port: 0, ...options });
  }
}

/** `toolshed ui`: the flags checked first, then the host opened and the console served until a signal. */
export async function runUiCommand({ values, io }: CommandContext): Promise<number> {
  const address = values.http === undefined ? DEFAULT_ADDRESS : parseListenAddress(values.http);
  const token = bearerToken(values.tokenEnv);
  const allowedOrigins = list(values.allowOrigin).map(normalizeOrigin);
  const signals = untilSignal();
  surviveLostStderr();
  let host: ToolHost | undefined;
  let endpoint: ConsoleEndpoint | undefined;
  try {
    host = await openHost(values, io, { waitForServers: false });
    if (!isLoopback(address.host) && token === undefined && !configOf(host).serve.auth)
      refuseUnauthenticated(address.host, log);
    for (const line of failedPlugins(host.explain())) log(`plugin failed: ${line}`);
    host.on('log', (entry) => log(logLine(entry)));
    host.on('warning', (message) => log(`warning: ${message}`));
    endpoint = await listen(host, address, values.http !== undefined, {
      allowedOrigins,
      onError: (error) => log(`error: ${(error as Error)?.message ?? String(error)}`),
      ...(token !== undefined ? { bearerToken: token } : {}),
    });
    io.out(endpoint.url);
    if (token !== undefined)
      log(
        `the API needs the bearer token from ${values.tokenEnv}: open ${endpoint.url}#token=… or sign in on the page`,
      );
    if (values.open) openBrowser(endpoint.url);
    const reason = await Promise.race([endpoint.closed.then(() => 'the listener closed'), signals.signalled]);
    log(`stopping (${reason})`);
    return 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new UsageError(`--http ${values.http}: the address is in use; pick another port (or 0 for a free one)`);
    throw error;
  } finally {
    signals.dispose();
    await endpoint?.close();
    await host?.close();
  }
}
