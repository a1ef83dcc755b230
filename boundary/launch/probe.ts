/**
 * What this machine's sandbox launcher can use, probed once per host process
 * and mode: bubblewrap (with or without a user namespace), else util-linux
 * `unshare` (with or without one), and the files the node binary needs to
 * start inside an empty mount namespace. `launchCommand` (launch.ts) turns the
 * result into command lines.
 *
 * Also whether util-linux `prlimit` works here (resource limits, resources.ts)
 * and whether the host runs as root.
 *
 * Three switches in the host's environment force a weaker launcher, for
 * debugging and for testing the fallbacks: `TOOLSHED_SANDBOX_BWRAP=off` (use
 * unshare), `TOOLSHED_SANDBOX_NAMESPACES=off` (no namespaces at all) and
 * `TOOLSHED_SANDBOX_PRLIMIT=off` (no rlimits: the watchdog alone).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import which from 'which';
import { launchCommand, type SandboxSupport } from './launch.js';

/** Set to `off` in the host's environment to run children without any namespace. */
export const NAMESPACES_ENV = 'TOOLSHED_SANDBOX_NAMESPACES';
/** Set to `off` in the host's environment to use `unshare` instead of bubblewrap. */
export const BWRAP_ENV = 'TOOLSHED_SANDBOX_BWRAP';
/** Set to `off` in the host's environment to set no rlimits (the resource watchdog still runs). */
export const PRLIMIT_ENV = 'TOOLSHED_SANDBOX_PRLIMIT';

const PROBE_TIMEOUT_MS = 10_000;

const probes = new Map<string, SandboxSupport>();

/**
 * The launcher support of this machine in the mode the host's environment
 * selects, probed on first use and cached: each candidate is tried by really
 * starting a sandboxed `node -e ''` (or `true`) the way children are started.
 */
export function probeSandbox(): SandboxSupport {
  const mode =
    process.platform !== 'linux'
      ? 'unsupported'
      : process.env[NAMESPACES_ENV] === 'off'
        ? 'off'
        : process.env[BWRAP_ENV] === 'off'
          ? 'no-bwrap'
          : 'auto';
  const rlimits = process.platform !== 'linux' ? 'unsupported' : process.env[PRLIMIT_ENV] === 'off' ? 'off' : 'auto';
  const key = `${mode}/${rlimits}`;
  let support = probes.get(key);
  if (!support) {
    support = { ...runProbe(mode), ...probePrlimit(rlimits) };
    probes.set(key, support);
  }
  return support;
}

function find(name: string): string | undefined {
  const known = [`/usr/bin/${name}`, `/bin/${name}`].find((p) => existsSync(p));
  return known ?? which.sync(name, { nothrow: true }) ?? undefined;
}

function runProbe(mode: string): SandboxSupport {
  const support: SandboxSupport = { unshareUserFlags: [], nodeRuntime: nodeRuntimeFiles() };
  if (mode === 'unsupported') {
    const reason = `namespaces are a Linux feature; this is ${process.platform}`;
    return { ...support, bwrapReason: reason, unshareReason: reason };
  }
  if (mode === 'off') {
    const reason = `namespaces disabled by ${NAMESPACES_ENV}=off in the host's environment`;
    return { ...support, bwrapReason: reason, unshareReason: reason };
  }
  if (mode === 'no-bwrap') support.bwrapReason = `bubblewrap disabled by ${BWRAP_ENV}=off in the host's environment`;
  else Object.assign(support, probeBwrap(support));
  // unshare is only the fallback: not probed when bwrap works (each probe starts processes).
  return support.bwrap ? support : { ...support, ...probeUnshare() };
}

/** Tries bwrap with a user namespace, then without, by starting node in it exactly as a child would be. */
function probeBwrap(base: SandboxSupport): Partial<SandboxSupport> {
  const bwrap = find('bwrap');
  if (!bwrap) return { bwrapReason: 'bubblewrap (bwrap) is not installed' };
  const failures: string[] = [];
  for (const userNamespace of [true, false]) {
    const candidate: SandboxSupport = { ...base, bwrap, bwrapUserNamespace: userNamespace };
    const launch = launchCommand(
      {
        command: process.execPath,
        args: ['-e', ''],
        readPaths: [],
        writePaths: [],
        network: false,
        env: {},
        cwd: '/',
        runtime: 'node',
      },
      candidate,
    );
    const result = spawnSync(launch.command, launch.args, {
      env: {},
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: PROBE_TIMEOUT_MS,
    });
    if (result.status === 0) return { bwrap, bwrapUserNamespace: userNamespace };
    failures.push(
      `bwrap${userNamespace ? ' --unshare-user' : ''}: ` +
        `${String(result.stderr ?? '').trim() || result.error?.message || `exit ${result.status}`}`,
    );
  }
  return { bwrapReason: `bwrap could not start a sandbox here (${failures.join('; ')})` };
}

