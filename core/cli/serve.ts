/**
 * `toolshed serve`: the MCP server over stdio (default) or Streamable HTTP
 * (`--http HOST:PORT`), with `--watch` reloading the config and plugins on
 * change. Stdout belongs to the protocol, so everything human goes to
 * stderr. Runs until the client closes stdin, or SIGINT/SIGTERM, then closes
 * the endpoint and the host (pools, child processes, ports).
 */
import { UsageError } from '../../boundary/errors.js';
import { visibleLine, visible } from '../text/visible.js';
import { isLoopback, parseListenAddress } from '../http/address.js';
import { normalizeOrigin, normalizePublicUrl } from '../http/access.js';
import { serveStdio } from '../mcp-server/stdio/stdio.js';
import type { McpEndpoint, SessionSnapshot } from '../mcp-server/public-types.js';
import { createReloadingHost, type ReloadingHost } from '../host/reloading-host.js';
import { clientRoot } from '../mcp-server/protocol/client-roots.js';
import type { Server } from '@modelcontextprotocol/server';
import type { ToolHost } from '../host/host.js';
import { configOf } from '../host/inspector.js';
import type { CommandContext } from './context.js';
import { openingHost } from '../host/opening-host.js';
import type { RequestLogEntry } from '../http/public-types.js';
import type { Console } from '../console/console.js';

/**
 * Set to 1 to let `--http` bind a non-loopback address without `--token-env` or `serve.auth` (no authentication at
 * all).
 */
export const ALLOW_REMOTE_ENV = 'TOOLSHED_SERVE_ALLOW_REMOTE';

/**
 * A line on stderr, its control characters shown as text (plugins' log lines, servers' stderr, clients' requests are in
 * them).
 */
