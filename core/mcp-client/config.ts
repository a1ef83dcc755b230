/**
 * An `mcpServers` entry as the host uses it: transport decided, defaults
 * filled (toolset `mcp-<name>`, prefix `<name>_`, untrusted, the host's
 * timeout, the listing limits), paths resolved from the config file's folder, and whether it
 * should start at all.
 */
import path from 'node:path';
import { ConfigError } from '../../boundary/errors.js';
import type {
  DefinitionChanges,
  McpListingLimits,
  McpOAuthSettings,
  McpProtocolChoice,
  McpServerEntry,
  ResolvedConfig,
} from '../config/config.js';
import type { McpCredentials } from '../config/public-types.js';
import type { Permissions } from '../../boundary/plugin-api.js';
import { resolveResources, type ResourceLimits } from '../../boundary/launch/resources.js';
import { redactUrl, withoutSecrets } from '../text/redact-url.js';

/** A stdio server: the program and how it was written in the config. */
export interface StdioTarget {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** absolute */
  cwd: string;
}

/** A Streamable HTTP server: the only URL toolshed will request. */
interface HttpTarget {
  url: URL;
  headers: Record<string, string>;
  /** the shortest wait between two probes (each wait is drawn between this and 1.5 times it) */
  probeIntervalMs: number;
  /** how toolshed logs in with OAuth; absent when `headers` carry an Authorization of their own */
  oauth?: McpOAuthSettings;
}

/** One configured MCP server with every default applied. */
export interface ResolvedServer {
  name: string;
  /** the registry's name for it (`mcp:<name>`), as `explain` and `prefer` show it */
  pluginName: string;
  toolset: string;
  prefix: string | false;
  /** the deadline of each tool call */
  timeoutMs: number;
  /**
   * the deadline of the handshake and of each tools/list (limits.loadTimeoutMs: starting a server is loading a plugin)
   */
  startTimeoutMs: number;
  trust: 'trusted' | 'untrusted';
  grant: Required<Omit<Permissions, 'folders'>>;
  codeCallable: boolean;
  /** limits on a stdio server's processes, memory and file size (its entry's `resources` over the top-level ones) */
  resources: ResourceLimits;
  /** what a changed tool definition does (definition-pins.ts) */
  definitionChanges: DefinitionChanges;
  stdio?: StdioTarget;
  http?: HttpTarget;
  /** how much of its `tools/list` is taken, and how long the listing may take */
  listing: ListingLimits;
  /** the MCP revision it is spoken to in: probed, the 2025 handshake only, or 2026-07-28 only */
  protocol: McpProtocolChoice;
  /** why it is not started, when it is not */
  notStarted?: string;
  /** whose credentials its calls carry: the operator's (the shared connection's), or each caller's own */
  credentials: ServerCredentials;
}

/** `credentials` with its defaults applied: the exchange's audience is the server's URL unless the entry names one. */
type ServerCredentials = 'operator' | 'provider' | { exchange: TokenExchange };

/** How a caller's token is exchanged for one this server accepts (RFC 8693). */
export interface TokenExchange {
  /**
   * Where the caller's token (and the client's secret) is sent: the entry's `tokenEndpoint`, else
   * the one the operator's own issuer (`serve.auth.issuer`) names in its metadata. Never one the
   * MCP server's metadata names: that server would then choose who receives its callers' tokens.
   */
  endpoint: { tokenEndpoint: URL } | { issuer: string };
  audience: string;
  scopes: string[];
  clientId?: string;
  /** the host env variable holding the client's secret (read when exchanging, never kept) */
  clientSecretEnv?: string;
}

/** `listing` with every default applied. */
export type ListingLimits = Required<McpListingLimits>;

/**
 * A remote server is probed about once a second: back within 1.5 s of answering again (plus
 * one handshake), and a server that stays down gets one small request a second.
 */
const DEFAULT_PROBE_INTERVAL_MS = 1_000;

/** Tools kept of one server: more than any real server lists, few enough that a re-list stays cheap. */
const DEFAULT_LISTING_TOOLS = 1_000;
/** `tools/list` pages read: real servers page by 50-100 tools, so 50 pages reach the tool limit. */
const DEFAULT_LISTING_PAGES = 50;
/** Characters of one tool description: real descriptions run to a few hundred; this keeps a long manual. */
const DEFAULT_DESCRIPTION_CHARS = 2_000;
/**
 * Characters of one tool's whole definition as JSON: of 1,187 tools of real servers (bench/tool-search/real)
 * 99 % are under 8,000 and the largest is 42,713 (Postman's, whose nested descriptions this cuts).
 */
