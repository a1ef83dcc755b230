/**
 * What every real-client test shares: a project folder with toolshed's config (the
 * clients-kit fixture plugin, its `text` toolset deferred), the command line a client's
 * own configuration uses to start `toolshed serve`, the trap proxy, and a way to run a
 * client to its end with its output kept. Everything a test starts is closed by `close()`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { suiteHome, tempDir } from '../helpers.js';
import { DONE_TEXT, toolNamed, type Turn } from './fixtures/conversation.js';
import { startTrapProxy, trapEnv, type TrapProxy } from './fixtures/trap-proxy.js';

/** The CLI entry the clients start. */
export const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));

/** node_modules/.bin and friends, by path. */
export const MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));

/** Node >= 22.19, for the clients that need it (the machine's may be 20). */
export const NODE_26 = path.join(MODULES, 'node-26/bin/node');

/** The stdio recorder a client can start toolshed through. */
const RECORDER = fileURLToPath(new URL('./fixtures/record-stdio.mjs', import.meta.url));

/** One message the recorder saw. */
export interface Recorded {
  from: 'client' | 'server';
  method?: string;
  id?: string | number;
  protocolVersion?: string;
}

/** The messages in a recorder's log. */
export function recorded(log: string): Recorded[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Recorded);
}

/**
 * The revision a recorded connection negotiated: the version of its initialize result, or of its first server/discover
 * request.
 */
export function negotiated(messages: Recorded[]): string | undefined {
  const discover = messages.find((message) => message.from === 'client' && message.method === 'server/discover');
  const initialize = messages.find((message) => message.from === 'client' && message.method === 'initialize');
  if (initialize)
    return messages.find(
      (message) => message.from === 'server' && message.id === initialize.id && message.protocolVersion,
    )?.protocolVersion;
  return discover?.protocolVersion;
}

/** The fixture plugin every client test serves. */
export const KIT = fileURLToPath(new URL('./fixtures/plugin', import.meta.url));

/** A client run's end: exit code, stdout and stderr. */
export interface ClientRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** One test's world: the project folder, the serve command, the trap, and close(). */
export interface ClientProject {
  /** the project folder (the client's cwd) */
  dir: string;
  /** a HOME of the test's own, inside `dir` */
  home: string;
  /** toolshed's config file */
  config: string;
  /** how the client starts toolshed: `command` and `args` for its MCP server entry */
  serve: { command: string; args: string[]; env: Record<string, string> };
  /** the same, through the recorder (fixtures/record-stdio.mjs), which logs every message to `log` */
  recordedServe(): { command: string; args: string[]; env: Record<string, string>; log: string };
  trap: TrapProxy;
  /** the env every client gets: PATH, the test HOME, the trap, the suite's state folders */
  baseEnv(): Record<string, string>;
  /** runs a client to its end (killed after `timeoutMs`, which fails the test through a null code) */
  run(command: string, args: string[], env: Record<string, string>, timeoutMs?: number): Promise<ClientRun>;
  close(): Promise<void>;
}

/** Creates the project folder and the trap. */
export async function clientProject(extraConfig: Record<string, unknown> = {}): Promise<ClientProject> {
  const work = tempDir('toolshed-clients-');
  const dir = work.dir;
  const home = path.join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const config = path.join(dir, 'toolshed.config.json');
  writeFileSync(path.join(dir, 'package.json'), '{"name":"clients-project","private":true}');
  writeFileSync(
    config,
    JSON.stringify({
      builtins: false,
      cache: { enabled: false },
      plugins: [{ package: KIT, trust: 'trusted' }],
      defer: ['text'],
      ...extraConfig,
    }),
  );
  const trap = await startTrapProxy();
  const running = new Set<ReturnType<typeof spawn>>();
  const serveEnv: Record<string, string> = { PATH: process.env.PATH ?? '', ...suiteHome() };
  return {
    dir,
    home,
    config,
    trap,
    serve: { command: process.execPath, args: [BIN, 'serve', '--config', config], env: serveEnv },
    recordedServe() {
      const log = path.join(dir, 'mcp-messages.jsonl');
      writeFileSync(log, '');
      return {
        command: process.execPath,
        args: [RECORDER, log, process.execPath, BIN, 'serve', '--config', config],
        env: serveEnv,
        log,
      };
    },
    baseEnv: () => ({ PATH: process.env.PATH ?? '', HOME: home, ...suiteHome(), ...trapEnv(trap) }),
    run(command, args, env, timeoutMs = 240_000) {
      const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      running.add(child);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      return new Promise((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code, signal) => {
          clearTimeout(timer);
          running.delete(child);
          resolve({ code, signal, stdout, stderr });
        });
      });
    },
    async close() {
      for (const child of running) child.kill('SIGKILL');
      await trap.close();
      work.cleanup();
    },
  };
}

