/**
 * Every `toolshed` command and flag, in one table: the program, `--help`,
 * `help CMD` and shell completion are all built from it. To add a flag, add
 * it to a command's `flags` here and to `CliValues`; to add a command, add an
 * entry (its handler in a file of its own, imported when it runs).
 */
import { FORMATS } from '../providers/index.js';
import type { CommandContext } from './context.js';

export type { CliValues, CommandContext } from './context.js';

/** One flag in commander's syntax: `--format <name>` takes a value, `--json` does not. */
export interface FlagSpec {
  flags: string;
  description: string;
  choices?: readonly string[];
}

/** One command. */
export interface CommandSpec {
  name: string;
  /** one line for the command list */
  summary: string;
  /** positional arguments in commander's syntax: `<tool>` required, `[args]` optional */
  args?: Array<{ syntax: string; description: string }>;
  /** the command's own flags */
  flags?: FlagSpec[];
  /** whether it loads a host, and so takes the host flags (default true) */
  host?: boolean;
  /** shown under "Examples:" in its help */
  examples: string[];
  run(context: CommandContext): Promise<number>;
}

/** Flags every command that loads a host takes. */
export const HOST_FLAGS: FlagSpec[] = [
  { flags: '--config <file>', description: 'use this config file instead of searching for one' },
  {
    flags: '--root <dir>',
    description: "workspace root tools work in (default: the config's root, else the current folder)",
  },
  { flags: '--enable <toolsets>', description: "toolsets to enable, comma-separated (replaces the config's enable)" },
  { flags: '--disable <names>', description: 'toolsets or tools to disable, comma-separated' },
  { flags: '--strict', description: 'exit 1 when any plugin failed to load' },
  {
    flags: '--trust-config',
    description:
      'accept and record a config that changed since it was last accepted, without asking (CI, containers; see ' +
      'toolshed trust)',
  },
];

const JSON_FLAG: FlagSpec = { flags: '--json', description: 'machine-readable output' };

