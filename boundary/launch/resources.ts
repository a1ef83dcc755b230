/**
 * Resource limits of a sandboxed child (an untrusted plugin's process, a stdio
 * MCP server, a terminal command): how many processes and threads, how much
 * memory and how large a file it may have. Two mechanisms hold them, and this
 * file says which one holds each limit on this machine and why:
 *
 * - the kernel's rlimits, set by util-linux `prlimit` inside the sandbox just
 *   before the program starts (RLIMIT_NPROC, RLIMIT_DATA, RLIMIT_FSIZE);
 * - the host's watchdog (resource-watch.ts), which counts the child's tasks
 *   and resident memory every 100 ms and stops it, naming the limit, when it
 *   goes over.
 *
 * RLIMIT_NPROC counts the tasks of one user in one user namespace, so it is
 * set only where the child has a user namespace of its own (else it would
 * count every process of the host's user), and the kernel ignores it for
 * root. RLIMIT_DATA is per process (private writable memory; V8's and wasm's
 * reservations are not writable until used, so Node runs under it);
 * RLIMIT_AS is never used (it breaks V8). Pure: no file is read.
 */

/**
 * Private writable memory a runtime maps before it runs anything: Node 26 does not start under
 * an RLIMIT_DATA of 512 MB (Node 20 does), and needs about 600 MB before its first allocation.
 */
const RUNTIME_DATA_MB = 1024;

/**
 * RLIMIT_DATA of one process of the child, in MB: twice the child's total plus what a runtime
 * maps at start. One process alone is stopped by the kernel there; the watchdog holds the sum.
 */
function dataLimitMb(limits: Pick<ResourceLimits, 'memoryMb'>): number {
  return 2 * limits.memoryMb + RUNTIME_DATA_MB;
}

/** The limits one child runs under (the `resources` config key, with defaults applied). */
export interface ResourceLimits {
  /** processes and threads the child may have at once, the launcher's own included */
  processes: number;
  /** resident memory of all its processes together, in MB */
  memoryMb: number;
  /** the largest file it may write, in MB */
  fileSizeMb: number;
}

/** `resources` as written in the config: every key optional. */
export type ResourceSettings = Partial<ResourceLimits>;

/**
 * The limits when the config says nothing: room for a compiler or a test run, not for a fork bomb or a runaway heap.
 */
const DEFAULT_RESOURCES: Readonly<ResourceLimits> = { processes: 256, memoryMb: 2048, fileSizeMb: 1024 };

/** The config key of each limit, as messages and explain name it. */
const RESOURCE_KEYS = {
  processes: 'resources.processes',
  memoryMb: 'resources.memoryMb',
  fileSizeMb: 'resources.fileSizeMb',
} as const;

/** How one limit is held: by the kernel (rlimit, with the watchdog naming it), by the watchdog alone, or not at all. */
interface LimitEnforcement {
  limit: number;
  by: 'kernel' | 'watchdog' | 'none';
  /** the mechanism in words, or why it is not in force */
  how: string;
}

/** What explain reports of a child's resource limits. */
export interface ResourceProtections {
  processes: LimitEnforcement;
  memoryMb: LimitEnforcement;
  fileSizeMb: LimitEnforcement;
}

/** What the machine offers for rlimits (from probe.ts). */
interface RlimitSupport {
  /** absolute path of a working prlimit(1) */
  prlimit?: string;
  /** why prlimit is not used, when it is not */
  prlimitReason?: string;
  /** the host runs as root: the kernel does not apply RLIMIT_NPROC to it */
  root?: boolean;
}

/**
 * The kernel's RLIMIT_NPROC sits this far above the limit, so the watchdog (which stops the child and names the limit)
 * sees it first.
 */
const KERNEL_SLACK = 2;
const MB = 1024 * 1024;

/** `settings` over `defaults`, each value checked. */
export function resolveResources(
  settings: ResourceSettings | undefined,
  defaults: ResourceLimits = DEFAULT_RESOURCES,
): ResourceLimits {
  return { ...defaults, ...Object.fromEntries(Object.entries(settings ?? {}).filter(([, v]) => v !== undefined)) };
}

/**
 * The `prlimit` arguments that go in front of the program (after the namespace launcher, so
 * RLIMIT_NPROC counts inside the child's own user namespace), and what each limit is held by.
 * The kernel limits sit a little above the watchdog's, so the watchdog stops the child first
 * and says which limit it was; the kernel holds what the watchdog cannot see in time.
 */
