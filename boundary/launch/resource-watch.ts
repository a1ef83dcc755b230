/**
 * The host's resource watchdog: every 100 ms it walks a child's process tree
 * in /proc, counts its tasks (processes and threads) and sums their resident
 * memory, and calls back once when either is over the child's limit. The
 * caller stops the child and says which limit it was (resources.ts words it).
 * Linux only; elsewhere it watches nothing.
 */
import { readFileSync } from 'node:fs';
import type { ResourceLimits } from './resources.js';

/** What went over, and the count or MB seen. */
interface OverLimit {
  limit: 'processes' | 'memoryMb';
  seen: number;
}

/** What one walk of the tree found. */
interface TreeUsage {
  tasks: number;
  residentMb: number;
}

const WATCH_INTERVAL_MS = 100;

function children(pid: number): number[] {
  try {
    // The children its main thread started: the one that forks, in a shell, a launcher or node.
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Tasks and resident memory of `pid` and its descendants; the walk stops once `maxTasks` are counted. */
function treeUsage(pid: number, maxTasks = Number.POSITIVE_INFINITY): TreeUsage {
  const queue = [pid];
  let tasks = 0;
  let kb = 0;
  for (let i = 0; i < queue.length && tasks <= maxTasks; i++) {
    const p = queue[i]!;
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      tasks += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
      kb += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    } catch {
      continue; // exited between the two reads
    }
    queue.push(...children(p));
  }
  return { tasks, residentMb: kb / 1024 };
}

/**
 * Watches `pid`'s tree against `limits` (`memoryMb` 0 or `processes` 0 leaves that one alone);
 * calls `onOver` at most once. Returns the function that stops watching.
 */
export function watchResources(
  pid: number,
  limits: Pick<ResourceLimits, 'processes' | 'memoryMb'>,
  onOver: (over: OverLimit) => void,
): () => void {
  if (process.platform !== 'linux') return () => {};
  const timer = setInterval(() => {
    const usage = treeUsage(pid, limits.processes > 0 ? limits.processes + 1 : Number.POSITIVE_INFINITY);
    let over: OverLimit | undefined;
    if (limits.processes > 0 && usage.tasks > limits.processes) over = { limit: 'processes', seen: usage.tasks };
    else if (limits.memoryMb > 0 && usage.residentMb > limits.memoryMb)
      over = { limit: 'memoryMb', seen: usage.residentMb };
    if (!over) return;
    clearInterval(timer);
    onOver(over);
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** `pid` and its descendants as the walk finds them now. */
function tree(pid: number): number[] {
  const found = [pid];
  for (let i = 0; i < found.length && found.length < 100_000; i++) found.push(...children(found[i]!));
  return found;
}

function signal(pids: readonly number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // gone already
    }
  }
}

/**
 * Kills `pid` and every descendant: all are stopped first (SIGSTOP), so a fork
 * bomb cannot outrun the walk, walked again for what forked meanwhile, then
 * killed. Under bubblewrap killing the launcher alone would do (its PID
 * namespace dies with it); without one this is what reaches the grandchildren.
 */
export function killTree(pid: number): void {
  if (process.platform !== 'linux') return signal([pid], 'SIGKILL');
  const first = tree(pid);
  signal(first, 'SIGSTOP');
  const all = [...new Set([...first, ...tree(pid)])];
  signal(all, 'SIGSTOP');
  signal(all, 'SIGKILL');
}
