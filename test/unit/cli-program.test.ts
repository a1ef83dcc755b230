/**
 * The `toolshed` command line as its parser and renderers see it, in-process: `main(argv, io)` with
 * the output collected, for what is decided before any host opens (help, version, completion,
 * usage errors, where the host flags go), and the styles and renderers with a report built in
 * memory. What a real process shows (exit codes, stdout and stderr, a real host and call) is in
 * test/cli/, one process per behaviour.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '#internal/core/cli/main.js';
import { COMMANDS, type CliValues } from '#internal/core/cli/commands.js';
import { hostOptions } from '#internal/core/cli/open-host.js';
import { renderSearch } from '#internal/core/cli/inspect.js';
import { renderSummary, renderTool } from '#internal/core/cli/render.js';
import { colourEnabled, PLAIN, styleFor } from '#internal/core/cli/style.js';
import type { HostReport } from '#internal/core/explain/explain.js';
import type { SearchRanking } from '#internal/core/host/inspector.js';
import { TOOLSHED_VERSION } from '#internal/boundary/version.js';

/** `main` with stdout and stderr collected as the lines it wrote. */
async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    out: (text: string) => void out.push(text),
    err: (text: string) => void err.push(text),
    style: PLAIN,
    errStyle: PLAIN,
    errIsTTY: false,
    outIsTTY: false,
    readStdin: () => '',
  };
  const code = await main(argv, io);
  const lines = (written: string[]) => written.map((text) => (text.endsWith('\n') ? text : `${text}\n`)).join('');
  return { code, stdout: lines(out), stderr: lines(err) };
}

/** What @bomb.sh/tab prints (it writes with console.log) while `main(argv)` runs. */
async function printed(argv: string[]): Promise<{ code: number; text: string }> {
  const logged: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void logged.push(parts.join(' ')));
  try {
    const { code } = await run(argv);
    return { code, text: logged.join('\n') };
  } finally {
    spy.mockRestore();
  }
}

/** The completion words for a partial command line, as `toolshed complete -- ARGS` prints them. */
async function words(args: string[]): Promise<string[]> {
  return (await printed(['complete', '--', ...args])).text.split('\n').map((line) => line.split('\t')[0]!);
}

/** The flags and arguments a command's handler receives for `argv` (the handler itself does not run). */
async function parsed(name: string, argv: string[]): Promise<{ args: Array<string | undefined>; values: CliValues }> {
  const spec = COMMANDS.find((c) => c.name === name)!;
  let received: { args: Array<string | undefined>; values: CliValues } | undefined;
  const spy = vi.spyOn(spec, 'run').mockImplementation(async ({ args, values }) => {
    received = { args, values };
    return 0;
  });
  try {
    expect(await run(argv)).toMatchObject({ code: 0, stderr: '' });
  } finally {
    spy.mockRestore();
  }
  return received!;
}

afterEach(() => vi.restoreAllMocks());

