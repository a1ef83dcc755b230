/**
 * A stdio MCP server is third-party code: it gets only its env grant, its fs grants and, unless granted, no network.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ToolHost } from 'toolshed';
import { probeSandbox } from '#internal/boundary/launch/probe.js';
import { suiteHome, tempDir, toolshedMain } from '../helpers.js';
import { DYNAMIC, FileHosts, PROJECT, server, serverScript } from './setup.js';

const SECRET = 'TOOLSHED_TEST_MCP_SECRET';
const work = tempDir('toolshed-mcp-isolation-');
const hosts = new FileHosts();
let listener: http.Server;
let url: string;

beforeAll(async () => {
  // In the test process's own environment too, so inheriting it by any route would show.
  process.env[SECRET] = 'hunter2';
  listener = http.createServer((_req, res) => res.end('reached'));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/`;
});

afterEach(() => hosts.release());

/**
 * One host of two fixture servers, `closed` (no grants) and `open` (the network granted), for the tests that only call
 * them.
 */
const pairHosts = new FileHosts();
let pairHost: Promise<ToolHost> | undefined;
const pair = () =>
  (pairHost ??= pairHosts.open({
    closed: { command: 'node', args: [DYNAMIC] },
    open: { command: 'node', args: [DYNAMIC], grant: { network: true }, prefix: 'granted_' },
  }));

afterAll(async () => {
  delete process.env[SECRET];
  await Promise.all([hosts.closeAll(), pairHosts.closeAll()]);
  await new Promise((resolve) => listener.close(resolve));
  work.cleanup();
});

const open = hosts.open.bind(hosts);

const hostEnv = () => ({
  PATH: process.env.PATH,
  [SECRET]: 'hunter2',
  GRANTED_ONE: 'granted-value',
  HOME: '/home/someone',
});

describe('environment', () => {
  it('gives an untrusted server only its env, the granted variables and PATH (get-env)', async () => {
    const host = await open(
      {
        everything: {
          command: 'node',
          args: [serverScript('everything')],
          env: { WRITTEN: 'in-config' },
          grant: { env: ['GRANTED_ONE'] },
        },
      },
      { env: hostEnv() },
    );
    const seen = JSON.parse(await host.dispatch('get-env', {})) as Record<string, string>;
    expect(seen).toMatchObject({ WRITTEN: 'in-config', GRANTED_ONE: 'granted-value', PATH: process.env.PATH });
    // bubblewrap sets PWD to the working directory it enters; nothing else is added.
    expect(
      Object.keys(seen)
        .filter((name) => name !== 'PWD')
        .sort(),
    ).toEqual(['GRANTED_ONE', 'PATH', 'WRITTEN']);
    expect(JSON.stringify(seen)).not.toContain('hunter2');
    expect(server(host.explain(), 'everything').protections).toMatchObject({
      env: 'granted only',
      permissionModel: true,
    });
    const enforced = host.explain().plugins.find((p) => p.name === 'mcp:everything')!.permissions!.enforced;
    expect(enforced.env).toMatchObject({ by: 'host', names: ['GRANTED_ONE'] });
    expect(enforced.fs).toMatchObject({ by: 'sandbox', how: expect.stringContaining('Node permission model') });
  });

  it('gives a trusted server what a desktop client would (its env plus the SDK defaults), still not the secret', async () => {
    const host = await open(
      { everything: { command: 'node', args: [serverScript('everything')], trust: 'trusted' } },
      { env: hostEnv() },
    );
    const seen = JSON.parse(await host.dispatch('get-env', {})) as Record<string, string>;
    expect(seen.HOME).toBe(process.env.HOME);
    expect(seen[SECRET]).toBeUndefined();
    expect(server(host.explain(), 'everything').protections).toMatchObject({
      launcher: 'none',
      env: 'desktop default',
      permissionModel: false,
    });
    expect(host.explain().plugins.find((p) => p.name === 'mcp:everything')!.permissions!.enforced).toEqual({
      fs: 'declared, not enforced',
      network: 'declared, not enforced',
      env: 'declared, not enforced',
    });
  });
});

