/**
 * The sandbox launcher: turns "run this program, seeing only these paths"
 * into the command line that does it on this machine — bubblewrap (a mount
 * namespace holding only what the program may read, plus network, PID, IPC
 * and UTS namespaces), else util-linux `unshare` (network and PID namespaces,
 * the host's whole filesystem still in view), else the program as is — and
 * says which protections that gives, with the reason for any that are missing.
 *
 * `launchCommand` is pure: what the machine supports comes in as a
 * `SandboxSupport` (from `probeSandbox()` in probe.ts, cached per host
 * process), so the same inputs always give the same command. The process
 * tier's node child uses it (spawn.ts); any other program (a shell, an MCP
 * server binary) can use it with `runtime: 'system'`.
 */

import { rlimitPlan, type ResourceLimits, type ResourceProtections } from './resources.js';

/** The OS-level protections a launched program runs under (what `explain` reports). */
export interface LaunchProtections {
  /** how the program was wrapped: `bwrap`, `unshare`, or `none` */
  launcher: 'bwrap' | 'unshare' | 'none';
  /**
   * the program sees only the paths it was given, a private /tmp, /dev/null, /dev/urandom and its own /proc (bwrap
   * only)
   */
  mountNamespace: boolean;
  /** no network but its own loopback (false when `network` is granted, or unavailable) */
  netNamespace: boolean;
  /** the program sees only its own processes and cannot signal the host */
  pidNamespace: boolean;
  /** the program holds no capabilities outside its own user namespace */
  userNamespace: boolean;
  /** why a protection is not in force, in words for the operator */
  reason?: string;
  /** the resource limits and what holds each (when the spec asked for limits) */
  resources?: ResourceProtections;
}

/**
 * What this machine can do, as found by `probeSandbox()`; pass a literal one to get a command for another situation.
 */
export interface SandboxSupport {
  /** absolute path of a working bwrap(1), when bubblewrap may be used */
  bwrap?: string;
  /** bwrap could create a user namespace (`--unshare-user`) */
  bwrapUserNamespace?: boolean;
  /** absolute path of a working unshare(1), when it may be used */
  unshare?: string;
  /** `--user --map-root-user` when unshare could create an unprivileged user namespace, else empty */
  unshareUserFlags: readonly string[];
  /**
   * files the node binary needs to start (itself, its shared libraries, the dynamic loader), as paths to bind:
   * `[source, destination]`
   */
  nodeRuntime: ReadonlyArray<readonly [string, string]>;
  /** why bwrap is not used, when it is not */
  bwrapReason?: string;
  /** why no namespaces at all, when unshare is not available either */
  unshareReason?: string;
  /** absolute path of a working prlimit(1), when rlimits can be set */
  prlimit?: string;
  /** why prlimit is not used, when it is not */
  prlimitReason?: string;
  /**
   * files prlimit needs inside an empty mount namespace (itself and its shared libraries), as `[source, destination]`
   */
  prlimitRuntime?: ReadonlyArray<readonly [string, string]>;
  /** the host runs as root (the kernel does not apply RLIMIT_NPROC to root) */
  root?: boolean;
}

/** One program to launch in the sandbox. */
interface LaunchSpec {
  /** absolute path of the program (resolve a bare name on PATH first) */
  command: string;
  args: readonly string[];
  /**
   * absolute real paths it may read; under bwrap each is bound read-only at the same path, and a missing one is skipped
   */
  readPaths: readonly string[];
  /**
   * absolute real paths it may write; under bwrap bound read-write after the read paths (so a write path inside a read
   * path stays writable); a missing one is skipped
   */
  writePaths: readonly string[];
  /**
   * Protected paths inside the write paths (from `protectedMounts`): under bwrap each is
   * bound read-only over its writable parent, and every folder between its write path and
   * it is bound onto itself, so it can be neither written nor renamed away. Without bwrap
   * nothing holds them, and `protections.reason` says so.
   */
  readOnlyPaths?: readonly string[];
  /**
   * share the host's network (no network namespace); also binds the resolver files (/etc/resolv.conf, /etc/hosts, …)
   * under bwrap
   */
  network: boolean;
  /**
   * the complete environment, already reduced to what the program may see; returned unchanged for `spawn` (never put on
   * the command line)
   */
  env: Readonly<Record<string, string>>;
  /**
   * working directory; under bwrap it is entered only when it lies inside a read or write path, else the program starts
   * in `/`
   */
  cwd: string;
  /**
   * What else the program needs to run, bound read-only under bwrap:
   * `'node'`: the node binary and its shared libraries only (`SandboxSupport.nodeRuntime`);
   * `'system'`: the system's programs and libraries (/usr, /bin, /sbin, /lib*, /etc/ld.so.*, /etc/alternatives), for
   * any other binary.
   */
  runtime: 'node' | 'system';
  /**
   * limits on its processes, memory and file size: rlimits set by prlimit in front of the program (resources.ts); the
   * caller runs the watchdog
   */
  resources?: ResourceLimits;
}