describe('CLI help and version', () => {
  it('prints the version with --version and -v', async () => {
    for (const flag of ['--version', '-v'])
      expect(await run([flag])).toEqual({ code: 0, stdout: `${TOOLSHED_VERSION}\n`, stderr: '' });
  });

  it("help CMD and CMD --help show that command's own flags and an example", async () => {
    const viaHelp = await run(['help', 'list']);
    const viaFlag = await run(['list', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaFlag.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toContain('Usage: toolshed list [options]');
    const flat = viaHelp.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain(
      '--format <format> provider format, or names (one a line) (choices: "openai", "responses", "anthropic", "gemini", "mcp", "names")',
    );
    expect(viaHelp.stdout).toContain('--strict');
    expect(viaHelp.stdout).toMatch(/Examples:\n {2}\$ toolshed list --format anthropic/);
    const serve = (await run(['serve', '--help'])).stdout;
    expect(serve).toContain('--http <host:port>');
    expect(serve).toContain('--watch');
    expect(serve).toContain('--public-url <urls>');
    expect(serve).toContain('--replica <name>');
    expect(serve).not.toContain('--format');
    const call = (await run(['help', 'call'])).stdout;
    expect(call).toContain('Usage: toolshed call [options] <tool> [args]');
    expect(call).toContain(`$ toolshed call read_file '{"path":"README.md","limit":5}'`);
  });

  it('lists every command in --help, ui with what it is', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    for (const name of [
      'summary',
      'list',
      'explain',
      'call',
      'serve',
      'ui',
      'init',
      'trust',
      'accept',
      'tour',
      'completion',
      'help',
    ])
      expect(stdout).toMatch(new RegExp(`\\n {2}${name} `));
    expect(stdout).toMatch(/\bui\b.*web console/);
    const serveHelp = (await run(['help', 'serve'])).stdout;
    expect(serveHelp).toContain('--ui');
    expect(serveHelp).toContain('--quiet');
  });

  it('suggests the command or flag meant', async () => {
    expect(await run(['lsit'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "toolshed: unknown command 'lsit'. Did you mean 'init' or 'list'? Run toolshed --help.\n",
    });
    expect(await run(['expalin'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Did you mean 'explain'?"),
    });
    expect(await run(['list', '--formt', 'names'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "toolshed: unknown option '--formt' (Did you mean --format?)\n",
    });
  });

  it('exits 2 with one line on stderr for usage errors found before a host opens', async () => {
    const cases = [
      ['frobnicate'],
      ['list', '--format', 'xml'],
      ['call'],
      ['--no-such-flag'],
      ['explain', 'slack_send_message', '--search', 'x'],
      ['explain', '--search', '  '],
      ['serve', '--ui'],
      ['ui', '--http', 'nowhere'],
      ['ui', '--http', '0.0.0.0:0', '--token-env', 'CONSOLE_UNSET_TOKEN'],
    ];
    expect(process.env.CONSOLE_UNSET_TOKEN).toBeUndefined();
    const stderr: string[] = [];
    for (const args of cases) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stderr).toMatch(/^toolshed: /);
      expect(result.stdout).toBe('');
      stderr.push(result.stderr);
    }
    const [, , , , both, blank, serveUi, malformed, unset] = stderr;
    expect(both).toContain('explain takes a tool name or --search, not both');
    expect(blank).toContain('--search needs a query');
    expect(serveUi).toContain('--ui serves the console beside --http');
    expect(malformed).toContain('--http expects HOST:PORT');
    expect(unset).toContain('CONSOLE_UNSET_TOKEN is not set');
  });

  it('takes the host flags before or after the command', async () => {
    const before = await parsed('list', [
      '--enable',
      'kitchen',
      '--disable',
      'big,loop,oom,exit',
      'list',
      '--format',
      'names',
    ]);
    const after = await parsed('list', [
      'list',
      '--format',
      'names',
      '--enable',
      'kitchen',
      '--disable',
      'big,loop,oom,exit',
    ]);
    expect(before.values).toEqual(after.values);
    expect(before.values).toMatchObject({ enable: 'kitchen', disable: 'big,loop,oom,exit', format: 'names' });
    expect(hostOptions(before.values).overrides).toEqual({
      enable: ['kitchen'],
      disable: ['big', 'loop', 'oom', 'exit'],
    });
  });

  it("reads --root and --config from the folder the command runs in (main's io.cwd, else the process's)", () => {
    expect(hostOptions({ root: 'sub' }, {}, '/srv/app')).toMatchObject({ root: '/srv/app/sub', cwd: '/srv/app/sub' });
    expect(hostOptions({ config: 'toolshed.json' }, {}, '/srv/app')).toMatchObject({
      config: 'toolshed.json',
      cwd: '/srv/app',
    });
    expect(hostOptions({}).cwd).toBe(process.cwd());
  });

  it('takes --force on init', async () => {
    expect((await parsed('init', ['init', '--force'])).values).toEqual({ force: true });
    expect((await parsed('init', ['init'])).values).toEqual({});
  });

  it('takes -y for --yes on call', async () => {
    expect((await parsed('call', ['call', 'delete_note', '{"id":"b"}', '-y'])).values.yes).toBe(true);
    expect((await parsed('call', ['call', 'delete_note', '{"id":"a"}', '--yes'])).values.yes).toBe(true);
    expect(await parsed('call', ['call', 'read_note', '{"id":"a"}'])).toEqual({
      args: ['read_note', '{"id":"a"}'],
      values: {},
    });
  });
});

describe('completion', () => {
  it('prints bash, zsh and fish scripts that call back into toolshed', async () => {
    const bash = await printed(['completion', 'bash']);
    expect(bash.code).toBe(0);
    expect(bash.text).toContain('complete -F');
    expect(bash.text).toContain('toolshed complete --');
    expect((await printed(['completion', 'zsh'])).text).toContain('#compdef toolshed');
    expect((await printed(['completion', 'fish'])).text).toContain('complete -c toolshed');
    expect((await run(['completion', 'tcsh'])).code).toBe(2);
  });

  it('completes commands, flags and flag values from the command table', async () => {
    expect(await words(['l'])).toContain('list');
    expect(await words(['list', '--f'])).toContain('--format');
    expect(await words(['list', '--format', ''])).toEqual(expect.arrayContaining(['openai', 'anthropic', 'names']));
    expect(await words(['serve', '--'])).toEqual(
      expect.arrayContaining(['--http', '--watch', '--root', '--strict', '--ui', '--quiet']),
    );
    expect(await words(['u'])).toContain('ui');
    expect(await words(['ui', '--'])).toEqual(expect.arrayContaining(['--http', '--open', '--token-env', '--root']));
  });
});

/** A host report as `toolshed` would print it: one loaded plugin, one failed, a hidden tool. */
function report(): HostReport {
  const tool = (name: string, extra: Partial<HostReport['tools'][number]> = {}) => ({
    name,
    plugin: 'toolshed-plugin-kitchen',
    toolset: 'kitchen',
    exposed: true,
    warnings: [],
    ...extra,
  });
  return {
    version: '1.2.3',
    config: { file: '/app/.toolshedrc.json', dir: '/app', root: '/app' },
    startupMs: 12,
    extractionPoolStarted: false,
    evaluated: true,
    plugins: [
      {
        name: 'toolshed-plugin-kitchen',
        specifier: 'kitchen',
        status: 'loaded',
        loadMs: 3,
        trust: 'trusted',
        tier: 'thread',
        manifestSource: 'cache',
        tools: 2,
      },
      {
        name: 'toolshed-plugin-missing',
        specifier: 'toolshed-plugin-missing',
        status: 'failed',
        loadMs: 1,
        error: { code: 'PLUGIN_NOT_FOUND', message: 'not installed' },
        known: { from: 'name', toolsets: ['missing'], tools: [] },
      },
    ],
    toolsets: [{ name: 'kitchen', includes: [], tools: 2, definedBy: ['toolshed-plugin-kitchen'] }],
    counts: { registered: 2, selected: 2, available: 1, exposed: 1 },
    tools: [
      tool('echo'),
      tool('web_search', {
        exposed: false,
        layer: 'availability',
        reason: 'missing environment variable SEARCH_API_KEY',
      }),
    ],
    conflicts: [],
    warnings: ['a warning'],
    search: {
      deferred: 0,
      native: false,
      indexed: 0,
      sessions: [],
      callsNotLoaded: {},
      excluded: [],
      excludeUnmatched: [],
    },
    protection: { writable: [], protected: [], notInForce: [], resources: {} },
  };
}

describe('terminal output', () => {
  const pipe = { isTTY: false };
  const tty = { isTTY: true, hasColors: () => true };

  it('uses no colour in a pipe, colour with FORCE_COLOR, and none with NO_COLOR', () => {
    expect(colourEnabled(pipe, {})).toBe(false);
    expect(colourEnabled(tty, {})).toBe(true);
    expect(colourEnabled(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(colourEnabled(pipe, { FORCE_COLOR: '0' })).toBe(false);
    expect(colourEnabled(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(false);
    expect(colourEnabled(tty, { NO_COLOR: '1' })).toBe(false);
    const env = { LANG: 'en_US.UTF-8' };
    expect(renderSummary(report(), styleFor(pipe, env))).not.toContain('\u001b[');
    expect(renderSummary(report(), styleFor(pipe, { ...env, FORCE_COLOR: '1' }))).toMatch(
      /\u001b\[32m✓\u001b\[39m toolshed-plugin-kitchen/,
    );
    expect(renderSummary(report(), styleFor(pipe, { ...env, FORCE_COLOR: '1', NO_COLOR: '1' }))).not.toContain(
      '\u001b[',
    );
  });

  it('falls back to ASCII symbols when the locale is not UTF-8', () => {
    const ascii = renderSummary(report(), styleFor(pipe, { LANG: 'C' }));
    expect(ascii).toMatch(/\n {2}\+ toolshed-plugin-kitchen/);
    expect(ascii).toContain(' registered -> ');
    expect(ascii).not.toMatch(/[✓✗→·—]/);
    expect(renderSummary(report(), styleFor(pipe, { LANG: 'en_US.UTF-8' }))).toMatch(/\n {2}✓ toolshed-plugin-kitchen/);
  });

  it('explains a hidden tool with its layer and reason', () => {
    const r = report();
    const text = renderTool(r.tools[1]!, r);
    expect(text).toContain('web_search: hidden at layer availability');
    expect(text).toContain('reason:   missing environment variable SEARCH_API_KEY');
  });

  it("renders a search's ranking: each tool with its score, deferred or listed, and the words it matched where", () => {
    const ranking: SearchRanking = {
      indexed: 7,
      results: [
        {
          name: 'slack_send_message',
          score: 4.25,
          deferred: true,
          matched: { post: ['description'], slack: ['name', 'source'], message: ['name'] },
        },
        {
          name: 'calendar_create_event',
          score: 0.5,
          deferred: false,
          matched: { post: ['description'] },
          related: ['event'],
        },
      ],
    };
    const lines = renderSearch('post a slack message', ranking, PLAIN).split('\n');
    expect(lines[0]).toBe('tool_search for "post a slack message", over 7 indexed tools:');
    expect(lines[1]).toBe('  1. slack_send_message       4.250  deferred');
    expect(lines[2]).toBe('       post (description), slack (name, source), message (name)');
    expect(lines[3]).toBe('  2. calendar_create_event    0.500  listed');
    expect(lines[4]).toBe('       post (description), related: event');
    expect(renderSearch('zzz', { indexed: 1, results: [] }, PLAIN)).toBe(
      'tool_search for "zzz", over 1 indexed tool:\n  nothing matched (no word of the query is in any tool\'s name, description, parameters or toolset)',
    );
  });
});
