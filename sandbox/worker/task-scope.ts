/**
 * What a task's ctx is built from besides the call itself: its roots, options and env, from
 * the task's packed scope (parsed once per plugin and frozen) or from the task's own fields.
 */
import { deepFreeze } from '../../boundary/tool-context.js';
import type { CheckTask, HandlerTask, PackedScope, WorkerTask } from '../../boundary/protocol.js';
import type { ProtectedPath, ToolContext } from '../../boundary/plugin-api.js';

/** A packed scope (CheckTask.scope) parsed and frozen: what the tasks of one plugin share. */
export interface UnpackedScope {
  roots: ToolContext['roots'];
  options: ToolContext['options'];
  env: Readonly<Record<string, string>> | undefined;
}

/** At most this many distinct packed scopes are kept parsed (one a plugin). */
const SCOPE_CACHE = 256;

/**
 * Each distinct packed scope (CheckTask.scope), parsed once and frozen all the way down: the
 * tasks of one plugin share it, and none can change what the next one sees. A handful of
 * plugins each; cleared if it ever holds more than SCOPE_CACHE entries.
 */
export class TaskScopes {
  private readonly scopes = new Map<string, UnpackedScope>();
  /**
   * The scope unpacked last: a plugin's tasks come in runs, and comparing its text costs less than hashing it for the
   * map.
   */
  private last: { text: string; scope: UnpackedScope } | undefined;

  /** The packed scope `text`, parsed and frozen (the same object for the same text while it is kept). */
  unpacked(text: string): UnpackedScope {
    if (this.last?.text === text) return this.last.scope;
    let scope = this.scopes.get(text);
    if (!scope) {
      const { roots, options, env } = JSON.parse(text) as PackedScope;
      scope = {
        roots: deepFreeze({
          read: roots?.read ?? [],
          write: roots?.write ?? [],
          ...(roots?.protect ? { protect: roots.protect } : {}),
        }),
        options: deepFreeze(options ?? {}),
        env: env ? Object.freeze(env) : undefined,
      };
      if (this.scopes.size >= SCOPE_CACHE) this.scopes.clear();
      this.scopes.set(text, scope);
    }
    this.last = { text, scope };
    return scope;
  }

  /** The task's env grant, packed or not (undefined: the realm's own env). */
  grantOf(task: WorkerTask): Readonly<Record<string, string>> | undefined {
    if (task.kind === 'manifest') return undefined;
    return task.scope === undefined ? task.env : this.unpacked(task.scope).env;
  }

  /** The host's protected paths as the task carries them (its packed scope or its own roots). */
  protectOf(task: WorkerTask): readonly ProtectedPath[] | undefined {
    if (task.kind === 'manifest') return undefined;
    const roots =
      task.scope === undefined ? (task.roots as { protect?: unknown } | undefined) : this.unpacked(task.scope).roots;
    return Array.isArray(roots?.protect) ? (roots.protect as ProtectedPath[]) : undefined;
  }
}

/**
 * ctx.roots: the task's own copy frozen where it lies (a task is a structured clone no one else holds), else a frozen
 * copy.
 */
export function frozenRoots(task: CheckTask | HandlerTask): ToolContext['roots'] {
  const roots = task.roots as Partial<ToolContext['roots']> | undefined;
  const isRecord = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
  const known = (key: string) =>
    key === 'read' ||
    key === 'write' ||
    (key === 'protect' && Array.isArray(roots?.protect)) ||
    (key === 'folders' && isRecord(roots?.folders));
  if (roots && Array.isArray(roots.read) && Array.isArray(roots.write) && Object.keys(roots).every(known)) {
    return deepFreeze(roots as ToolContext['roots']);
  }
  const protect = Array.isArray(roots?.protect) ? { protect: roots.protect.map((entry) => ({ ...entry })) } : {};
  const folders = isRecord(roots?.folders) ? { folders: { ...roots!.folders } } : {};
  return deepFreeze({ read: [...(roots?.read ?? [])], write: [...(roots?.write ?? [])], ...protect, ...folders });
}

/**
 * ctx.env: the task's grant frozen where it lies (the task's own structured clone; its
 * `process.env` is a separate copy, task-env.ts), or a frozen copy of the realm's own env.
 */
export function contextEnv(task: CheckTask | HandlerTask): Readonly<Record<string, string>> {
  return task.env ? Object.freeze(task.env) : Object.freeze({ ...(process.env as Record<string, string>) });
}