/**
 * Tries unshare with an unprivileged user namespace first (no root needed where the kernel allows it), then plain
 * namespaces.
 */
function probeUnshare(): Partial<SandboxSupport> {
  const unshare = find('unshare');
  if (!unshare) return { unshareReason: 'unshare(1) (util-linux) is not installed' };
  const failures: string[] = [];
  for (const userFlags of [['--user', '--map-root-user'], []]) {
    // --net is probed with every attempt: a plugin without the network grant must get it.
    const args = [...userFlags, '--net', '--pid', '--fork', '--mount-proc', '--kill-child', 'true'];
    const result = spawnSync(unshare, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS });
    if (result.status === 0) return { unshare, unshareUserFlags: userFlags };
    failures.push(
      `unshare ${args.join(' ')}: ` +
        `${String(result.stderr ?? '').trim() || result.error?.message || `exit ${result.status}`}`,
    );
  }
  return { unshareReason: `unshare could not create namespaces (${failures.join('; ')})` };
}

/**
 * Tries prlimit by really lowering a limit in front of `true`; lists the files it needs in an empty mount namespace.
 */
function probePrlimit(mode: string): Partial<SandboxSupport> {
  const root = process.getuid?.() === 0;
  if (mode === 'unsupported')
    return { root, prlimitReason: `rlimits by prlimit(1) are set on Linux only; this is ${process.platform}` };
  if (mode === 'off')
    return { root, prlimitReason: `rlimits disabled by ${PRLIMIT_ENV}=off in the host's environment` };
  const prlimit = find('prlimit');
  if (!prlimit) return { root, prlimitReason: 'prlimit(1) (util-linux) is not installed' };
  // Byte counts, never suffixes: util-linux 2.38's prlimit crashes on --data=64G.
  const result = spawnSync(prlimit, ['--fsize=1048576', '--', 'true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: PROBE_TIMEOUT_MS,
  });
  if (result.status !== 0)
    return {
      root,
      prlimitReason:
        `prlimit(1) could not set a limit here (` +
        `${String(result.stderr ?? '').trim() || result.error?.message || `exit ${result.status}`})`,
    };
  return { root, prlimit, prlimitRuntime: linkedFiles(prlimit, prlimit) };
}

/**
 * `binary` (bound at `as`) and the shared libraries it links, as ldd lists them; the system library folders without
 * ldd.
 */
function linkedFiles(binary: string, as: string): Array<readonly [string, string]> {
  const files: Array<readonly [string, string]> = [[realpathSync(binary), as]];
  const ldd = find('ldd');
  const listed = ldd ? spawnSync(ldd, [binary], { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS }) : undefined;
  if (listed?.status !== 0) {
    for (const dir of ['/lib', '/lib64', '/usr/lib', '/usr/lib64']) files.push([dir, dir]);
    return files;
  }
  // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)" and "/lib64/ld-linux-x86-64.so.2 (0x…)"
  for (const match of listed.stdout.matchAll(/(?:=>\s*|^\s*)(\/\S+)\s+\(0x/gm)) {
    const file = match[1]!;
    try {
      files.push([realpathSync(file), file]);
    } catch {
      // listed but gone: the loader will say so if it matters
    }
  }
  return files;
}

/**
 * The node binary and the shared libraries it links (as ldd lists them, each
 * bound from its real path to the path the loader asks for). Without ldd, the
 * system library folders instead.
 */
function nodeRuntimeFiles(): Array<readonly [string, string]> {
  if (process.platform !== 'linux') return [[realpathSync(process.execPath), process.execPath]];
  return [...linkedFiles(process.execPath, process.execPath), ['/etc/ld.so.cache', '/etc/ld.so.cache']];
}