/** The command line to spawn, the environment and cwd to spawn it with, and the protections it gets. */
export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  protections: LaunchProtections;
}

/**
 * unshare: its own PID namespace with its own /proc; --kill-child takes the program down if unshare itself is killed.
 */
const UNSHARE_PID_FLAGS = ['--pid', '--fork', '--mount-proc', '--kill-child'];

/** The system's programs and libraries, for `runtime: 'system'` (paths that do not exist are skipped). */
const SYSTEM_RUNTIME = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
];

/** Read by every program that resolves host names; none of them holds a secret. */
const RESOLVER_FILES = [
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/nsswitch.conf',
  '/etc/gai.conf',
  '/etc/host.conf',
  '/etc/services',
  '/etc/protocols',
];

/** Harmless and read by most runtimes (local time). */
const COMMON_FILES = ['/etc/localtime'];

/** Whether `target` is `root` or lies below it (both absolute, normalized). */
function within(target: string, root: string): boolean {
  return target === root || target.startsWith(root.endsWith('/') ? root : `${root}/`);
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)].sort();
}

function bwrapArgs(spec: LaunchSpec, support: SandboxSupport, prefix: readonly string[]): string[] {
  const args = ['--die-with-parent', '--cap-drop', 'ALL'];
  if (support.bwrapUserNamespace) args.push('--unshare-user');
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (!spec.network) args.push('--unshare-net');
  // node never starts processes in the sandbox, so it can be PID 1 itself (no reaper needed, ppid 0);
  // any other program gets bwrap's own init as PID 1 to reap what it starts.
  if (spec.runtime === 'node') args.push('--as-pid-1');
  args.push(
    '--proc',
    '/proc',
    '--dev-bind',
    '/dev/null',
    '/dev/null',
    '--dev-bind',
    '/dev/urandom',
    '/dev/urandom',
    '--tmpfs',
    '/tmp',
  );
  const runtime: Array<readonly [string, string]> =
    spec.runtime === 'node' ? [...support.nodeRuntime] : SYSTEM_RUNTIME.map((p) => [p, p] as const);
  // prlimit in front of a node program: itself and its libraries (a system program has /usr already).
  if (prefix.length && spec.runtime === 'node') runtime.push(...(support.prlimitRuntime ?? []));
  for (const [source, destination] of runtime) args.push('--ro-bind-try', source, destination);
  for (const file of [...COMMON_FILES, ...(spec.network ? RESOLVER_FILES : [])]) args.push('--ro-bind-try', file, file);
  const reads = unique(spec.readPaths);
  const writes = unique(spec.writePaths);
  for (const p of reads) args.push('--ro-bind-try', p, p);
  for (const p of writes) args.push('--bind-try', p, p);
  args.push(...readOnlyArgs(writes, unique(spec.readOnlyPaths ?? [])));
  const visible = [...reads, ...writes].some((root) => within(spec.cwd, root));
  args.push('--chdir', visible ? spec.cwd : '/');
  args.push('--', ...prefix, spec.command, ...spec.args);
  return args;
}

/**
 * The mounts that keep `readOnly` read-only inside `writes`: first every folder between a
 * write path and a protected path is bound onto itself (a mount point cannot be renamed,
 * so `mv .git x; mkdir .git` cannot route around `.git/config`), then each protected path
 * is bound read-only, shallowest first.
 */
function readOnlyArgs(writes: readonly string[], readOnly: readonly string[]): string[] {
  const pins = new Set<string>();
  const shown = readOnly.filter((p) => !readOnly.some((other) => other !== p && within(p, other)));
  for (const p of shown) {
    const root = writes.filter((w) => within(p, w) && w !== p).sort((a, b) => b.length - a.length)[0];
    if (root === undefined) continue;
    for (
      let dir = p.slice(0, p.lastIndexOf('/'));
      dir.length > root.length && within(dir, root);
      dir = dir.slice(0, dir.lastIndexOf('/'))
    )
      pins.add(dir);
  }
  const args: string[] = [];
  for (const dir of [...pins].sort((a, b) => a.length - b.length)) args.push('--bind-try', dir, dir);
  for (const p of shown) args.push('--ro-bind-try', p, p);
  return args;
}

