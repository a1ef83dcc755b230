/**
 * `toolshed auth NAME`: the OAuth login to a remote MCP server of the config. It loads the config
 * (no plugin or server is started), runs the flow with a loopback redirect (auth-redirect.ts),
 * prints the authorization URL on a line of its own on stderr and tries to open a browser on it,
 * waits for the redirect, and stores the tokens in the user's private state folder, where hosts
 * read them. `--status` says where the login stands, `--logout` forgets it, and `--import`
 * provisions tokens obtained elsewhere (a host without a browser).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ToolshedError, UsageError } from '../../boundary/errors.js';
import { openConfig } from '../host/open-config.js';
import { resolveServers, type ResolvedServer } from '../mcp-client/config.js';
import { ServerOAuth, type Login, type OAuthServer } from '../mcp-client/oauth-client.js';
import { OAuthState, oauthFile, keptTokens, type OAuthRecord } from '../mcp-client/oauth-state.js';
import { userStateDir } from '../state/user-dirs.js';
import { didYouMean } from '../text/suggest.js';
import type { ServerAuth } from '../runners/connection-report.js';
import { listenForRedirect, type RedirectListener } from './auth-redirect.js';
import type { CommandContext } from './context.js';
import type { CliIo } from './io.js';
import { hostOptions } from './open-host.js';

/** How long the login waits for the browser's redirect. */
const LOGIN_TIMEOUT_MS = 5 * 60_000;

/** The URL entry `name` of the config, with OAuth allowed; a usage error for anything else. */
async function oauthServer(
  name: string | undefined,
  context: CommandContext,
): Promise<ResolvedServer & { http: NonNullable<ResolvedServer['http']> }> {
  if (!name) throw new UsageError('name the MCP server to log in to: toolshed auth NAME');
  const { config } = await openConfig(hostOptions(context.values));
  const servers = resolveServers(config);
  const server = servers.find((s) => s.name === name);
  if (!server) {
    throw new UsageError(
      `no MCP server named '${name}' in the config.${
        didYouMean(
          name,
          servers.map((s) => s.name),
        ) || ` Its servers: ${servers.map((s) => s.name).join(', ') || 'none'}.`
      }`,
    );
  }
  if (!server.http)
    throw new UsageError(`${name} is a stdio server: OAuth logs in to URL entries (mcpServers.${name}.url) only`);
  if (!server.http.oauth)
    throw new UsageError(
      `${name} sends an Authorization header of its own (mcpServers.${name}.headers): there is no OAuth login to run`,
    );
  return server as ResolvedServer & { http: NonNullable<ResolvedServer['http']> };
}

/** The server's state file; a clear failure when the user has no private state folder. */
function stateOf(server: ResolvedServer): OAuthState {
  const stateDir = userStateDir(process.env);
  if (!stateDir)
    throw new ToolshedError(
      'AUTH_FAILED',
      `storing the tokens: there is no private state folder to keep the tokens of ${server.name} in (set ` +
        `XDG_STATE_HOME or HOME)`,
    );
  return new OAuthState(server.name, server.http!.url.href, oauthFile(stateDir, server.name, server.http!.url.href));
}

/** Where a login stands, in words: never a token. */
export function statusLine(name: string, auth: ServerAuth): string {
  if (auth.state !== 'authorized') return `${name}: not authorized (run toolshed auth ${name})`;
  const until = auth.expiresAt ? ` until ${auth.expiresAt}` : '';
  const refresh = auth.refreshable
    ? ', refreshed when it expires'
    : auth.expiresAt
      ? ', no refresh token: run toolshed auth again after that'
      : '';
  return `${name}: authorized${until}${refresh}${auth.scopes?.length ? `; scopes: ${auth.scopes.join(' ')}` : ''}`;
}

/** Tries the desktop's way of opening a URL; failing is fine, the URL is printed anyway. */
function openBrowser(url: URL): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url.href]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.href]]
        : ['xdg-open', [url.href]];
  try {
    const child = spawn(command as string, args as string[], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No opener on this machine: the printed URL is the way.
  }
}

/**
 * Listens on the configured port, else the one the last login used (its registered redirect URI names it), else a free
 * one.
 */
async function redirectListener(server: ResolvedServer, record: OAuthRecord): Promise<RedirectListener> {
  const configured = server.http!.oauth!.redirectPort;
  try {
    if (configured !== undefined) return await listenForRedirect(configured);
  } catch (error) {
    throw new ToolshedError(
      'AUTH_FAILED',
      `listening for the redirect: 127.0.0.1:${configured} (oauth.redirectPort) is not free: ` +
        `${(error as Error).message}`,
      {},
      { cause: error },
    );
  }
  if (record.redirectPort) {
    const again = await listenForRedirect(record.redirectPort).catch(() => undefined);
    if (again) return again;
  }
  return listenForRedirect(0);
}

/**
 * `--import FILE|-`: tokens obtained elsewhere, `{ access_token, refresh_token?, expires_in?, scope?, token_type?,
 * client_id?, client_secret? }`.
 */