/** The commands, in the order help lists them; the first is the default. */
export const COMMANDS: CommandSpec[] = [
  {
    name: 'summary',
    summary: 'plugins, toolsets, layer counts, hidden tools and why (the default command)',
    flags: [JSON_FLAG],
    examples: ['toolshed', 'toolshed --config ./toolshed.config.mjs --json'],
    run: async (c) => (await import('./inspect.js')).runSummary(c),
  },
  {
    name: 'list',
    summary: 'the tool definitions you send the model',
    flags: [
      {
        flags: '--format <format>',
        description: 'provider format, or names (one a line)',
        choices: [...FORMATS, 'names'],
      },
    ],
    examples: ['toolshed list --format anthropic', 'toolshed list --format names --enable file,web'],
    run: async (c) => (await import('./inspect.js')).runList(c),
  },
  {
    name: 'explain',
    summary: "each tool's state and why it is or is not exposed",
    args: [{ syntax: '[tool]', description: 'one tool to explain (default: every tool)' }],
    flags: [
      JSON_FLAG,
      {
        flags: '--as <identity>',
        description:
          `what an identity gets under the config's access rules: a subject, or a JSON object of its token's ` +
          `claims ('{"sub":"alice","scope":"a b","groups":["eng"]}')`,
      },
      {
        flags: '--search <query>',
        description:
          'what tool_search finds for a query among the exposed tools: the ranking, each score, and the words ' +
          'each tool matched in which fields',
      },
    ],
    examples: [
      'toolshed explain web_search',
      'toolshed explain --json',
      'toolshed explain --as alice',
      `toolshed explain --as '{"sub":"bob","groups":["eng"]}' --json`,
      `toolshed explain --search 'take a picture of the page'`,
    ],
    run: async (c) => (await import('./inspect.js')).runExplain(c),
  },
  {
    name: 'call',
    summary: 'run one tool call and print the result the model would get',
    args: [
      { syntax: '<tool>', description: 'the tool name' },
      { syntax: '[args]', description: 'arguments as JSON, or - to read them from stdin (default {})' },
    ],
    flags: [
      {
        flags: '-y, --yes',
        description:
          'approve a call that needs approval (config approve) without asking; without it, you are asked on a ' +
          'terminal and refused elsewhere',
      },
      {
        flags: '-q, --quiet',
        description: "don't print the plugins' log lines (ctx.log, MCP servers' log messages) on stderr",
      },
    ],
    examples: [
      `toolshed call read_file '{"path":"README.md","limit":5}'`,
      `echo '{"query":"x"}' | toolshed call web_search -`,
      `toolshed call write_file '{"path":"a.txt","content":"hi"}' --yes`,
    ],
    run: async (c) => (await import('./inspect.js')).runCall(c),
  },
  {
    name: 'serve',
    summary: 'MCP server over stdio (default) or Streamable HTTP',
    flags: [
      { flags: '--http <host:port>', description: 'serve Streamable HTTP on this loopback address instead of stdio' },
      {
        flags: '--allow-origin <origins>',
        description: 'with --http: browser origins allowed besides loopback ones, comma-separated (others get 403)',
      },
      {
        flags: '--token-env <name>',
        description:
          'with --http: require Authorization: Bearer <the value of env var NAME>; allows a non-loopback address',
      },
      {
        flags: '--stateless',
        description: 'with --http: keep no per-client state, so replicas can sit behind a load balancer',
      },
      {
        flags: '--ops',
        description:
          'with --http: serve /healthz, /readyz and /metrics on a non-loopback address too (on by default on ' +
          'loopback; config serve.ops)',
      },
      {
        flags: '--public-url <urls>',
        description:
          'with --http on loopback behind a reverse proxy: the URLs clients use, comma-separated; their host ' +
          'passes the Host check (default: config serve.publicUrl)',
      },
      {
        flags: '--replica <name>',
        description:
          'with --http: name this replica in the session ids it issues (NAME.uuid), for a balancer that routes ' +
          'on them (docs/fleet.md)',
      },
      {
        flags: '--ui',
        description:
          'with --http: serve the web console at /ui/ on the same listener, behind the same checks and ' +
          'authentication (docs/console.md)',
      },
      { flags: '-q, --quiet', description: 'with --http: no log line per request on stderr' },
      {
        flags: '--watch',
        description:
          "reload the config and plugins when their files change, except files the model's tools can write " +
          '(inside the workspace root or an fsWrite grant)',
      },
      {
        flags: '--watch-workspace',
        description:
          "with --watch: also reload files the model's tools can write, accepting a changed config on reload; " +
          'a change the model makes there then runs in the host within a second — only for a workspace no ' +
          'model writes to',
      },
    ],
    examples: [
      'toolshed serve',
      'toolshed serve --root /path/to/app',
      'toolshed serve --http 127.0.0.1:7777 --watch',
      'toolshed serve --http 127.0.0.1:7777 --stateless',
      'toolshed serve --http 127.0.0.1:7001 --replica a --public-url https://tools.example/mcp',
      'TOOLSHED_TOKEN=… toolshed serve --http 0.0.0.0:7777 --token-env TOOLSHED_TOKEN --allow-origin ' +
        'https://app.example',
      'toolshed serve --http 127.0.0.1:7777 --ui',
    ],
    run: async (c) => (await import('./serve.js')).runServeCommand(c),
  },
  {
    name: 'ui',
    summary: 'the web console: layers, tools and why, live calls, try a tool, approve held calls',
    flags: [
      {
        flags: '--http <host:port>',
        description: 'listen here (default 127.0.0.1:7420, or a free port when that one is taken)',
      },
      { flags: '--open', description: 'open the console in the system browser' },
      {
        flags: '--token-env <name>',
        description:
          'require Authorization: Bearer <the value of env var NAME> on the API; allows a non-loopback address',
      },
      {
        flags: '--allow-origin <origins>',
        description: "browser origins allowed besides the console's own, comma-separated",
      },
    ],
    examples: [
      'toolshed ui',
      'toolshed ui --open',
      'toolshed ui --http 127.0.0.1:0 --root ~/my-app',
      'TOOLSHED_TOKEN=… toolshed ui --http 0.0.0.0:7420 --token-env TOOLSHED_TOKEN',
    ],
    run: async (c) => (await import('./ui.js')).runUiCommand(c),
  },
  {
    name: 'init',
    summary: 'write a starter .toolshedrc.json in the current folder',
    host: false,
    flags: [
      { flags: '--force', description: 'overwrite an existing .toolshedrc.json' },
      {
        flags: '--from-claude-desktop <file>',
        description: 'import the mcpServers of a Claude Desktop (or Cursor) config file',
      },
    ],
    examples: ['toolshed init', 'toolshed init --from-claude-desktop ~/.config/Claude/claude_desktop_config.json'],
    run: async (c) => (await import('./init.js')).runInitCommand(c),
  },
  {
    name: 'trust',
    summary: 'show how the config changed since it was last accepted, and accept it',
    examples: ['toolshed trust', 'toolshed trust --config ./toolshed.config.mjs', 'toolshed trust --root ~/my-app'],
    run: async (c) => (await import('./trust.js')).runTrustCommand(c),
  },
  {
    name: 'accept',
    summary: "show how MCP servers' tool definitions changed since they were accepted, and accept them",
    args: [
      {
        syntax: '[server]',
        description: 'the MCP server (its name under mcpServers); without it and --all, only show what changed',
      },
      {
        syntax: '[tools...]',
        description: 'the tools to accept, by their exposed or own names (default: every changed tool of the server)',
      },
    ],
    flags: [{ flags: '--all', description: 'accept every changed definition of every server' }],
    examples: [
      'toolshed accept',
      'toolshed accept github',
      'toolshed accept github create_issue',
      'toolshed accept --all',
    ],
    run: async (c) => (await import('./accept.js')).runAcceptCommand(c),
  },
  {
    name: 'auth',
    summary: 'log in to a remote MCP server with OAuth and keep its tokens for the hosts you run',
    args: [{ syntax: '<server>', description: 'the MCP server (its name under mcpServers; a url entry)' }],
    flags: [
      {
        flags: '--status',
        description: 'say whether it is authorized, until when and with which scopes (never a token)',
      },
      { flags: '--logout', description: 'forget its tokens and client registration' },
      {
        flags: '--import <file>',
        description:
          'store tokens obtained elsewhere, JSON { access_token, refresh_token?, expires_in?, scope?, ' +
          'client_id? } from FILE or - (stdin): for a host without a browser',
      },
      { flags: '--no-browser', description: 'only print the authorization URL, do not try to open a browser' },
    ],
    examples: [
      'toolshed auth github',
      'toolshed auth github --status',
      'toolshed auth github --no-browser',
      'toolshed auth github --import tokens.json',
      'toolshed auth github --logout',
    ],
    run: async (c) => (await import('./auth.js')).runAuthCommand(c),
  },
  {
    name: 'tour',
    summary: 'the summary plus a few real tool calls in your workspace (what npm start runs here)',
    examples: ['toolshed tour', 'toolshed tour --root ~/my-app'],
    run: async (c) => (await import('./tour.js')).runTourCommand(c),
  },
];