function log(line: string): void {
  process.stderr.write(`toolshed serve: ${visible(line)}\n`);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The flags `serve` reads. */
type ServeValues = {
  http?: string;
  stateless?: boolean;
  ops?: boolean;
  allowOrigin?: string;
  tokenEnv?: string;
  publicUrl?: string;
  replica?: string;
  watch?: boolean;
  watchWorkspace?: boolean;
  strict?: boolean;
  ui?: boolean;
  quiet?: boolean;
};

/** A replica's name goes into session ids and a balancer's routing rules: short, and no dots (the separator). */
const REPLICA_NAME = /^[A-Za-z0-9_-]{1,40}$/;

/** A comma-separated flag's values, trimmed, empty ones dropped. */
export function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The bearer token named by `--token-env`: the variable must be set and not empty. */
export function bearerToken(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const token = process.env[name];
  if (!token)
    throw new UsageError(
      `--token-env ${name}: the environment variable ${name} is not set (or empty); set it to the token ` +
        `clients must send`,
    );
  return token;
}

/** Checks the flags before any plugin loads, so a usage error costs nothing. */
function plan(values: ServeValues) {
  if (values.stateless && values.http === undefined)
    throw new UsageError('--stateless is a mode of --http: add --http HOST:PORT');
  if (values.ops && values.http === undefined)
    throw new UsageError('--ops serves endpoints beside --http: add --http HOST:PORT');
  if (values.ui && values.http === undefined)
    throw new UsageError('--ui serves the console beside --http: add --http HOST:PORT (or run toolshed ui)');
  if (values.http === undefined) {
    if ([values.allowOrigin, values.tokenEnv, values.publicUrl, values.replica].some((value) => value !== undefined)) {
      throw new UsageError('--allow-origin, --token-env, --public-url and --replica apply to --http only');
    }
    return { kind: 'stdio' as const };
  }
  const address = parseListenAddress(values.http);
  const token = bearerToken(values.tokenEnv);
  const allowedOrigins = list(values.allowOrigin).map(normalizeOrigin);
  if (values.replica !== undefined && !REPLICA_NAME.test(values.replica))
    throw new UsageError(`--replica expects a name of letters, digits, - and _ (at most 40), got '${values.replica}'`);
  const routing = {
    ...(values.publicUrl !== undefined ? { publicUrls: list(values.publicUrl).map(normalizePublicUrl) } : {}),
    ...(values.replica !== undefined ? { replica: values.replica } : {}),
  };
  // Without a token, a non-loopback address needs the config's serve.auth: checked once the config is read.
  const exposed = !isLoopback(address.host) && token === undefined;
  return {
    kind: 'http' as const,
    address,
    allowedOrigins,
    routing,
    exposed,
    ...(token !== undefined ? { bearerToken: token } : {}),
  };
}

/**
 * Refuses to serve `address` to the network with no authentication at all, unless the operator set ALLOW_REMOTE_ENV
 * (then `warn` says so).
 */
export function refuseUnauthenticated(address: string, warn: (line: string) => void = log): void {
  if (process.env[ALLOW_REMOTE_ENV] !== '1') {
    throw new UsageError(
      `refusing to serve on ${address} without authentication: anyone who reaches it could run your tools. ` +
        (`Require OAuth tokens with serve.auth in the config or a bearer token with --token-env NAME, bind ` +
          `127.0.0.1 (and put an authenticating proxy in front), or set ${ALLOW_REMOTE_ENV}=1 to accept the risk.`),
    );
  }
  warn(`WARNING: serving without authentication on non-loopback address ${address} (${ALLOW_REMOTE_ENV}=1)`);
}

/** How the log line names what a client must present. */
function authNote(host: ToolHost, tokenEnv: string | undefined): string {
  const { auth } = configOf(host).serve;
  if (auth) return ` (OAuth: access tokens from ${auth.issuer} required)`;
  return tokenEnv !== undefined ? ` (bearer token from ${tokenEnv} required)` : '';
}

/** Where `--ui` mounts the console on serve's listener. */
const CONSOLE_PREFIX = '/ui/';

/** A request's log line: `POST /mcp 200 12ms tools/call read_file session 1a2b3c4d from 127.0.0.1`. */
function requestLine(entry: RequestLogEntry): string {
  // The method names, tool, path and session id are the client's: one line, whatever they hold.
  const rpc = entry.rpc ? ` ${visibleLine(entry.rpc)}${entry.tool ? ` ${visibleLine(entry.tool)}` : ''}` : '';
  const session = entry.session ? ` session ${visibleLine(entry.session)}` : '';
  return (
    `${entry.method} ${visibleLine(entry.path)} ${entry.status} ${entry.ms}ms${rpc}${session} from ` + `${entry.client}`
  );
}

/** How long `serve` over stdio waits for the client's opening before it starts loading the host anyway. */
const CLIENT_OPENING_WAIT_MS = 50;

/**
 * Keeps a long-running command going when its stderr is gone (the terminal closed, a log pipe broke):
 * a write then fails with EPIPE as an 'error' event nobody listens to, which would stop the process
 * on the next request's log line. Its lines are dropped instead.
 */
export function surviveLostStderr(): void {
  // Installed once, for the rest of the process: an error from a write made just before the end
  // (the "stopping" line) arrives after the write returns, and with no listener left it would end
  // a clean stop with exit 1.
  if (stderrKept) return;
  stderrKept = true;
  process.stderr.on('error', () => {});
}

let stderrKept = false;

/** Resolves on the first SIGINT/SIGTERM; a second one exits at once (a stuck shutdown must stay interruptible). */
export function untilSignal(): { signalled: Promise<string>; dispose(): void } {
  let resolveSignal!: (name: string) => void;
  const signalled = new Promise<string>((resolve) => {
    resolveSignal = resolve;
  });
  let count = 0;
  const onSignal = (name: NodeJS.Signals) => {
    count += 1;
    if (count > 1) process.exit(130);
    resolveSignal(name);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signalled,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * A host that reloads itself when the config file or a configured plugin's
 * files change; a reload that fails (a config error mid-edit) keeps the tools
 * that were being served. The watch follows the config: a plugin added to it
 * is watched after the reload that loaded it.
 */
function watch(
  host: ReloadingHost,
  workspace: boolean,
  { splitWatched, watchedPaths, watchPaths }: typeof import('../mcp-server/watch.js'),
): ReloadingHost {
  let stop = () => {};
  const onError = (error: unknown) => log(`watch: ${describe(error)}`);
  let skipped: string[] = [];
  const rewatch = () => {
    stop();
    // What the model's tools can write is never reloaded on its own: a write there would
    // become host code or config within a second. Only --watch-workspace says otherwise.
    const split = splitWatched(watchedPaths(configOf(host)), host.explain().protection.writable);
    const paths = workspace ? [...split.outside, ...split.writable] : split.outside;
    skipped = workspace ? [] : split.writable;
    stop = watchPaths(paths, reload, onError, host.clock);
    return paths;
  };
  const reload = () => {
    log('change detected, reloading');
    host.reload().then(
      () => log(`reloaded; watching ${rewatch().length} paths`),
      (error) => log(`reload failed, still serving the previous tools: ${describe(error)}`),
    );
  };
  const watched = rewatch().join(', ');
  log(`watching ${watched || 'nothing (no config file and no configured plugins outside the model-writable folders)'}`);
  if (skipped.length)
    log(
      `not watching ${skipped.join(', ')}: the model's tools can write there (restart to load a change, or ` +
        `pass --watch-workspace)`,
    );
  if (workspace) log('--watch-workspace: files the model can write are reloaded into the host when they change');
  const close = host.close;
  host.close = async () => {
    stop();
    await close();
  };
  return host;
}

/**
 * What an operator needs to see first when a client launched the server:
 * which config it found, where the tools work, and which plugins failed.
 */
async function logStartup(host: ToolHost): Promise<string[]> {
  const { failedPlugins } = await import('./open-host.js');
  const report = host.explain();
  log(
    report.config.file
      ? `config: ${report.config.file}`
      : 'no config found: embedded default (every first-party toolset)',
  );
  log(`root: ${report.config.root}`);
  const failed = failedPlugins(report);
  for (const line of failed) log(`plugin failed: ${line}`);
  return failed;
}

/** `toolshed serve`: the flags checked first, then the host opened and served. */
export async function runServeCommand({ values, io }: CommandContext): Promise<number> {
  // --watch-workspace is the operator's standing decision to load what changes in the workspace:
  // a reload accepts the config as it now is (the first start still checks it).
  return runServe({
    values,
    // Loaded when the host opens, so the protocol answers before the host's modules load.
    openHost: async (root, reload) =>
      (await import('./open-host.js')).openHost(values, io, {
        waitForServers: false,
        ...(root === undefined ? {} : { root }),
        ...(reload && values.watchWorkspace === true ? { trustConfig: true } : {}),
      }),
  });
}

/**
 * Over stdio, a client that offers roots (MCP `roots/list`) chooses the workspace root,
 * unless `--root` or the config's `root` did: the host reopens on the client's first root.
 */
function adoptClientRoot(opening: Promise<ReloadingHost>, setRoot: (root: string) => void) {
  return (server: Server) => {
    opening
      .then(async (host) => {
        if (configOf(host).rootFrom !== 'cwd') return;
        const root = await clientRoot(server);
        if (root === undefined || root === configOf(host).root) return;
        setRoot(root);
        await host.reload();
        log(`root: ${root} (the MCP client's first root)`);
      })
      .catch((error) => log(`could not use the client's root: ${describe(error)}`));
  };
}

/** How `serve` opens its host: `root` when a client chose one, `reload` for every open after the first. */
type HostOpener = (root: string | undefined, reload: boolean) => Promise<ToolHost>;

/**
 * The host serve serves, opened once `gate` settles: a reloading host whose log lines and
 * warnings go to stderr, watching its files under --watch; `root()` is the root to open it in.
 */
async function openServedHost(
  values: ServeValues,
  openHost: HostOpener,
  root: () => string | undefined,
  gate: Promise<void>,
): Promise<ReloadingHost> {
  await gate;
  const reloading = createReloadingHost(await openHost(root(), false), () => openHost(root(), true));
  // Before any call can run on it: calls wait for the host, and their log lines must not be lost.
  reloading.on('log', (entry) => log(`[${entry.plugin}${entry.tool ? `/${entry.tool}` : ''}] ${entry.message}`));
  reloading.on('warning', (message) => log(`warning: ${message}`));
  return values.watch || values.watchWorkspace
    ? watch(reloading, values.watchWorkspace === true, await import('../mcp-server/watch.js'))
    : reloading;
}

/** What `serve --http` runs: the endpoint, and the console when `--ui` mounts it. */
interface HttpServing {
  endpoint: McpEndpoint;
  webConsole: Console | undefined;
}

/** Serves `host` over Streamable HTTP as `mode` says (with the console at /ui/ under --ui), and logs where. */
async function serveOverHttp(
  host: ReloadingHost,
  mode: Extract<ReturnType<typeof plan>, { kind: 'http' }>,
  values: ServeValues,
  onError: (error: unknown) => void,
): Promise<HttpServing> {
  const { address, allowedOrigins, routing } = mode;
  if (mode.exposed && !configOf(host).serve.auth) refuseUnauthenticated(address.host);
  // Loaded for --http only: the stdio start stays small.
  const { serveHttp } = await import('../mcp-server/http/http.js');
  const stateless = values.stateless === true;
  let sessions = (): SessionSnapshot[] => [];
  // Loaded for --ui only.
  const webConsole = values.ui
    ? (await import('../console/console.js')).consoleHandler({
        host,
        serving: { mcp: true, transport: 'http', ...(stateless ? { stateless } : {}) },
        sessions: () => sessions(),
        allowedOrigins,
        oauth: configOf(host).serve.auth !== undefined,
      })
    : undefined;
  const http = await serveHttp(host, {
    ...address,
    ...routing,
    onError,
    allowedOrigins,
    ...(mode.bearerToken !== undefined ? { bearerToken: mode.bearerToken } : {}),
    stateless,
    ...(values.ops ? { ops: true } : {}),
    ...(webConsole ? { mount: { prefix: CONSOLE_PREFIX, ...webConsole } } : {}),
    ...(values.quiet ? {} : { onRequest: (entry: RequestLogEntry) => log(requestLine(entry)) }),
  }).catch(async (error: unknown) => {
    // Not listening (the address is taken): the console stops watching the host before serve closes it.
    await webConsole?.close();
    throw error;
  });
  sessions = () => http.sessionList();
  log(
    `MCP (Streamable HTTP${values.stateless ? ', stateless' : ''}` +
      `${routing.replica !== undefined ? `, replica ${routing.replica}` : ''}) listening on ${http.url}` +
      `${authNote(host, values.tokenEnv)}`,
  );
  if (webConsole) log(`console at ${new URL(CONSOLE_PREFIX, http.url).href}`);
  return { endpoint: http, webConsole };
}

/**
 * Starts the MCP server over stdio or Streamable HTTP and returns its exit code when it stops.
 * Over stdio (without --strict, which must see the plugins first) the client's `initialize` is
 * answered at once: the host opens meanwhile, and requests for tools wait for its plugins. MCP
 * servers never hold up the start: their tools join with list_changed as each one lists them.
 */
export async function runServe(options: { values: ServeValues; openHost: HostOpener }): Promise<number> {
  const mode = plan(options.values);
  let root: string | undefined;
  const onError = (error: unknown) => log(`error: ${describe(error)}`);
  const signals = untilSignal();
  surviveLostStderr();
  let endpoint: McpEndpoint | undefined;
  // Over stdio the host's modules load once the client's opening was answered (or after a
  // moment, for a client that waits): loading them first would hold up that answer.
  let openNow!: () => void;
  const gate = new Promise<void>((resolve) => {
    openNow = resolve;
  });
  const opening = openServedHost(options.values, options.openHost, () => root, gate);
  const early = mode.kind === 'stdio' && !options.values.strict ? openingHost(opening) : undefined;
  const adoptRoot = adoptClientRoot(opening, (dir) => (root = dir));
  let host: ReloadingHost | undefined;
  let webConsole: Console | undefined;
  try {
    if (early) {
      const stdio = await serveStdio(early, onError, adoptRoot);
      endpoint = stdio;
      const moment = setTimeout(openNow, CLIENT_OPENING_WAIT_MS);
      stdio.answered.then(() => {
        clearTimeout(moment);
        openNow();
      });
    } else openNow();
    host = await opening;
    const failed = await logStartup(host);
    if (options.values.strict && failed.length > 0) {
      log(`--strict: ${failed.length} plugin${failed.length === 1 ? '' : 's'} failed to load; not serving`);
      return 1;
    }
    if (mode.kind === 'http') ({ endpoint, webConsole } = await serveOverHttp(host, mode, options.values, onError));
    else {
      endpoint ??= await serveStdio(host, onError, adoptRoot);
      log('MCP over stdio ready');
    }
    const reason = await Promise.race([endpoint.closed.then(() => 'client closed the connection'), signals.signalled]);
    log(`stopping (${reason})`);
    return 0;
  } finally {
    signals.dispose();
    await webConsole?.close();
    await endpoint?.close();
    // A host that failed to open left nothing to close.
    await (host ?? early)?.close();
    if (!host) await opening.catch(() => undefined);
  }
}
