/**
 * The console from the command line, as real processes: `toolshed ui` (its one URL line, the page,
 * SIGTERM), `serve --http --ui` (an MCP client's calls on the event stream, calls it waits on held
 * for the console's answer) and serve's request log; ui's usage errors found once its host is open,
 * and `toolshed call` printing the plugins' log lines, run by main() in this process
 * (test/helpers.ts's toolshedMain).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteHome, tempDir, toolshedMain } from '../helpers.js';
import { consoleConfig, post, readEvents } from './helpers.js';

const BIN = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const work = tempDir();
const children: ChildProcess[] = [];
const clients: Client[] = [];

beforeAll(() => {
  writeFileSync(path.join(work.dir, 'package.json'), '{"name":"console-project","private":true}');
  const { mcpServers: _remote, ...config } = consoleConfig();
  writeFileSync(path.join(work.dir, 'toolshed.config.mjs'), `export default ${JSON.stringify(config)};\n`);
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  work.cleanup();
});

const env = (extra: Record<string, string> = {}) => ({
  ...suiteHome(),
  PATH: process.env.PATH ?? '',
  TOOLSHED_TRUST_CONFIG: '1',
  ...extra,
});

/** A toolshed process in the project, with its stdout and stderr collected. */
function start(args: string[], extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: work.dir,
    env: env(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const waitFor = (stream: 'stdout' | 'stderr', pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(stream === 'stdout' ? stdout : stderr);
        if (match) {
          child[stream]!.off('data', check);
          resolve(match);
        }
      };
      child[stream]!.on('data', check);
      child.once('exit', () => reject(new Error(`exited before printing ${pattern}: ${stderr}`)));
      check();
    });
  return { child, exited, waitFor, stdout: () => stdout, stderr: () => stderr };
}

/** `toolshed ARGS` in the project, run by main() in this process. */
const run = (args: string[]) => toolshedMain(args, { cwd: work.dir, env: env() });

