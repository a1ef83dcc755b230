/** Plain-text rendering of the host report for the terminal. */
import type { HostReport, PluginReport, ToolReport } from '../explain/explain.js';
import { NOT_ENFORCED, type Enforcement } from '../explain/enforcement.js';
import { PLAIN, type Style } from './style.js';
import type { ServerAuth } from '../runners/connection-report.js';

const pad = (text: string, width: number) => (text.length >= width ? text : text + ' '.repeat(width - text.length));

/** What a failed plugin is known to declare, in words. */
function knownLine(p: PluginReport): string {
  const k = p.known;
  if (!k) return '';
  if (k.from === 'name')
    return (
      `toolset '${k.toolsets.join("', '")}' kept as a name; its tools are not known (no earlier manifest of it ` +
      `is cached)`
    );
  return (
    `unavailable: toolsets ${k.toolsets.join(', ') || 'none'}; tools ${k.tools.join(', ') || 'none'} (from its ` +
    `last manifest)`
  );
}

function pluginLine(p: PluginReport, nameWidth: number, s: Style): string {
  if (p.status === 'failed')
    return `  ${s.red(s.fail)} ${pad(p.name, nameWidth)}  ${s.red(`${p.error?.code}:`)} ${p.error?.message}`;
  // "builtin": shipped inside the toolshed package (plugins/), not a package of its own on the registry.
  const bits = [
    `${p.tools} tool${p.tools === 1 ? '' : 's'}`,
    `${p.tier} tier`,
    p.trust ?? '',
    p.pool?.kind === 'own' ? 'own pool' : '',
    p.builtin ? 'builtin' : '',
    p.mcp ? `${p.mcp.transport} ${p.mcp.state}` : '',
    `${p.loadMs} ms`,
    `manifest ${p.manifestSource}`,
  ];
  const mark = p.mcp && p.mcp.state !== 'connected' ? s.yellow(s.warn) : s.green(s.ok);
  return `  ${mark} ${pad(p.name, nameWidth)}  ${bits.filter(Boolean).join(` ${s.dot} `)}`;
}

/** An MCP server's protections, in words. */
function describeServerProtections(p: PluginReport): string | undefined {
  const x = p.mcp?.protections;
  if (!x) return undefined;
  const on = [x.env === 'granted only' ? 'env reduced to the grant' : "a desktop client's default env"];
  if (x.permissionModel) on.push(`permission model (fs, ${x.netPermission ? 'network, ' : ''}child processes, addons)`);
  if (x.mountNamespace) on.push(`own mount namespace (${x.launcher})`);
  if (x.netNamespace) on.push('no network (own network namespace)');
  if (x.pidNamespace) on.push('own PID namespace');
  if (x.userNamespace) on.push('own user namespace');
  return `protections: ${on.join(', ')}${x.reason ? `; not in force: ${x.reason}` : ''}`;
}

/** Where a server's OAuth login stands, in words (never a token). */
function authText(auth: ServerAuth): string {
  if (auth.state !== 'authorized') return 'not authorized';
  return (
    `authorized${auth.expiresAt ? ` until ${auth.expiresAt}` : ''}` +
    `${auth.refreshable ? ' (refreshed when it expires)' : ''}` +
    `${auth.scopes?.length ? `, scopes ${auth.scopes.join(' ')}` : ''}`
  );
}

/** The lines under an MCP server: why it is down, its protections, renames and listing warnings. */
function serverLines(p: PluginReport, s: Style): string[] {
  const m = p.mcp;
  if (!m) return [];
  const out = [m.transport === 'http' ? `url: ${m.target}` : `command: ${m.target}`];
  if (m.runs) out.push(`runs: ${m.runs}`);
  if (m.reason) out.push(`reason: ${m.reason}`);
  if (m.auth) out.push(`oauth: ${authText(m.auth)}`);
  if (m.credentials) out.push(`credentials: ${m.credentials}`);
  const protections = describeServerProtections(p);
  if (protections) out.push(protections);
  const renamed = Object.entries(m.renamed);
  if (renamed.length)
    out.push(`renamed: ${renamed.map(([exposed, own]) => `${own} ${s.arrow} ${exposed}`).join(', ')}`);
  for (const warning of m.warnings) out.push(`warning: ${warning}`);
  return out;
}

