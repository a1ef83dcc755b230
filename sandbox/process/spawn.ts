/**
 * How a process-tier child is started: Node's permission-model flags, the
 * heap limit, and the `unshare` wrapper that gives the child its own network
 * and PID namespaces where this machine allows it (probed once per host
 * process and cached).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import which from 'which';

/** The protections a child runs under, as reported by `explain`. */
export interface Protections {
  /** Node's permission model: fs reads/writes limited to grants, no child processes, no addons */
  permissionModel: true;
  /** the child has no network interfaces but its own loopback (false when `network` is granted, or unavailable) */
  netNamespace: boolean;
  /** the child sees only its own processes and cannot signal the host */
  pidNamespace: boolean;
  /** the child holds no capabilities outside its own user namespace */
  userNamespace: boolean;
  /** the host polls the child's resident memory and kills it above its budget */
  memoryWatchdog: boolean;
  /** why a namespace is not in force, in words for the operator */
  reason?: string;
}

/** What the namespace probe found on this machine. */
export interface NamespaceSupport {
  /** absolute path of unshare(1), when found and working */
  unshare?: string;
  /** `--user --map-root-user` when an unprivileged user namespace worked, else empty */
  userFlags: string[];
  netNamespace: boolean;
  pidNamespace: boolean;
  userNamespace: boolean;
  /** why namespaces are not (all) available */
  reason?: string;
}

/** Set to `off` in the host's environment to run children without namespaces (debugging, or testing the fallback). */
export const NAMESPACES_ENV = 'TOOLSHED_SANDBOX_NAMESPACES';

// Own PID namespace with its own /proc; --kill-child takes node down if unshare itself is killed.
const PID_FLAGS = ['--pid', '--fork', '--mount-proc', '--kill-child'];

const probes = new Map<string, NamespaceSupport>();

/**
 * Probes once which namespaces `unshare` can create here, trying an
 * unprivileged user namespace first (works without root where the kernel
 * allows it), then plain namespaces (root with CAP_SYS_ADMIN).
 */
export function probeNamespaces(): NamespaceSupport {
  const mode = process.platform !== 'linux' ? 'unsupported' : process.env[NAMESPACES_ENV] === 'off' ? 'off' : 'auto';
  const cached = probes.get(mode);
  if (cached) return cached;
  const support = runProbe(mode);
  probes.set(mode, support);
  return support;
}

function none(reason: string): NamespaceSupport {
  return { userFlags: [], netNamespace: false, pidNamespace: false, userNamespace: false, reason };
}

function runProbe(mode: string): NamespaceSupport {
  if (mode === 'unsupported') return none(`namespaces are a Linux feature; this is ${process.platform}`);
  if (mode === 'off') return none(`namespaces disabled by ${NAMESPACES_ENV}=off in the host's environment`);
  const unshare = ['/usr/bin/unshare', '/bin/unshare'].find((p) => existsSync(p)) ?? which.sync('unshare', { nothrow: true }) ?? undefined;
  if (!unshare) return none('unshare(1) (util-linux) is not installed');
  const attempts: Array<{ userFlags: string[] }> = [{ userFlags: ['--user', '--map-root-user'] }, { userFlags: [] }];
  const failures: string[] = [];
  for (const { userFlags } of attempts) {
    // --net is probed with every attempt: a plugin without the network grant must get it.
    const args = [...userFlags, '--net', ...PID_FLAGS];
    const result = spawnSync(unshare, [...args, 'true'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 5_000 });
    if (result.status === 0) return { unshare, userFlags, netNamespace: true, pidNamespace: true, userNamespace: userFlags.length > 0 };
    failures.push(`unshare ${args.join(' ')}: ${String(result.stderr ?? result.error?.message ?? '').trim() || `exit ${result.status}`}`);
  }
  return none(`unshare could not create namespaces (${failures.join('; ')})`);
}

/** Everything that decides a child's command line. */
export interface ChildCommandOptions {
  /** absolute path of the child's entry (dist/sandbox/child.js) */
  childEntry: string;
  /** real, absolute paths the child may read */
  readPaths: string[];
  /** real, absolute paths the child may write */
  writePaths: string[];
  memoryMb: number;
  /** the plugin was granted network access: no network namespace */
  network: boolean;
}

/** The command, arguments and protections of one child. */
export interface ChildCommand {
  command: string;
  args: string[];
  protections: Protections;
}

/** Builds the child's command line: `[unshare …] node <permission flags> child.js`. */
export function childCommand(options: ChildCommandOptions): ChildCommand {
  const nodeArgs = [
    // Node 20 spells it --experimental-permission; Node 22.13+ made the model stable as --permission.
    process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission',
    ...unique(options.readPaths).map((p) => `--allow-fs-read=${p}`),
    ...unique(options.writePaths).map((p) => `--allow-fs-write=${p}`),
    // The child's own Piscina pool needs threads; plugin code is denied new Workers by child/harden.ts.
    '--allow-worker',
    // Belt and braces: addons are already denied without --allow-addons.
    '--no-addons',
    `--max-old-space-size=${options.memoryMb}`,
    // These two warnings are printed by every child; keeping them out of stderr keeps crash diagnostics readable.
    '--disable-warning=ExperimentalWarning',
    '--disable-warning=SecurityWarning',
    options.childEntry,
  ];
  const support = probeNamespaces();
  const reasons: string[] = [];
  if (support.reason) reasons.push(support.reason);
  if (!support.unshare) {
    return {
      command: process.execPath,
      args: nodeArgs,
      protections: { permissionModel: true, netNamespace: false, pidNamespace: false, userNamespace: false, memoryWatchdog: process.platform === 'linux', reason: reasons.join('; ') },
    };
  }
  const flags = [...support.userFlags, ...(options.network ? [] : ['--net']), ...PID_FLAGS];
  if (options.network) reasons.push('network granted: the child shares the host network');
  const protections: Protections = { permissionModel: true, netNamespace: !options.network, pidNamespace: true, userNamespace: support.userNamespace, memoryWatchdog: true };
  if (reasons.length) protections.reason = reasons.join('; ');
  return { command: support.unshare, args: [...flags, process.execPath, ...nodeArgs], protections };
}

/** The protections a child of a plugin with (or without) the network grant would run under. */
export function expectedProtections(network: boolean): Protections {
  return childCommand({ childEntry: '', readPaths: [], writePaths: [], memoryMb: 0, network }).protections;
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)].sort();
}
