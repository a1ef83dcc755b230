/**
 * How a stdio MCP server is started. An untrusted server (the default) gets
 * the environment written in its `env` plus the granted variables (and PATH),
 * nothing else; it goes through the process tier's sandbox launcher
 * (bubblewrap, else unshare namespaces, as probed on this machine); and a
 * JavaScript server run by node also gets Node's permission model (fs
 * limited to its package, its node_modules and the grants; no child
 * processes, workers or addons). Its processes, memory and file size are
 * limited (`resources`): rlimits by prlimit inside the sandbox, and the
 * host's watchdog over its process tree (connection.ts, with
 * boundary/launch/resource-watch.ts), which stops it past a limit and says
 * which. A trusted server starts as a desktop client would start it.
 */
import path from 'node:path';
import which from 'which';
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/client/stdio';
import { resolveGrantPaths } from '../../boundary/launch/paths.js';
import { nodeReadPaths, resolveProgram, type Program } from './program.js';
import { launchCommand } from '../../boundary/launch/launch.js';
import { probeSandbox } from '../../boundary/launch/probe.js';
import { netPermission, permissionModelFlags } from '../runners/process/node-flags.js';
import type { ResolvedServer, StdioTarget } from './config.js';
import { protectedMounts } from '../../boundary/launch/protected-mounts.js';
import type { ProtectedPath } from '../../boundary/plugin-api.js';
import type { ServerProtections } from '../runners/connection-report.js';
import type { ResourceLimits } from '../../boundary/launch/resources.js';

/** What StdioClientTransport is given, and what explain reports. */
export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  protections: ServerProtections;
  /** what toolshed runs instead of the command as written (npx of an installed package: its bin under this node) */
  runs?: string;
  /** the limits the host's watchdog holds it to (an untrusted server's; a trusted one has none) */
  resources?: ResourceLimits;
}

/** What planning needs from the host. */
export interface LaunchContext {
  /** the host's environment, where granted variables come from */
  env: Record<string, string | undefined>;
  /** the config file's folder: grants and npx packages resolve from it */
  configDir: string;
  /** the host's protected paths: kept read-only inside the server's granted write paths */
  protect?: readonly ProtectedPath[];
}

function pick(names: readonly string[], env: LaunchContext['env']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * The SDK's stdio transport always adds a few of the host's variables (HOME,
 * LOGNAME, PATH, SHELL, TERM, USER) to the environment it is given. `env -u`
 * in front of the command removes the ones the server was not given; only
 * names reach the command line, never values.
 */
function withoutDefaults(
  command: string,
  args: string[],
  env: Record<string, string>,
): { command: string; args: string[]; reason?: string } {
  const extra = DEFAULT_INHERITED_ENV_VARS.filter((name) => !(name in env));
  if (!extra.length) return { command, args };
  const envBin =
    ['/usr/bin/env', '/bin/env'].find((p) => which.sync(p, { nothrow: true })) ?? which.sync('env', { nothrow: true });
  if (!envBin) return { command, args, reason: `env(1) not found: the server also sees ${extra.join(', ')}` };
  return { command: envBin, args: [...extra.flatMap((name) => ['-u', name]), '--', command, ...args] };
}

function untrustedEnv(target: StdioTarget, server: ResolvedServer, context: LaunchContext): Record<string, string> {
  const base: Record<string, string> = {};
  if (context.env.PATH !== undefined) base.PATH = context.env.PATH;
  return { ...base, ...pick(server.grant.env, context.env), ...target.env };
}

function trusted(target: StdioTarget, server: ResolvedServer, context: LaunchContext): StdioLaunch {
  return {
    command: target.command,
    args: [...target.args],
    env: { ...pick(server.grant.env, context.env), ...target.env },
    cwd: target.cwd,
    protections: {
      launcher: 'none',
      mountNamespace: false,
      netNamespace: false,
      pidNamespace: false,
      userNamespace: false,
      permissionModel: false,
      netPermission: false,
      env: 'desktop default',
      reason: 'trusted: started as written, like a desktop MCP client would',
    },
  };
}

/** The program's own folder when it lies outside the system's, so the mount namespace holds it. */
function programReadPaths(program: Program): string[] {
  if (program.runtime === 'node') return nodeReadPaths(program.script);
  if (!path.isAbsolute(program.command) || /^\/(usr|bin|sbin|lib)/.test(program.command)) return [];
  return [path.dirname(program.command)];
}

/** The command line, environment and protections of one stdio server. */
export function planStdioLaunch(server: ResolvedServer, context: LaunchContext): StdioLaunch {
  const target = server.stdio!;
  if (server.trust === 'trusted') return trusted(target, server, context);
  const env = untrustedEnv(target, server, context);
  const program = resolveProgram(target.command, target.args, {
    cwd: target.cwd,
    configDir: context.configDir,
    path: env.PATH,
  });
  const grantedReads = resolveGrantPaths(server.grant.fsRead, context.configDir);
  const writes = resolveGrantPaths(server.grant.fsWrite, context.configDir);
  const reads = [...programReadPaths(program), ...grantedReads, ...writes];
  const args =
    program.runtime === 'node'
      ? [
          ...program.nodeFlags,
          ...permissionModelFlags(reads, writes, server.grant.network),
          '--disable-warning=ExperimentalWarning',
          program.script,
          ...program.scriptArgs,
        ]
      : program.args;
  const launch = launchCommand(
    {
      command: program.command,
      args,
      readPaths: reads,
      writePaths: writes,
      readOnlyPaths: protectedMounts(writes, context.protect, target.cwd),
      network: server.grant.network,
      env,
      cwd: target.cwd,
      runtime: program.runtime,
      resources: server.resources,
    },
    probeSandbox(),
  );
  const wrapped = withoutDefaults(launch.command, launch.args, launch.env);
  // A node program's note says what runs instead of npx; a system program's says why no permission model holds it.
  const reasons = [
    launch.protections.reason,
    program.runtime === 'system' ? program.note : undefined,
    wrapped.reason,
  ].filter((r): r is string => Boolean(r));
  const node = program.runtime === 'node';
  const protections: ServerProtections = {
    ...launch.protections,
    permissionModel: node,
    netPermission: node && netPermission(server.grant.network),
    env: 'granted only',
  };
  delete protections.reason;
  if (reasons.length) protections.reason = reasons.join('; ');
  return {
    command: wrapped.command,
    args: wrapped.args,
    env: launch.env,
    cwd: launch.cwd,
    protections,
    resources: server.resources,
    ...(program.runtime === 'node' && program.note ? { runs: program.note } : {}),
  };
}