/** What is enforced of a plugin's permissions, in words: "declared, not enforced" where nothing holds it. */
export function describeEnforcement(e: Enforcement): string {
  const fs =
    e.fs === NOT_ENFORCED
      ? `files ${NOT_ENFORCED}`
      : `files read ${e.fs.read.join(', ') || 'none'}, write ${e.fs.write.join(', ') || 'none'} (by the ${e.fs.by})`;
  const network =
    e.network === NOT_ENFORCED
      ? `network ${NOT_ENFORCED}`
      : `network ${e.network.allowed ? 'allowed' : 'none'} (by the ${e.network.by})`;
  const env =
    e.env === NOT_ENFORCED ? `env ${NOT_ENFORCED}` : `env ${e.env.names.join(', ') || 'none'} (by the ${e.env.by})`;
  return `${fs}; ${network}; ${env}`;
}

/** The protections an untrusted plugin's child runs under, in words. */
export function describeProtections(p: PluginReport): string | undefined {
  const x = p.protections;
  if (!x) return undefined;
  const on = [`permission model (fs, ${x.netPermission ? 'network, ' : ''}child processes, addons)`];
  if (x.mountNamespace)
    on.push(`own mount namespace (${x.launcher}: only its package, its grants and the node runtime exist)`);
  if (x.netNamespace) on.push('no network (own network namespace)');
  if (x.pidNamespace) on.push('own PID namespace');
  if (x.userNamespace) on.push('own user namespace');
  if (x.memoryWatchdog) on.push('memory watchdog');
  return `protections: ${on.join(', ')}${x.reason ? `; not in force: ${x.reason}` : ''}`;
}

function hiddenLine(t: ToolReport, nameWidth: number, s: Style): string {
  return `  ${s.yellow(pad(t.name, nameWidth))}  ${pad(t.layer ?? '', 12)}  ${t.reason ?? ''}`;
}

/** The plugins found: a line each, and under a plugin its failure, protections, server and enforcement notes. */
function pluginLines(report: HostReport, s: Style): string[] {
  const out: string[] = [];
  const loaded = report.plugins.filter((p) => p.status === 'loaded').length;
  out.push(`plugins: ${loaded} loaded, ${report.plugins.length - loaded} failed`);
  const nameWidth = Math.max(8, ...report.plugins.map((p) => p.name.length));
  const under = `      ${' '.repeat(nameWidth)}`;
  for (const p of report.plugins) {
    out.push(pluginLine(p, nameWidth, s));
    if (p.status === 'failed') out.push(`${under}${knownLine(p)}`);
    const protections = describeProtections(p);
    if (protections) out.push(`${under}${protections}`);
    for (const line of serverLines(p, s)) out.push(`${under}${line}`);
    const note = p.permissions?.enforced.note;
    if (note) out.push(`${under}${note}`);
  }
  return out;
}

/** The three layers' counts: registered → selected → available → exposed. */
function layersLine(report: HostReport, s: Style): string {
  const c = report.counts;
  const layers = [
    `${c.registered} registered`,
    `${c.selected} selected`,
    `${c.available} available`,
    s.green(`${c.exposed} exposed`),
  ];
  return `layers: ${layers.join(` ${s.arrow} `)}`;
}