const DEFAULT_DEFINITION_CHARS = 32_000;

function listingLimits(entry: McpServerEntry, config: ResolvedConfig): ListingLimits {
  const listing = entry.listing ?? {};
  return {
    tools: listing.tools ?? DEFAULT_LISTING_TOOLS,
    pages: listing.pages ?? DEFAULT_LISTING_PAGES,
    timeoutMs: listing.timeoutMs ?? config.limits.loadTimeoutMs,
    descriptionChars: listing.descriptionChars ?? DEFAULT_DESCRIPTION_CHARS,
    definitionChars: listing.definitionChars ?? DEFAULT_DEFINITION_CHARS,
  };
}

const ALL = new Set(['all', '*']);

function fail(name: string, message: string, key?: string): never {
  throw new ConfigError(`mcpServers.${name}: ${message}`, {
    pointer: `/mcpServers/${name}${key ? `/${key}` : ''}`,
    expected: message,
  });
}

/** Toolsets reachable from `enable` through config toolsets' `includes` (plugin toolsets are not known yet). */
function enabledToolsets(config: ResolvedConfig): Set<string> | 'all' {
  if (config.enable.some((name) => ALL.has(name))) return 'all';
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const include of config.toolsets[name]?.includes ?? []) visit(include);
  };
  config.enable.forEach(visit);
  return seen;
}

/** Why a server will not be started, or undefined when it will. */
function notStartedReason(
  entry: McpServerEntry,
  toolset: string,
  config: ResolvedConfig,
  enabled: Set<string> | 'all',
): string | undefined {
  if (entry.enabled === false) return 'not started: enabled is false in its config';
  if (config.disable.includes(toolset)) return `not started: its toolset ${toolset} is disabled`;
  if (enabled !== 'all' && !enabled.has(toolset)) return `not started: its toolset ${toolset} is not enabled`;
  return undefined;
}

function normalizeGrant(grant: Permissions | undefined): Required<Omit<Permissions, 'folders'>> {
  // callTools means nothing here: an MCP server has no way to call toolshed's tools.
  return {
    network: grant?.network ?? false,
    env: [...new Set(grant?.env ?? [])].sort(),
    fsRead: [...(grant?.fsRead ?? [])],
    fsWrite: [...(grant?.fsWrite ?? [])],
    callTools: [],
  };
}

/**
 * `codeCallable`, or its older name `sandbox` (kept as an alias until toolshed 2); both given and different is an
 * error.
 */
function codeCallableOf(name: string, entry: McpServerEntry): boolean {
  if (entry.codeCallable !== undefined && entry.sandbox !== undefined && entry.codeCallable !== entry.sandbox) {
    fail(
      name,
      `codeCallable and its older name sandbox disagree (${entry.codeCallable} and ${entry.sandbox}): give ` +
        `only codeCallable`,
      'sandbox',
    );
  }
  return (entry.codeCallable ?? entry.sandbox) === true;
}

