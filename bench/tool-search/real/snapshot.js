/**
 * Lists the tools of real MCP servers through toolshed and writes them to catalogue.json, as
 * toolshed exposes them: the tool-search evaluation reads that file and never starts a server.
 *
 *   node bench/tool-search/real/snapshot.js [--per-server DIR]
 *
 * Needs the npm registry the first time (it runs `npm ci --ignore-scripts` in servers/), and a
 * built toolshed (`npm run build`). No server needs the network to list its tools: their keys
 * are fake. `--per-server DIR` also writes one `<server>.json` per server into DIR, then `DONE`.
 * The catalogue is written only when every server listed in servers.js connected.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolHost, TOOLSHED_VERSION } from '../../../dist/core/index.js';
import { servers } from './servers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const serversDir = path.join(here, 'servers');
const outFile = path.join(here, 'catalogue.json');

/** Handshake and listing deadline: some fifty node servers start at once on two cores. */
const START_TIMEOUT_MS = 120_000;

/** Installs the pinned servers unless every one of them is already there. */
function ensureInstalled() {
  const missing = servers.filter((s) => !existsSync(path.join(serversDir, 'node_modules', s.package, 'package.json')));
  if (missing.length === 0) return;
  console.log(`installing ${missing.length} missing server packages (npm ci --ignore-scripts in servers/)…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const run = spawnSync(npm, ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: serversDir,
    stdio: 'inherit',
  });
  if (run.status !== 0) throw new Error(`npm ci in ${serversDir} failed with exit code ${run.status}`);
}

/** The installed package.json of a server. */
function packageJson(server) {
  return JSON.parse(readFileSync(path.join(serversDir, 'node_modules', server.package, 'package.json'), 'utf8'));
}

/**
 * The file a server's bin entry runs: `server.bin` when named, else its only bin, else the one named like the package.
 */
function binPath(server, pkg) {
  const bins = typeof pkg.bin === 'string' ? { [pkg.name.split('/').pop()]: pkg.bin } : (pkg.bin ?? {});
  const names = Object.keys(bins);
  const name = server.bin ?? (names.length === 1 ? names[0] : names.find((n) => n === pkg.name.split('/').pop()));
  const file = bins[name] ?? (names.length === 0 ? pkg.main : undefined);
  if (!file)
    throw new Error(
      `${server.package} has no bin to run (bins: ${names.join(', ') || 'none'}); name one in servers.js`,
    );
  return path.join(serversDir, 'node_modules', server.package, file);
}

/** The scratch folder the servers get: a home of their own, and the files some insist on finding. */
function makeScratch() {
  // A fixed name, not a random one: some servers put their working folder in a description.
  const tmp = path.join(tmpdir(), 'toolshed-catalogue');
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  for (const dir of ['files', 'home', 'state']) mkdirSync(path.join(tmp, dir));
  // Google's servers read an OAuth client file before they list anything; a fake one is enough to list.
  const oauthKeys = { installed: { client_id: 'fake', client_secret: 'fake', redirect_uris: ['http://localhost'] } };
  writeFileSync(path.join(tmp, 'gcp-oauth.keys.json'), JSON.stringify(oauthKeys));
  const token = { access_token: 'fake', refresh_token: 'fake', token_type: 'Bearer', expiry_date: 0 };
  writeFileSync(path.join(tmp, 'gdrive-credentials.json'), JSON.stringify(token));
  writeFileSync(path.join(tmp, 'gmail-credentials.json'), JSON.stringify(token));
  writeFileSync(path.join(tmp, 'kubeconfig'), fakeKubeconfig());
  return tmp;
}

/** A kubeconfig naming a cluster on a closed local port. */
function fakeKubeconfig() {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters: [{ name: fake, cluster: { server: "https://127.0.0.1:9" } }]',
    'users: [{ name: fake, user: { token: fake } }]',
    'contexts: [{ name: fake, context: { cluster: fake, user: fake } }]',
    'current-context: fake',
    '',
  ].join('\n');
}

/** `{tmp}` in a string is the scratch folder. */
function fill(value, tmp) {
  return value.replaceAll('{tmp}', tmp);
}

/** The toolshed config starting every server as a desktop client would, and nothing else. */
function configFor(tmp) {
  const base = { HOME: path.join(tmp, 'home'), XDG_STATE_HOME: path.join(tmp, 'state'), NO_COLOR: '1' };
  const mcpServers = {};
  for (const server of servers) {
    const env = { ...base };
    for (const [key, value] of Object.entries(server.env ?? {})) env[key] = fill(value, tmp);
    mcpServers[server.name] = {
      command: process.execPath,
      args: [binPath(server, packageJson(server)), ...(server.args ?? []).map((a) => fill(a, tmp))],
      env,
      trust: 'trusted',
    };
  }
  return { builtins: false, cache: { enabled: false }, limits: { loadTimeoutMs: START_TIMEOUT_MS }, mcpServers };
}

/** Each server's connection report, by server name. */
function connections(report) {
  const byServer = new Map();
  for (const plugin of report.plugins) {
    if (plugin.name.startsWith('mcp:')) byServer.set(plugin.name.slice(4), plugin.mcp);
  }
  return byServer;
}

/** The exposed tools of the host, each with its server and the name the server advertises. */
async function exposedTools(host, report, byServer) {
  const pluginOf = new Map(report.tools.map((t) => [t.name, t.plugin]));
  const definitions = await host.definitions({ format: 'mcp' });
  return definitions.map((d) => {
    const server = pluginOf.get(d.name)?.replace(/^mcp:/, '');
    const renamed = byServer.get(server)?.renamed ?? {};
    return {
      name: d.name,
      server,
      advertised: renamed[d.name] ?? d.name,
      description: d.description,
      parameters: d.inputSchema,
    };
  });
}

/** One line per server: connected with its tools, or why not. */
function printServer(server, connection, count) {
  if (connection?.state === 'connected') {
    const renamed = Object.keys(connection.renamed ?? {}).length;
    const notes = [
      renamed ? `${renamed} renamed` : '',
      connection.warnings.length ? `${connection.warnings.length} warnings` : '',
    ]
      .filter(Boolean)
      .join(', ');
    console.log(`  ✓ ${server.name.padEnd(22)} connected, ${count} tools${notes ? ` (${notes})` : ''}`);
    for (const warning of connection.warnings) console.log(`      warning: ${warning}`);
    return;
  }
  const why = connection?.reason ?? 'no connection report';
  const stderr = connection?.stderr?.trim().split('\n').slice(-3).join(' | ');
  console.log(
    `  ✗ ${server.name.padEnd(22)} ${connection?.state ?? 'unknown'}: ${why}` +
      `${stderr ? `\n      stderr: ${stderr}` : ''}`,
  );
}

/** Writes one file per server into `dir` (for people who read the catalogue server by server), then DONE. */
function writePerServer(dir, catalogue, descriptions) {
  mkdirSync(dir, { recursive: true });
  rmSync(path.join(dir, 'DONE'), { force: true });
  for (const server of catalogue.servers) {
    const tools = catalogue.tools
      .filter((t) => t.server === server.name)
      .map(({ name, description, parameters }) => ({ name, description, parameters }));
    const file = { server: server.name, package: server.package, description: descriptions.get(server.name), tools };
    writeFileSync(path.join(dir, `${server.name}.json`), `${JSON.stringify(file, null, 2)}\n`);
  }
  writeFileSync(path.join(dir, 'DONE'), `${catalogue.generated}\n`);
}

async function main() {
  const flag = process.argv.indexOf('--per-server');
  const perServerDir = flag === -1 ? undefined : path.resolve(process.argv[flag + 1]);
  ensureInstalled();
  const tmp = makeScratch();
  // Pinned definitions and config trust live in the user's state folder: a scratch one keeps
  // this run from holding a tool whose definition changed since an earlier run.
  process.env.XDG_STATE_HOME = path.join(tmp, 'state');
  const started = Date.now();
  console.log(`starting ${servers.length} MCP servers through one toolshed host…`);
  const host = await createToolHost({ cwd: tmp, config: configFor(tmp), trustConfig: true, onNotice: () => {} });
  const failed = [];
  try {
    const report = host.explain();
    const byServer = connections(report);
    const tools = await exposedTools(host, report, byServer);
    tools.sort((a, b) => (a.server === b.server ? (a.name < b.name ? -1 : 1) : a.server < b.server ? -1 : 1));
    const listed = [];
    const descriptions = new Map();
    for (const server of [...servers].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const connection = byServer.get(server.name);
      const count = tools.filter((t) => t.server === server.name).length;
      printServer(server, connection, count);
      if (connection?.state !== 'connected') {
        failed.push(server.name);
        continue;
      }
      const pkg = packageJson(server);
      descriptions.set(server.name, pkg.description);
      listed.push({ name: server.name, package: server.package, version: pkg.version, tools: count });
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `${listed.length} servers connected, ${failed.length} failed, ${tools.length} tools exposed (${seconds} s)`,
    );
    const { registered, exposed } = report.counts;
    console.log(`toolshed registered ${registered} tools and exposes ${exposed}`);
    for (const t of report.tools.filter((t) => !t.exposed))
      console.log(`  hidden: ${t.name} (${t.plugin}): ${t.reason}`);
    if (report.conflicts.length > 0) console.log(`conflicts: ${report.conflicts.length}`);
    for (const warning of report.warnings) console.log(`host warning: ${warning}`);
    if (failed.length > 0) {
      console.log(
        `not written: ${failed.join(', ')} did not connect (fix them, or move them to dropped in servers.js)`,
      );
      process.exitCode = 1;
      return;
    }
    const catalogue = {
      generated: new Date().toISOString().slice(0, 10),
      toolshed: TOOLSHED_VERSION,
      servers: listed,
      tools,
    };
    writeFileSync(outFile, `${JSON.stringify(catalogue, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), outFile)}`);
    if (perServerDir) {
      writePerServer(perServerDir, catalogue, descriptions);
      console.log(`wrote ${listed.length} per-server files and DONE to ${perServerDir}`);
    }
  } finally {
    await host.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