/** The summary `toolshed` prints: plugins, toolsets, layer counts, hidden tools and why. */
export function renderSummary(report: HostReport, s: Style = PLAIN): string {
  const out: string[] = [];
  out.push(
    s.bold(
      `toolshed ${report.version} ${s.dash} config: ` +
        `${report.config.file ?? 'none (embedded default: every first-party toolset)'}`,
    ),
  );
  out.push(`root: ${report.config.root}`);
  out.push('');
  out.push(...pluginLines(report, s));
  out.push('');
  const toolset = (t: HostReport['toolsets'][number]) =>
    t.includes.length
      ? `${t.name} (= ${t.includes.join(' + ')})`
      : `${t.name} (${t.tools}${t.unavailable ? ', unavailable' : ''})`;
  out.push(`toolsets: ${report.toolsets.map(toolset).join(', ') || 'none'}`);
  out.push('');
  out.push(layersLine(report, s));
  const exposed = report.tools.filter((t) => t.exposed).map((t) => t.name);
  out.push(`exposed: ${exposed.join(', ') || 'none'}`);
  const deferred = report.tools.filter((t) => t.deferred).map((t) => t.name);
  const excluded = new Set(report.search.excluded);
  const findable = deferred.filter((name) => !excluded.has(name));
  if (findable.length) out.push(`deferred (listed once tool_search finds them): ${findable.join(', ')}`);
  if (excluded.size)
    out.push(`kept out of tool_search by search.exclude (callable by name): ${report.search.excluded.join(', ')}`);
  if (report.search.excludeUnmatched.length)
    out.push(`search.exclude entries that match no exposed tool: ${report.search.excludeUnmatched.join(', ')}`);
  const embeddings = report.search.embeddings;
  if (embeddings) out.push(embeddingsLine(embeddings));
  const hidden = report.tools.filter((t) => !t.exposed);
  if (hidden.length) {
    out.push('');
    out.push(`hidden (${hidden.length}):`);
    const width = Math.max(8, ...hidden.map((t) => t.name.length));
    for (const t of hidden) out.push(hiddenLine(t, width, s));
  }
  out.push(
    ...protectionLines(report, s),
    ...resourceLines(report),
    ...auditLines(report, s),
    ...breakerLines(report, s),
  );
  if (report.conflicts.length) {
    out.push('');
    out.push('conflicts (TOOL_CONFLICT):');
    for (const k of report.conflicts)
      out.push(
        `  ${k.name}: ${k.winner} wins over ${k.losers.join(', ')} (${k.rule})` +
          `${k.spellings ? `; spelled ${k.spellings.join(', ')} there` : ''}`,
      );
  }
  if (report.warnings.length) {
    out.push('');
    out.push('warnings:');
    for (const w of report.warnings) out.push(`  ${s.yellow(s.warn)} ${w}`);
  }
  out.push('');
  out.push(`startup ${report.startupMs} ms`);
  return out.join('\n');
}

/** What stays read-only to the model's tools inside the folders they can write, and what is not in force. */
function protectionLines(report: HostReport, s: Style): string[] {
  const { writable, protected: list, notInForce } = report.protection;
  if (!writable.length) return [];
  const named = list.filter((e) => e.kind === 'name');
  // `.git/hooks` and `.git/config` are part of `.git`, shown once with what stays writable in it.
  const partial = named.filter((e) => e.except?.length).map((e) => e.value);
  const names = named
    .filter((e) => !partial.some((p) => e.value.startsWith(`${p}/`)))
    .map((e) => (e.except?.length ? `${e.value} (but what git add, commit and branch write)` : e.value));
  const configNames = names.filter((n) => n.startsWith('.toolshedrc') || n.startsWith('toolshed.config.'));
  const shownNames = [
    ...(configNames.length ? ['config file names (.toolshedrc*, toolshed.config.*)'] : []),
    ...names.filter((n) => !configNames.includes(n)),
  ];
  const paths = list.filter((e) => e.kind === 'path');
  const out = [
    '',
    `model-writable: ${writable.join(', ')}`,
    `protected (read-only to the model's tools there): ${shownNames.join(', ')} anywhere`,
  ];
  for (const e of paths) out.push(`  ${e.value} ${s.dash} ${e.why}`);
  for (const line of notInForce) out.push(`  ${s.yellow(s.warn)} not in force: ${line}`);
  return out;
}