/** Whether `url` may receive a caller's token or a client secret: https, or plain http to this machine. */
export function secureEndpoint(url: URL): boolean {
  return (
    url.protocol === 'https:' ||
    (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
  );
}

/**
 * Where an exchange sends the caller's token: the entry's `tokenEndpoint`, else the operator's issuer's; never the
 * server's choice.
 */
function exchangeEndpoint(
  name: string,
  tokenEndpoint: string | undefined,
  issuer: string | undefined,
): TokenExchange['endpoint'] {
  const pointer = 'credentials/exchange/tokenEndpoint';
  if (tokenEndpoint === undefined) {
    if (issuer !== undefined) return { issuer };
    fail(
      name,
      "credentials.exchange needs a tokenEndpoint: the caller's token and the exchange client's secret go only " +
        'where the operator says, ' +
        ("and without one toolshed would take the endpoint from the MCP server's own metadata, which may name " +
          'any server. ') +
        "Give credentials.exchange.tokenEndpoint, or serve.auth.issuer (its metadata's token_endpoint is used)",
      pointer,
    );
  }
  let url: URL;
  try {
    url = new URL(tokenEndpoint);
  } catch {
    fail(name, `credentials.exchange.tokenEndpoint '${redactUrl(tokenEndpoint)}' is not a valid URL`, pointer);
  }
  if (!secureEndpoint(url))
    fail(
      name,
      `credentials.exchange.tokenEndpoint must be https (plain http only to localhost, 127.0.0.1 or [::1]): it ` +
        `receives callers' tokens, got '${redactUrl(url)}'`,
      pointer,
    );
  return { tokenEndpoint: url };
}

/**
 * A URL entry's `credentials`, the exchange's defaults applied (its audience: the server's URL, without credentials it
 * carries).
 */
function credentialsOf(
  name: string,
  credentials: McpCredentials | undefined,
  url: URL,
  issuer: string | undefined,
): ServerCredentials {
  if (credentials === undefined || typeof credentials === 'string') return credentials ?? 'operator';
  const { tokenEndpoint, audience, scopes, clientId, clientSecretEnv } = credentials.exchange;
  if (clientSecretEnv !== undefined && clientId === undefined)
    fail(name, 'credentials.exchange.clientSecretEnv needs a clientId', 'credentials/exchange/clientId');
  const exchange: TokenExchange = {
    endpoint: exchangeEndpoint(name, tokenEndpoint, issuer),
    audience: audience ?? withoutSecrets(url),
    scopes: scopes ?? [],
  };
  if (clientId !== undefined) exchange.clientId = clientId;
  if (clientSecretEnv !== undefined) exchange.clientSecretEnv = clientSecretEnv;
  return { exchange };
}

function resolveOne(
  name: string,
  entry: McpServerEntry,
  config: ResolvedConfig,
  enabled: Set<string> | 'all',
): ResolvedServer {
  const toolset = entry.toolset ?? `mcp-${name}`;
  const server: ResolvedServer = {
    name,
    pluginName: `mcp:${name}`,
    toolset,
    prefix: entry.prefix ?? `${name}_`,
    timeoutMs: entry.timeoutMs ?? config.limits.timeoutMs,
    startTimeoutMs: config.limits.loadTimeoutMs,
    trust: entry.trust ?? 'untrusted',
    grant: normalizeGrant(entry.grant),
    codeCallable: codeCallableOf(name, entry),
    resources: resolveResources(entry.resources, config.resources),
    listing: listingLimits(entry, config),
    definitionChanges: entry.definitionChanges ?? config.definitionChanges,
    protocol: entry.protocol ?? 'auto',
    credentials: 'operator',
  };
  const reason = notStartedReason(entry, toolset, config, enabled);
  if (reason) server.notStarted = reason;
  if (entry.command !== undefined) {
    if (entry.type === 'http' || entry.type === 'streamable-http')
      fail(name, `type '${entry.type}' needs a url, not a command`, 'type');
    if ((entry.credentials ?? 'operator') !== 'operator')
      fail(
        name,
        'credentials per caller need a url entry: a stdio server has no Authorization to carry them',
        'credentials',
      );
    server.stdio = {
      command: entry.command,
      args: entry.args ?? [],
      env: entry.env ?? {},
      cwd: path.resolve(config.dir, entry.cwd ?? '.'),
    };
    return server;
  }
  if (entry.type === 'stdio') fail(name, "type 'stdio' needs a command, not a url", 'type');
  let url: URL;
  try {
    url = new URL(entry.url!);
  } catch {
    fail(name, `url '${redactUrl(String(entry.url))}' is not a valid URL`, 'url');
  }
  const headers = entry.headers ?? {};
  server.http = { url, headers, probeIntervalMs: entry.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS };
  // A static Authorization header is the operator's own credential: OAuth stays out of its way.
  if (!Object.keys(headers).some((key) => key.toLowerCase() === 'authorization')) server.http.oauth = entry.oauth ?? {};
  server.credentials = credentialsOf(name, entry.credentials, url, config.serve?.auth?.issuer);
  return server;
}

/** Every configured server, in config order; throws CONFIG_INVALID for an entry that cannot work. */
export function resolveServers(config: ResolvedConfig): ResolvedServer[] {
  const enabled = enabledToolsets(config);
  return Object.entries(config.mcpServers).map(([name, entry]) => resolveOne(name, entry, config, enabled));
}