function importTokens(server: ResolvedServer, store: OAuthState, source: string, io: CliIo): number {
  const text = source === '-' ? io.readStdin() : readFileSync(source, 'utf8');
  let given: Record<string, unknown>;
  try {
    given = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`--import: ${source === '-' ? 'stdin' : source} is not JSON: ${(error as Error).message}`);
  }
  const field = (key: string) =>
    typeof given?.[key] === 'string' && given[key] !== '' ? (given[key] as string) : undefined;
  const accessToken = field('access_token');
  if (!accessToken)
    throw new UsageError(
      '--import: expected a JSON object with access_token (and refresh_token, expires_in, scope, client_id ' +
        'when there are)',
    );
  const expiresIn = typeof given.expires_in === 'number' && given.expires_in > 0 ? given.expires_in : undefined;
  const optional = { refresh_token: field('refresh_token'), scope: field('scope') };
  const tokens = keptTokens({
    access_token: accessToken,
    token_type: field('token_type') ?? 'Bearer',
    ...(expiresIn !== undefined ? { expires_in: expiresIn } : {}),
    ...clean(optional),
  });
  const clientId = field('client_id');
  const configured = server.http!.oauth!.clientId;
  if (clientId && configured && clientId !== configured)
    throw new UsageError(
      `--import: the tokens are for client ${clientId}, the config names oauth.clientId ${configured}`,
    );
  store.update((record) => {
    const next: OAuthRecord = { ...record, tokens };
    // The client the tokens were issued to refreshes them; a configured one stays in the config.
    if (clientId && !configured)
      next.client = { client_id: clientId, ...clean({ client_secret: field('client_secret') }) };
    delete next.discovery;
    return next;
  });
  io.out(
    `stored imported tokens for ${statusLine(server.name, new ServerOAuth(oauthTarget(server), store).summary())}`,
  );
  return 0;
}

/** The entries of `values` that are set. */
function clean<T extends Record<string, string | undefined>>(values: T): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** The server as its OAuth client sees it; the client secret, if any, from this process's environment. */
function oauthTarget(server: ResolvedServer): OAuthServer {
  return { name: server.name, url: server.http!.url, settings: server.http!.oauth!, env: process.env };
}

/** The browser login: the flow up to the authorization URL, the redirect, the code redeemed for tokens. */
async function login(server: ResolvedServer, store: OAuthState, context: CommandContext): Promise<number> {
  const { io, values } = context;
  const listener = await redirectListener(server, store.read());
  try {
    const redirectUrl = `http://127.0.0.1:${listener.port}/callback`;
    store.update((record) => {
      const next = { ...record, redirectPort: listener.port };
      // A client registered for another redirect URI (another port) is registered again.
      const registered = (next.client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
      if (registered && !registered.includes(redirectUrl)) delete next.client;
      return next;
    });
    const state = randomBytes(16).toString('base64url');
    const browser: Login = {
      redirectUrl,
      state,
      open(url) {
        io.err(
          `toolshed: to authorize ${server.name}, open this URL in a browser (waiting for the redirect to ` +
            `${redirectUrl}):`,
        );
        io.err(url.href);
        if (values.browser !== false) openBrowser(url);
      },
    };
    const oauth = new ServerOAuth(oauthTarget(server), store, browser);
    const step = async <T>(run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (error) {
        throw new ToolshedError(
          'AUTH_FAILED',
          `${server.name}: ${oauth.step}: ${(error as Error)?.message ?? String(error)}`,
          { server: server.name, step: oauth.step },
          { cause: error },
        );
      }
    };
    if ((await step(() => oauth.run({ fresh: true }))) === 'REDIRECT') {
      const params = await step(() => listener.wait(state, LOGIN_TIMEOUT_MS));
      const refused = params.get('error');
      if (refused)
        throw new ToolshedError(
          'AUTH_FAILED',
          `${server.name}: the authorization server refused the login: ${refused}` +
            `${params.get('error_description') ? ` (${params.get('error_description')})` : ''}`,
          {
            server: server.name,
            step: oauth.step,
          },
        );
      const code = params.get('code');
      if (!code)
        throw new ToolshedError('AUTH_FAILED', `${server.name}: the redirect carried no code`, {
          server: server.name,
          step: oauth.step,
        });
      oauth.step = 'redeeming the code for tokens';
      const iss = params.get('iss');
      await step(() => oauth.run({ code, ...(iss !== null ? { iss } : {}) }));
    }
    io.out(statusLine(server.name, oauth.summary()));
    return 0;
  } finally {
    await listener.close();
  }
}

/** `toolshed auth NAME [--status | --logout | --import FILE|-] [--no-browser]`. */
export async function runAuthCommand(context: CommandContext): Promise<number> {
  const { args, values, io } = context;
  const modes = [values.status, values.logout, values.import !== undefined].filter(Boolean).length;
  if (modes > 1) throw new UsageError('give one of --status, --logout and --import');
  const server = await oauthServer(args[0], context);
  const store = stateOf(server);
  if (values.status) {
    io.out(statusLine(server.name, new ServerOAuth(oauthTarget(server), store).summary()));
    return 0;
  }
  if (values.logout) {
    io.out(
      store.forget()
        ? `forgot the OAuth login of ${server.name}`
        : `nothing to forget: ${server.name} has no OAuth login kept`,
    );
    return 0;
  }
  if (values.import !== undefined) return importTokens(server, store, values.import, io);
  return login(server, store, context);
}