/** The circuits the breaker holds open, probes or counts failures on (`limits.breaker`). */
function breakerLines(report: HostReport, s: Style): string[] {
  if (!report.breakers?.length) return [];
  const lines = report.breakers.map((circuit) => {
    const failures = `${circuit.failures} failure${circuit.failures === 1 ? '' : 's'} in the window`;
    if (circuit.state === 'counting') return `  ${circuit.key}: counting ${s.dash} ${failures}`;
    return (
      `  ${circuit.key}: ${s.yellow(circuit.state)}${circuit.until ? ` until ${circuit.until}` : ''} ${s.dash} ` +
      `${circuit.reason ?? failures}`
    );
  });
  return ['', 'circuit breakers:', ...lines];
}

/** Where audit lines go, with what was written and dropped (config `audit`). */
function auditLines(report: HostReport, s: Style): string[] {
  const { audit } = report;
  if (!audit) return [];
  const line =
    `audit: ${audit.to} ${s.dash} ${audit.written} line${audit.written === 1 ? '' : 's'} written, ` +
    `${audit.dropped} dropped`;
  return ['', audit.failure !== undefined ? `${line}; ${s.yellow(s.warn)} failing: ${audit.failure}` : line];
}

/** Each sandboxed child's resource limits and what holds them (docs/security.md, "Resource limits"). */
function resourceLines(report: HostReport): string[] {
  const entries = Object.entries(report.protection.resources ?? {});
  if (!entries.length) return [];
  const by = (e: { by: string }) =>
    e.by === 'kernel' ? 'kernel' : e.by === 'watchdog' ? 'host watchdog' : 'not in force';
  return [
    '',
    'resource limits:',
    ...entries.map(
      ([name, r]) =>
        `  ${name}: processes ${r.processes.limit} (${by(r.processes)}), memory ${r.memoryMb.limit} MB (` +
        `${by(r.memoryMb)}), file size ${r.fileSizeMb.limit} MB (${by(r.fileSizeMb)})`,
    ),
  ];
}