export function rlimitPlan(
  limits: ResourceLimits,
  support: RlimitSupport,
  userNamespace: boolean,
): { prefix: string[]; protections: ResourceProtections } {
  const watch = (limit: number, why: string): LimitEnforcement => ({
    limit,
    by: 'watchdog',
    how: `counted by the host every 100 ms (${why}); a burst between two counts can go over`,
  });
  if (!support.prlimit) {
    const why = support.prlimitReason ?? 'prlimit(1) is not available';
    return {
      prefix: [],
      protections: {
        processes: watch(limits.processes, `no kernel limit: ${why}`),
        memoryMb: watch(limits.memoryMb, `no kernel limit: ${why}`),
        fileSizeMb: { limit: limits.fileSizeMb, by: 'none', how: `not in force: ${why}` },
      },
    };
  }
  const nprocHeld = userNamespace && !support.root;
  const args = [
    ...(nprocHeld ? [`--nproc=${limits.processes + KERNEL_SLACK}`] : []),
    `--data=${dataLimitMb(limits) * MB}`,
    `--fsize=${limits.fileSizeMb * MB}`,
  ];
  const nprocWhy = support.root
    ? 'the host runs as root, and the kernel does not apply RLIMIT_NPROC to root'
    : 'no user namespace of its own, so RLIMIT_NPROC would count every process of the host user';
  return {
    prefix: [support.prlimit, ...args, '--'],
    protections: {
      processes: nprocHeld
        ? {
            limit: limits.processes,
            by: 'kernel',
            how: 'RLIMIT_NPROC in its own user namespace (prlimit), and the host counts them every 100 ms',
          }
        : watch(limits.processes, nprocWhy),
      memoryMb: {
        limit: limits.memoryMb,
        by: 'kernel',
        how:
          `the host sums its processes' resident memory every 100 ms; RLIMIT_DATA of ${dataLimitMb(limits)} MB ` +
          `per process (prlimit) stops a burst`,
      },
      fileSizeMb: {
        limit: limits.fileSizeMb,
        by: 'kernel',
        how: 'RLIMIT_FSIZE (prlimit): a larger write fails (EFBIG), or the process is killed by SIGXFSZ',
      },
    },
  };
}

/**
 * The line that says why a child was stopped at a limit: "it went over its memory limit of 256 MB
 * (resources.memoryMb)".
 */
export function overLimitMessage(
  limit: keyof ResourceLimits,
  limits: ResourceLimits,
  seen?: number,
  keyPrefix = '',
): string {
  const key = `${keyPrefix}${RESOURCE_KEYS[limit]}`;
  switch (limit) {
    case 'processes':
      return (
        `it went over its process limit of ${limits.processes} processes and threads (${key})` +
        `${seen === undefined ? '' : `: ${seen} counted`}`
      );
    case 'memoryMb':
      return (
        `it went over its memory limit of ${limits.memoryMb} MB (${key})` +
        `${seen === undefined ? '' : `: ${Math.round(seen)} MB resident`}`
      );
    case 'fileSizeMb':
      return `it went over its file size limit of ${limits.fileSizeMb} MB (${key})`;
  }
}

/** SIGXFSZ: the kernel's signal for a write past RLIMIT_FSIZE; a shell reports it as exit 128 + 25. */
export const SIGXFSZ_EXIT = 128 + 25;

/** Limits that are not fully held by the kernel, one line each, for explain's "not in force" list. */
export function weakLimits(name: string, p: ResourceProtections): string[] {
  const out: string[] = [];
  if (p.processes.by !== 'kernel')
    out.push(
      `${name}: process limit ${p.processes.limit} ` +
        `${p.processes.by === 'none' ? p.processes.how : `only ${p.processes.how}`}`,
    );
  if (p.memoryMb.by !== 'kernel')
    out.push(
      `${name}: memory limit ${p.memoryMb.limit} MB ` +
        `${p.memoryMb.by === 'none' ? p.memoryMb.how : `only ${p.memoryMb.how}`}`,
    );
  if (p.fileSizeMb.by !== 'kernel') out.push(`${name}: file size limit ${p.fileSizeMb.limit} MB ${p.fileSizeMb.how}`);
  return out;
}
