/**
 * What the console's browser tests share: a project folder with the console-demo plugin and the
 * first-party file tools, `toolshed ui` / `toolshed serve --http --ui` as real child processes
 * (their URL read from their output), and Debian's Chromium driven headless by playwright-core
 * (never a downloaded browser: TOOLSHED_CHROMIUM or /usr/bin/chromium).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { fixture, suiteHome, tempDir } from '../helpers.js';

/** The CLI entry the tests start. */
const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));

/** The Chromium the tests drive. */
const CHROMIUM = process.env.TOOLSHED_CHROMIUM || '/usr/bin/chromium';

/** Chromium's flags: headless, no sandbox (CI runs as root), and nothing that reaches the network on its own. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The text of the file the tests read with read_file. */
export const NOTES_TEXT = 'console notes: the quick brown fox';

/**
 * A temp project folder: `notes.txt`, and a config with the file tools, the console-demo plugin
 * (weather_now hidden for its missing env variable, delete_thing held for approval, flagged's
 * check read again 200 ms after it ran) and a plugin that is not there (a failed plugin); `extra`
 * adds config keys.
 */
export function consoleProject(extra: Record<string, unknown> = {}): { dir: string; config: string; cleanup(): void } {
  const work = tempDir('toolshed-console-');
  const config = path.join(work.dir, 'toolshed.config.json');
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"console-project","private":true}');
  writeFileSync(path.join(work.dir, 'notes.txt'), `${NOTES_TEXT}\n`);
  writeFileSync(
    config,
    JSON.stringify({
      cache: { enabled: false },
      plugins: [{ package: fixture('plugins', 'console-demo'), trust: 'trusted' }, './no-such-plugin'],
      enable: ['file', 'demo'],
      approve: ['delete_thing'],
      checks: { ttlMs: 200, graceMs: 0 },
      ...extra,
    }),
  );
  return { ...work, config };
}

/** A toolshed child process and the URL it printed. */
export interface Running {
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited in 10 s; resolves when it has. */
  stop(): Promise<void>;
}

/**
 * Starts `toolshed ARGS` in `dir` (with only PATH, the suite's state folders and `env`) and waits
 * for `pattern` on stdout or stderr; its first group is the URL.
 */
export function start(
  args: string[],
  dir: string,
  pattern: RegExp,
  env: Record<string, string> = {},
): Promise<Running> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: dir,
    env: { ...suiteHome(), PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await closed;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(output);
      if (match) resolve({ url: match[1]!, child, output: () => output, stop });
    };
    for (const stream of [child.stdout!, child.stderr!])
      stream.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        check();
      });
    child.once('exit', (code) =>
      reject(new Error(`toolshed ${args[0]} exited (${code}) before printing its URL:\n${output}`)),
    );
  });
}

/** `toolshed ui --http 127.0.0.1:0` for a project: its URL is the line on stdout. */
export function startUi(
  project: { dir: string; config: string },
  flags: string[] = [],
  env: Record<string, string> = {},
): Promise<Running> {
  return start(
    ['ui', '--http', '127.0.0.1:0', '--config', project.config, ...flags],
    project.dir,
    /^(http:\/\/127\.0\.0\.1:\d+\/)$/m,
    env,
  );
}

/** `toolshed serve --http 127.0.0.1:0 --ui` for a project: `url` is the MCP endpoint; the console is at /ui/. */
export function startServe(
  project: { dir: string; config: string },
  flags: string[] = [],
  env: Record<string, string> = {},
): Promise<Running> {
  return start(
    ['serve', '--http', '127.0.0.1:0', '--ui', '--config', project.config, ...flags],
    project.dir,
    /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
    env,
  );
}

/** Debian's Chromium, headless (playwright-core gives each launch a fresh --user-data-dir of its own). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

/** What a page did that a console must never do: dialogs opened, errors logged, exceptions thrown. */
export interface Misdeeds {
  dialogs: string[];
  errors: string[];
}

/** A browser context (a profile: cookies, storage, HTTP cache) with the tests' window size, 1440×900. */
export function newContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 1440, height: 900 } });
}

/**
 * A new page whose dialogs, console errors and uncaught exceptions are recorded: in a context of
 * its own (closed with `page.context().close()`), or in `context`, given (closed with `page.close()`).
 */
export async function openPage(
  target: Browser | BrowserContext,
  url: string,
): Promise<{ page: Page; misdeeds: Misdeeds }> {
  const context = 'newContext' in target ? await newContext(target) : target;
  const page = await context.newPage();
  const misdeeds: Misdeeds = { dialogs: [], errors: [] };
  page.on('dialog', (dialog) => {
    misdeeds.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') misdeeds.errors.push(message.text());
  });
  page.on('pageerror', (error) => misdeeds.errors.push(error.message));
  await page.goto(url);
  return { page, misdeeds };
}