describe('files', () => {
  it('lets a node server write only inside its fsWrite grant (the memory server)', async () => {
    const granted = path.join(work.dir, 'granted');
    const other = path.join(work.dir, 'other');
    mkdirSync(granted);
    mkdirSync(other);
    const entities = { entities: [{ name: 'e', entityType: 't', observations: [] }] };
    const allowed = await open({
      memory: {
        command: 'node',
        args: [serverScript('memory')],
        env: { MEMORY_FILE_PATH: path.join(granted, 'graph.jsonl') },
        grant: { fsWrite: [granted] },
      },
    });
    expect((await allowed.call('create_entities', entities)).ok).toBe(true);
    expect(existsSync(path.join(granted, 'graph.jsonl'))).toBe(true);

    const refused = await open({
      memory: {
        command: 'node',
        args: [serverScript('memory')],
        env: { MEMORY_FILE_PATH: path.join(other, 'graph.jsonl') },
        grant: { fsWrite: [granted] },
      },
    });
    const outcome = await refused.call('create_entities', entities);
    expect(outcome.ok).toBe(false);
    expect(existsSync(path.join(other, 'graph.jsonl'))).toBe(false);
  });

  it('keeps a server from reading a folder it was not granted, whatever its own arguments allow', async () => {
    const secret = path.join(work.dir, 'secret');
    mkdirSync(secret);
    writeFileSync(path.join(secret, 'key.txt'), 'the key');
    const host = await open({ filesystem: { command: 'node', args: [serverScript('filesystem'), secret] } });
    const state = server(host.explain(), 'filesystem').state;
    if (state === 'connected') {
      const outcome = await host.call('read_text_file', { path: path.join(secret, 'key.txt') });
      expect(outcome.ok === true ? outcome.text : outcome.message).not.toContain('the key');
      expect(outcome.ok).toBe(false);
    } else {
      // It checks its allowed folders at start, and cannot see this one at all.
      expect(server(host.explain(), 'filesystem').reason).toMatch(/exited with code \d+ during the handshake/);
    }
  });
});

describe('a program that is not node', () => {
  it('runs in the launcher with only its env, and without the permission model (sh starting server-everything)', async () => {
    const repo = fileURLToPath(new URL('../..', import.meta.url));
    // Under bubblewrap it sees only what it may read: the server's files and the node it starts.
    const reads = [repo, path.dirname(path.dirname(process.execPath))];
    const host = await open(
      {
        shell: {
          command: 'sh',
          args: ['-c', `exec "${process.execPath}" "${serverScript('everything')}"`],
          grant: { fsRead: reads },
        },
      },
      { env: hostEnv() },
    );
    const report = server(host.explain(), 'shell');
    expect(report.state, report.reason).toBe('connected');
    const support = probeSandbox();
    expect(report.protections).toMatchObject({
      permissionModel: false,
      env: 'granted only',
      launcher: support.bwrap ? 'bwrap' : support.unshare ? 'unshare' : 'none',
      mountNamespace: Boolean(support.bwrap),
      netNamespace: Boolean(support.bwrap || support.unshare),
    });
    const seen = JSON.parse(await host.dispatch('get-env', {})) as Record<string, string>;
    expect(Object.keys(seen).filter((name) => name !== 'PWD')).toEqual(['PATH']);
    const enforced = host.explain().plugins.find((p) => p.name === 'mcp:shell')!.permissions!.enforced;
    expect(enforced.fs).toEqual(
      support.bwrap
        ? { by: 'sandbox', read: expect.any(Array), write: [], how: 'bubblewrap mount namespace' }
        : 'declared, not enforced',
    );
  });
});

describe('processes', () => {
  it("keeps a server in its own PID namespace, where the host's processes do not exist", async () => {
    const host = await pair();
    const report = server(host.explain(), 'closed');
    expect(report.protections!.pidNamespace).toBe(Boolean(probeSandbox().bwrap || probeSandbox().unshare));
    const seen = JSON.parse(await host.dispatch('probe_pid', { pid: process.pid })) as { own: number; probed: string };
    if (report.protections!.pidNamespace) {
      expect(seen.probed).toBe('ESRCH');
      // Numbered from 1 in its namespace; the host knows the launcher by another pid.
      expect(seen.own).toBeLessThan(10);
      expect(seen.own).not.toBe(report.pid);
    } else {
      expect(seen).toEqual({ own: report.pid, probed: 'exists' });
    }
  });
});