async function mcpClient(url: string): Promise<Client> {
  // No elicitation capability: such a client cannot be asked to approve anything itself.
  const client = new Client({ name: 'console-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

describe('toolshed ui', () => {
  // One process for both: the default port taken (held here) and the browser that cannot be started.
  it('prints exactly one URL line, serves the page and the API, and exits 0 on SIGTERM; falls back to a free port when 7420 is taken and --http was not given (with --http a taken port is a usage error); with --open, a browser that cannot be started is a note on stderr', {
    timeout: 60_000,
  }, async () => {
    // Hold 7420 (or find it held already: either way it is taken).
    const holder = net.createServer();
    await new Promise<void>((resolve) => {
      holder.once('error', () => resolve());
      holder.listen(7420, '127.0.0.1', () => resolve());
    });
    try {
      // No xdg-open (nor open) on this PATH.
      const ui = start(['ui', '--open'], { PATH: path.dirname(process.execPath) });
      const [, url, port] = await ui.waitFor('stdout', /^(http:\/\/127\.0\.0\.1:(\d+)\/)\n/);
      expect(port).not.toBe('7420');
      await ui.waitFor('stderr', /port 7420 is taken; using a free one/);
      await ui.waitFor('stderr', /could not open a browser \(\S+: .*\); open http:\/\/127\.0\.0\.1:\d+\/ yourself/);
      const page = await fetch(url!);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      const overview = (await (await fetch(`${url}api/overview`)).json()) as {
        serving: unknown;
        tools: Array<{ name: string }>;
      };
      expect(overview.serving).toEqual({ mcp: false });
      expect(overview.tools.map((t) => t.name)).toContain('echo');
      // A plugin's log line goes to stderr, level first from warning up.
      expect((await post(`${url}api/call`, { tool: 'chatter', args: {} })).status).toBe(200);
      await ui.waitFor('stderr', /\[toolshed-plugin-console-ops\/chatter\] warning: careful now/);
      ui.child.kill('SIGTERM');
      expect(await ui.exited).toBe(0);
      expect(ui.stdout()).toBe(`${url}\n`);
      expect(ui.stderr()).toContain('stopping (SIGTERM)');
      const given = await run(['ui', '--http', '127.0.0.1:7420']);
      expect(given.code).toBe(2);
      expect(given.stderr).toContain('--http 127.0.0.1:7420: the address is in use');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  // An unset --token-env and a malformed --http are refused before the host opens: test/unit/cli-program.test.ts.
  it('refuses a non-loopback address without authentication as a usage error', { timeout: 60_000 }, async () => {
    const exposed = await run(['ui', '--http', '0.0.0.0:0']);
    expect(exposed.code).toBe(2);
    expect(exposed.stderr).toMatch(/refusing to serve on 0\.0\.0\.0 without authentication/);
    expect(exposed.stdout).toBe('');
  });

  it('takes a bearer token from --token-env on a non-loopback address', { timeout: 60_000 }, async () => {
    const ui = start(['ui', '--http', '0.0.0.0:0', '--token-env', 'CONSOLE_TOKEN'], {
      CONSOLE_TOKEN: 'ui-secret-token',
    });
    const [, port] = await ui.waitFor('stdout', /^http:\/\/0\.0\.0\.0:(\d+)\/\n/);
    const api = `http://127.0.0.1:${port}/api/overview`;
    expect((await fetch(api)).status).toBe(401);
    expect((await fetch(api, { headers: { authorization: 'Bearer ui-secret-token' } })).status).toBe(200);
    ui.child.kill('SIGTERM');
    expect(await ui.exited).toBe(0);
  });

  // Listed in toolshed --help, and its flags completed: test/unit/cli-program.test.ts.
});

describe('toolshed serve --http --ui', () => {
  // --ui without --http is a usage error found before the host opens: test/unit/cli-program.test.ts.
  it("shows an MCP client's call on the event stream, and logs one line per request", { timeout: 60_000 }, async () => {
    const serve = start(['serve', '--http', '127.0.0.1:0', '--ui']);
    const [, base] = await serve.waitFor('stderr', /console at (http:\/\/127\.0\.0\.1:\d+\/ui\/)/);
    const [, mcp] = /listening on (http:\/\/\S+\/mcp)/.exec(serve.stderr())!;
    const stream = await readEvents(`${base}api/events`);
    try {
      const client = await mcpClient(mcp!);
      const result = await client.callTool({ name: 'echo', arguments: { text: 'from mcp' } });
      expect(result.isError).toBeFalsy();
      const event = await stream.next((e) => e.event === 'call' && (e.data as { tool: string }).tool === 'echo', 1000);
      expect(event.data).toMatchObject({ code: 'OK', sessionId: expect.any(String), chain: [] });
      const sessions = (await (await fetch(`${base}api/sessions`)).json()) as {
        serving: boolean;
        sessions: Array<{ id: string; client?: string }>;
      };
      expect(sessions.serving).toBe(true);
      expect(sessions.sessions).toContainEqual(
        expect.objectContaining({ id: (event.data as { sessionId: string }).sessionId, client: 'console-test 1.0.0' }),
      );
      await serve.waitFor(
        'stderr',
        /toolshed serve: POST \/mcp 200 \d+ms tools\/call echo session [0-9a-f]{8} from 127\.0\.0\.1/,
      );
      expect(serve.stderr()).toMatch(
        /toolshed serve: POST \/mcp 200 \d+ms initialize session [0-9a-f]{8} from 127\.0\.0\.1/,
      );
      await serve.waitFor('stderr', /toolshed serve: GET \/ui\/api\/sessions 200 \d+ms from 127\.0\.0\.1/);
    } finally {
      stream.close();
    }
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  });

  it('holds a call an MCP client without elicitation waits on until the console answers', {
    timeout: 60_000,
  }, async () => {
    const serve = start(['serve', '--http', '127.0.0.1:0', '--ui', '--quiet']);
    const [, base] = await serve.waitFor('stderr', /console at (http:\/\/127\.0\.0\.1:\d+\/ui\/)/);
    const [, mcp] = /listening on (http:\/\/\S+\/mcp)/.exec(serve.stderr())!;
    const stream = await readEvents(`${base}api/events`);
    try {
      const client = await mcpClient(mcp!);
      const approved = client.callTool({ name: 'delete_note', arguments: { id: 'a1' } });
      const held = await stream.next(
        (e) => e.event === 'approval' && (e.data as { args: { id: string } }).args.id === 'a1',
      );
      const id = (held.data as { id: string }).id;
      const listed = (await (await fetch(`${base}api/approvals`)).json()) as {
        approvals: Array<{ id: string; sessionId?: string }>;
      };
      expect(listed.approvals.map((a) => a.id)).toContain(id);
      expect((await post(`${base}api/approvals/${id}`, { approved: true })).status).toBe(200);
      expect(((await approved).content as Array<{ text: string }>)[0]!.text).toBe('deleted a1');
      expect((await post(`${base}api/approvals/${id}`, { approved: false })).status).toBe(409);

      const denied = client.callTool({ name: 'delete_note', arguments: { id: 'a2' } });
      const second = await stream.next(
        (e) => e.event === 'approval' && (e.data as { args: { id: string } }).args.id === 'a2',
      );
      expect(
        (await post(`${base}api/approvals/${(second.data as { id: string }).id}`, { approved: false, reason: 'no' }))
          .status,
      ).toBe(200);
      const refusal = await denied;
      expect(refusal.isError).toBe(true);
      expect(JSON.stringify(refusal.content)).toContain('APPROVAL_DENIED');
    } finally {
      stream.close();
    }
    // --quiet: no request lines.
    expect(serve.stderr()).not.toMatch(/POST \/mcp 200/);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  });
});

describe('toolshed call', () => {
  it("prints the plugin's log lines on stderr, warnings marked, and --quiet hides them", {
    timeout: 60_000,
  }, async () => {
    const loud = await run(['call', 'chatter']);
    expect(loud.code).toBe(0);
    expect(loud.stdout.trim()).toBe('chattered');
    expect(loud.stderr).toContain('[toolshed-plugin-console-ops/chatter] plain line from chatter');
    expect(loud.stderr).toContain('[toolshed-plugin-console-ops/chatter] warning: careful now');
    const quiet = await run(['call', 'chatter', '--quiet']);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toContain('chatter]');
  });
});
