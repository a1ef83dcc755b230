/**
 * How a process-tier child is started: Node's permission-model flags and the
 * heap limit, wrapped by the sandbox launcher (launch.ts: bubblewrap, else
 * unshare, else nothing, as probed on this machine by probe.ts).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { launchCommand } from '../../../boundary/launch/launch.js';
import type { Protections } from '../protections.js';
import type { ResourceLimits } from '../../../boundary/launch/resources.js';
import { probeSandbox } from '../../../boundary/launch/probe.js';
import { netPermission, permissionModelFlags } from './node-flags.js';

export { BWRAP_ENV, NAMESPACES_ENV } from '../../../boundary/launch/probe.js';

/** Everything that decides a child's command line. */
interface ChildCommandOptions {
  /** absolute path of the child's entry (dist/sandbox/child/child-main.js) */
  childEntry: string;
  /** real, absolute paths the child may read */
  readPaths: string[];
  /** real, absolute paths the child may write */
  writePaths: string[];
  /** protected paths inside the write paths, kept read-only under bwrap (see protected-mounts.ts) */
  readOnlyPaths?: string[];
  memoryMb: number;
  /** the plugin was granted network access: no network namespace */
  network: boolean;
  /** the child's working directory (the host's) */
  cwd: string;
  /** limits on its processes, memory and file size (rlimits by prlimit; the watchdog is the caller's) */
  resources?: ResourceLimits;
}

/** The command, arguments and protections of one child. */
export interface ChildCommand {
  command: string;
  args: string[];
  protections: Protections;
}

/** Builds the child's command line: `[bwrap … | unshare …] node <permission flags> child-main.js`. */
export function childCommand(options: ChildCommandOptions): ChildCommand {
  const reads = unique(options.readPaths);
  const writes = unique(options.writePaths);
  const nodeArgs = [
    ...permissionModelFlags(reads, writes, options.network),
    // No --allow-worker: the child runs tasks on its main thread, so the model denies every Worker (harden.ts does
    // too).
    // Belt and braces: addons are already denied without --allow-addons.
    '--no-addons',
    `--max-old-space-size=${options.memoryMb}`,
    // These two warnings are printed by every child; keeping them out of stderr keeps crash diagnostics readable.
    '--disable-warning=ExperimentalWarning',
    '--disable-warning=SecurityWarning',
    options.childEntry,
  ];
  const launch = launchCommand(
    {
      command: process.execPath,
      args: nodeArgs,
      readPaths: reads,
      writePaths: writes.map(existingAncestor),
      readOnlyPaths: options.readOnlyPaths ?? [],
      network: options.network,
      env: {},
      cwd: options.cwd,
      runtime: 'node',
      ...(options.resources ? { resources: options.resources } : {}),
    },
    probeSandbox(),
  );
  // The watchdog reads the child's memory from /proc.
  const protections: Protections = {
    permissionModel: true,
    netPermission: netPermission(options.network),
    ...launch.protections,
    memoryWatchdog: process.platform === 'linux',
  };
  return { command: launch.command, args: launch.args, protections };
}

/** The protections a child of a plugin with (or without) the network grant would run under. */
export function expectedProtections(network: boolean, resources?: ResourceLimits): Protections {
  return childCommand({
    childEntry: '',
    readPaths: [],
    writePaths: [],
    memoryMb: 0,
    network,
    cwd: '/',
    ...(resources ? { resources } : {}),
  }).protections;
}

/**
 * A granted write path that does not exist yet is mounted through its nearest
 * existing folder, so the plugin can create it; the permission model still
 * limits writes to the granted path itself.
 */
function existingAncestor(p: string): string {
  let current = p;
  while (!existsSync(current)) {
    const parent = path.dirname(current);
    if (parent === current) return p;
    current = parent;
  }
  return current;
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)].sort();
}