function unshareArgs(spec: LaunchSpec, support: SandboxSupport, prefix: readonly string[]): string[] {
  return [
    ...support.unshareUserFlags,
    ...(spec.network ? [] : ['--net']),
    ...UNSHARE_PID_FLAGS,
    ...prefix,
    spec.command,
    ...spec.args,
  ];
}

/**
 * The command that runs `spec` in the strongest sandbox `support` allows:
 *
 * - **bwrap** (`launcher: 'bwrap'`): a mount namespace whose root is an empty
 *   tmpfs holding only `runtime`'s files, the read paths (read-only), the write
 *   paths (read-write), a private `/tmp`, `/dev/null`, `/dev/urandom` and a
 *   `/proc` of its own PID namespace; no network namespace only when
 *   `network`; IPC and UTS namespaces; all capabilities dropped; a user
 *   namespace where the kernel allows one; `--die-with-parent`. No host
 *   socket, secret file or config exists in there, whatever route the program
 *   takes to open it.
 * - **unshare** (`launcher: 'unshare'`): network (unless `network`) and PID
 *   namespaces, a user namespace where allowed; the host's filesystem is still
 *   in view, so file access must be limited some other way (Node's permission
 *   model, for the node child). `protections.reason` says why bwrap was not used.
 * - **none**: the program as is; `protections.reason` says why.
 *
 * With `resources`, `prlimit` runs right before the program (inside the namespaces, so
 * RLIMIT_NPROC counts the program's own user namespace) and `protections.resources` says
 * what holds each limit (resources.ts); the watchdog that names a limit is the caller's.
 *
 * Spawn the result with `spawn(launch.command, launch.args, { cwd: launch.cwd,
 * env: launch.env, detached: true })`, and kill the whole process group
 * (`process.kill(-pid, 'SIGKILL')`) to stop it. Pure: no file is read and no
 * process started; the same `spec` and `support` always give the same launch.
 * @example
 * const launch = launchCommand({ command: '/bin/sh', args: ['-c', 'ls'], readPaths: [dir], writePaths: [],
 *   network: false, env: { PATH: '/usr/bin:/bin' }, cwd: dir, runtime: 'system' }, probeSandbox());
 */
export function launchCommand(spec: LaunchSpec, support: SandboxSupport): Launch {
  const launch = namespaced(spec, support);
  if (!spec.resources) return launch.launch;
  const { prefix, protections } = rlimitPlan(spec.resources, support, launch.launch.protections.userNamespace);
  const limited = namespaced(spec, support, prefix).launch;
  return { ...limited, protections: { ...limited.protections, resources: protections } };
}

function namespaced(spec: LaunchSpec, support: SandboxSupport, prefix: readonly string[] = []): { launch: Launch } {
  const base = { env: { ...spec.env }, cwd: spec.cwd };
  const networkReason = spec.network ? ['network granted: the program shares the host network'] : [];
  if (support.bwrap) {
    const protections: LaunchProtections = {
      launcher: 'bwrap',
      mountNamespace: true,
      netNamespace: !spec.network,
      pidNamespace: true,
      userNamespace: support.bwrapUserNamespace === true,
    };
    const reasons = [
      ...networkReason,
      ...(support.bwrapUserNamespace ? [] : ['no user namespace: bwrap runs with its capabilities dropped instead']),
    ];
    if (reasons.length) protections.reason = reasons.join('; ');
    return { launch: { ...base, command: support.bwrap, args: bwrapArgs(spec, support, prefix), protections } };
  }
  const reasons = [support.bwrapReason ?? 'bubblewrap (bwrap) is not available'];
  if (spec.readOnlyPaths?.length)
    reasons.push(
      `${spec.readOnlyPaths.length} protected path(s) inside the writable folders are not held read-only (no ` +
        `mount namespace)`,
    );
  if (support.unshare) {
    const protections: LaunchProtections = {
      launcher: 'unshare',
      mountNamespace: false,
      netNamespace: !spec.network,
      pidNamespace: true,
      userNamespace: support.unshareUserFlags.length > 0,
      reason: [...reasons, 'the host filesystem stays in view (no mount namespace)', ...networkReason].join('; '),
    };
    return { launch: { ...base, command: support.unshare, args: unshareArgs(spec, support, prefix), protections } };
  }
  reasons.push(support.unshareReason ?? 'unshare(1) is not available');
  const [command, ...args] = [...prefix, spec.command, ...spec.args];
  return {
    launch: {
      ...base,
      command: command!,
      args,
      protections: {
        launcher: 'none',
        mountNamespace: false,
        netNamespace: false,
        pidNamespace: false,
        userNamespace: false,
        reason: reasons.join('; '),
      },
    },
  };
}