/** The error envelope the divide-by-zero call must come back with, as toolshed writes it. */
export const ENVELOPE = '{"error":"division by zero","code":"TOOL_FAILED"}';

/**
 * A tool result's text at each depth of JSON string escaping: clients wrap results in JSON
 * (`{"output":"…"}`), some twice, so an envelope may arrive as `{\\"error\\":…}`.
 */
function layers(text: string): string[] {
  const found = [text];
  for (let depth = 0; depth < 4 && found.at(-1)!.includes('\\"'); depth += 1)
    found.push(found.at(-1)!.replaceAll('\\\\', '\\').replaceAll('\\"', '"'));
  return found;
}

/** Whether `text` holds `needle` at some depth of escaping. */
function holds(text: string | undefined, needle: string): boolean {
  return text !== undefined && layers(text).some((layer) => layer.includes(needle));
}

/**
 * The checks every client's conversation must pass, on the agent's requests in order:
 * the tools arrive (the first request lists toolshed's tools, the deferred one not yet), a call's
 * result comes back, the error envelope comes back, and after the tool_search a request lists the
 * newly loaded reverse_text (the client honoured list_changed) and its call's result comes back.
 */
export function expectConversation(turns: Turn[]): void {
  expect(turns.length).toBeGreaterThan(0);
  const first = turns[0]!;
  for (const base of ['add_numbers', 'divide_numbers', 'tool_search'])
    expect(toolNamed(first, base), `${base} in ${first.tools.join(', ')}`).toBeDefined();
  expect(toolNamed(first, 'reverse_text')).toBeUndefined();
  const last = turns.at(-1)!;
  const resultOf = (base: string) => last.results.find((result) => result.name.endsWith(base))?.text;
  const expectResult = (base: string, needle: string) =>
    expect(holds(resultOf(base), needle), `${base}'s result ${resultOf(base)} holds ${needle}`).toBe(true);
  expectResult('add_numbers', '{"sum":5}');
  expectResult('divide_numbers', ENVELOPE);
  expectResult('tool_search', '"name":"reverse_text"');
  expect(
    turns.some((turn) => toolNamed(turn, 'reverse_text') !== undefined),
    'a request after tool_search lists reverse_text',
  ).toBe(true);
  expectResult('reverse_text', 'dehsloot');
}

/**
 * What an agent client's run left for the checks: the recorder's log, the client's exit and output, the model's turns,
 * the project (its network trap).
 */
export interface AgentRun {
  log: string;
  run: ClientRun;
  project: ClientProject;
  turns(): Turn[];
}

/**
 * The checks every agent client's run must pass, as tests of the caller's describe (`get` is read
 * when they run, after its beforeAll): the revision it negotiated, the scripted conversation's
 * final answer, what the model was shown (expectConversation), and no attempt to reach the network.
 */
export function agentRunChecks(revision: string, get: () => AgentRun): void {
  it(`negotiates ${revision}`, () => {
    expect(negotiated(recorded(get().log))).toBe(revision);
  });

  it('runs the scripted conversation to its final answer', () => {
    const { run } = get();
    expect(run.code, run.stderr.slice(-4000)).toBe(0);
    expect(run.stdout, run.stderr.slice(-4000)).toContain(DONE_TEXT);
  });

  it('shows the model the tools, a result, an error envelope, and the tool a tool_search loaded', () => {
    expectConversation(get().turns());
  });

  it('reaches no network', () => {
    expect(get().project.trap.attempts).toEqual([]);
  });
}