/** One tool in detail, for `toolshed explain TOOL`. */
export function renderTool(tool: ToolReport, report: HostReport, s: Style = PLAIN): string {
  const out = [
    `${s.bold(tool.name)}: ${tool.exposed ? s.green('exposed') : s.yellow(`hidden at layer ${tool.layer}`)}`,
  ];
  out.push(`  plugin:   ${tool.plugin}`);
  out.push(`  toolset:  ${tool.toolset}`);
  if (!tool.exposed) out.push(`  reason:   ${tool.reason}`);
  if (tool.availability?.via)
    out.push(
      `  check:    ${tool.availability.ok ? 'passed' : 'failed'} (${tool.availability.via}` +
        `${tool.probes !== undefined ? `, ${tool.probes} probe${tool.probes === 1 ? '' : 's'} so far` : ''})`,
    );
  if (tool.conflict)
    out.push(
      `  conflict: TOOL_CONFLICT ${s.dash} defined by ` +
        `${[tool.conflict.winner, ...tool.conflict.losers].join(' and ')}; ${tool.conflict.winner} wins (` +
        `${tool.conflict.rule})`,
    );
  if (tool.annotations) out.push(`  hints:    ${describeAnnotations(tool.annotations)}`);
  if (tool.schema) {
    const { dialect, from } = tool.schema;
    const described = `JSON Schema ${dialect} (${from === '$schema' ? 'its $schema' : from})`;
    out.push(`  schema:   ${dialect === 'unsupported' ? from : described}`);
  }
  if (tool.approval)
    out.push(
      `  approval: needed before each call (` +
        `${tool.approval === 'listed' ? 'listed in approve' : 'approve.destructive, and it may be destructive'})`,
    );
  for (const w of tool.warnings) out.push(`  warning:  ${w}`);
  const plugin = report.plugins.find((p) => p.name === tool.plugin);
  const changed = plugin?.mcp?.definitionChanges?.find((c) => c.name === tool.name);
  if (changed) {
    const since =
      changed.kind === 'added'
        ? `new since its server's tools were accepted on ${changed.acceptedAt}`
        : `definition changed since accepted on ${changed.acceptedAt}`;
    out.push(
      `  ${since} (${changed.mode === 'hold' ? 'held' : 'served with a warning'}):`,
      ...changed.diff.map((line) => `    ${line}`),
    );
  }
  if (plugin?.permissions) {
    const e = plugin.permissions.effective;
    const pool = plugin.pool?.kind
      ? `, ${plugin.pool.kind === 'own' ? 'a pool of its own' : 'the shared pool'}: ${plugin.pool.reason}`
      : '';
    out.push(`  tier:     ${plugin.tier} (${plugin.trust})${pool}`);
    const perms = plugin.permissions;
    const show = (x: Omit<typeof e, 'folders'>, folders: string[]) =>
      `network ${x.network ? 'yes' : 'no'}; env ${x.env?.join(', ') || 'none'}; read ` +
      `${x.fsRead?.join(', ') || 'none'}; write ${x.fsWrite?.join(', ') || 'none'}; call ` +
      `${x.callTools?.join(', ') || 'none'}${folders.length ? `; folders ${folders.join(', ')}` : ''}`;
    const asked = Object.entries(perms.requested.folders ?? {}).map(
      ([purpose, f]) => `${purpose} (${f.access}${f.description ? `: ${f.description}` : ''})`,
    );
    const chosen = (x: typeof e) => Object.entries(x.folders ?? {}).map(([purpose, p]) => `${purpose} = ${p}`);
    out.push(`  requested: ${show(perms.requested, asked)}`);
    out.push(`  granted:   ${show(perms.granted, chosen(perms.granted))}`);
    out.push(`  effective: ${show(e, chosen(e))}`);
    for (const note of perms.unmatched ?? []) out.push(`  ${s.yellow(s.warn)} ${note}`);
    out.push(`  enforced:  ${describeEnforcement(perms.enforced)}`);
    if (perms.enforced.note) out.push(`  ${perms.enforced.note}`);
    const protections = describeProtections(plugin) ?? describeServerProtections(plugin);
    if (protections) out.push(`  ${protections}`);
    if (plugin.mcp)
      out.push(
        `  server:   MCP over ${plugin.mcp.transport}, ${plugin.mcp.state}` +
          `${plugin.mcp.server ? ` (${plugin.mcp.server.name} ${plugin.mcp.server.version})` : ''}`,
      );
    if (plugin.mcp?.auth) out.push(`  oauth:    ${authText(plugin.mcp.auth)}`);
    if (plugin.mcp?.runs) out.push(`  runs:     ${plugin.mcp.runs}`);
    const own = plugin.mcp?.renamed[tool.name];
    if (own) out.push(`  name:     ${own} on the server, renamed because another tool has that name`);
  }
  return out.join('\n');
}

/** A tool's annotations in words: `read-only, idempotent, closed world`. */
function describeAnnotations(a: NonNullable<ToolReport['annotations']>): string {
  const parts: string[] = [];
  if (a.title) parts.push(`"${a.title}"`);
  if (a.readOnlyHint !== undefined) parts.push(a.readOnlyHint ? 'read-only' : 'writes');
  if (a.destructiveHint !== undefined) parts.push(a.destructiveHint ? 'destructive' : 'not destructive');
  if (a.idempotentHint !== undefined) parts.push(a.idempotentHint ? 'idempotent' : 'not idempotent');
  if (a.openWorldHint !== undefined) parts.push(a.openWorldHint ? 'open world' : 'closed world');
  return parts.join(', ');
}

/** Every tool, one block each, for `toolshed explain`. */
export function renderExplain(report: HostReport, s: Style = PLAIN): string {
  return [renderSummary(report, s), '', ...report.tools.map((t) => renderTool(t, report, s))].join('\n');
}

/** The `search.embedder` line: how many tool vectors are ready, and the embedder's last failure. */
function embeddingsLine(e: NonNullable<HostReport['search']['embeddings']>): string {
  const progress =
    e.vectors + e.pending
      ? `${e.vectors} tool vectors, ${e.pending} pending`
      : 'no tool vectors yet (tools are embedded after the first search)';
  return (
    `search embeddings (${e.model}): ${progress}` +
    `${e.failed ? `; failing, searches rank lexically: ${e.failed}` : ''}`
  );
}