describe('network', () => {
  it('keeps a server without the network grant off the host network, and lets a granted one reach it', async () => {
    const host = await pair();
    const support = probeSandbox();
    const isolated = server(host.explain(), 'closed').protections!;
    expect(isolated.netNamespace).toBe(Boolean(support.bwrap || support.unshare));
    if (isolated.netNamespace) expect(await host.dispatch('fetch_url', { url })).toMatch(/^error /);
    expect(await host.dispatch('granted_fetch_url', { url })).toBe('status 200');
    expect(server(host.explain(), 'open').protections).toMatchObject({
      netNamespace: false,
      netPermission: false,
      reason: expect.stringContaining('network granted'),
    });
  });

  it('where namespaces are missing (forced off here), a node server is still refused the network on a Node whose permission model covers it (25+), and explain says by what', async () => {
    const saved = process.env.TOOLSHED_SANDBOX_NAMESPACES;
    process.env.TOOLSHED_SANDBOX_NAMESPACES = 'off';
    try {
      const host = await open({
        closed: { command: 'node', args: [DYNAMIC] },
        open: { command: 'node', args: [DYNAMIC], grant: { network: true }, prefix: 'granted_' },
      });
      const closed = server(host.explain(), 'closed').protections!;
      const holds = process.allowedNodeEnvironmentFlags.has('--allow-net');
      expect(closed).toMatchObject({ netNamespace: false, permissionModel: true, netPermission: holds });
      const enforced = host.explain().plugins.find((p) => p.name === 'mcp:closed')!.permissions!.enforced.network;
      if (holds) {
        expect(await host.dispatch('fetch_url', { url })).toMatch(/^error /);
        expect(enforced).toEqual({ by: 'sandbox', allowed: false, how: "Node's permission model (no --allow-net)" });
      } else {
        // Older Node: nothing holds it here, and explain says so rather than claim otherwise.
        expect(await host.dispatch('fetch_url', { url })).toBe('status 200');
        expect(enforced).toBe('declared, not enforced');
      }
      expect(await host.dispatch('granted_fetch_url', { url })).toBe('status 200');
    } finally {
      if (saved === undefined) delete process.env.TOOLSHED_SANDBOX_NAMESPACES;
      else process.env.TOOLSHED_SANDBOX_NAMESPACES = saved;
    }
  });
});

describe('explain', () => {
  it('says which protections were in force, and why the others were not (bubblewrap turned off)', async () => {
    const config = path.join(work.dir, 'explain.config.json');
    // A server that exits when its stdin closes: each run ends as soon as it has answered (server-everything,
    // closed this soon after its start, holds the run for the SDK's grace and, without bubblewrap, for SIGKILL).
    writeFileSync(
      config,
      JSON.stringify({
        builtins: false,
        cache: { enabled: false },
        mcpServers: { dynamic: { command: 'node', args: [DYNAMIC] } },
      }),
    );
    // In this process, one after the other (the environment differs): what the commands print.
    const run = await toolshedMain(['explain', '--json', '--config', config], {
      cwd: PROJECT,
      env: { ...suiteHome(), PATH: process.env.PATH, TOOLSHED_SANDBOX_BWRAP: 'off' },
    });
    const text = await toolshedMain(['--config', config], { cwd: PROJECT });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      plugins: Array<{ name: string; mcp?: { protections: Record<string, unknown> } }>;
    };
    const protections = report.plugins.find((p) => p.name === 'mcp:dynamic')!.mcp!.protections;
    expect(protections).toMatchObject({
      mountNamespace: false,
      permissionModel: true,
      env: 'granted only',
      reason: expect.stringContaining('bubblewrap disabled by TOOLSHED_SANDBOX_BWRAP=off'),
    });
    expect(text.stdout).toMatch(/protections: env reduced to the grant, permission model/);
  });
});
