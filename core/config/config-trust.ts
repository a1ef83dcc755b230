/**
 * Config trust: a config the model's tools could have written (it lies inside a
 * writable root, or pulls in code that does) runs only as the operator last
 * accepted it. What was accepted is kept per search folder (or per named config
 * file) in the user's private state folder; anything different stops the start
 * with CONFIG_UNTRUSTED until `toolshed trust` or `--trust-config` accepts it.
 * The first start records what it finds, "no config here" included, so a config
 * that appears later is a change too. That first record is made only where the
 * model could not have written the config first: a config inside a folder toolshed
 * already knows the model's tools can write (a recorded workspace, or a writable
 * root of an earlier start, but never `/` or the home: too broad to know) is refused on
 * first use as well.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isInside } from '../../boundary/launch/paths.js';
import { ConfigError } from '../../boundary/errors.js';
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from '../../boundary/private-dir.js';
import {
  codeModules,
  configDigest,
  MAX_TEXT_CHARS,
  MISSING,
  realPath,
  sha256,
  staticImports,
} from './config-fingerprint.js';
import { insideAny } from './writable-roots.js';
import type { LoadedConfig, OnConfigRead, ResolvedConfig } from './config.js';

/** What a config makes run, as fingerprints: what the operator accepted, or what is there now. */
interface TrustState {
  /** the config file's real path, or null: no config here */
  file: string | null;
  /** fingerprint of what is loaded of it (package.json: its `toolshed` field) */
  hash: string | null;
  /**
   * code it pulls in that lies inside a writable root: real path → fingerprint (`$import`s, JS imports, hooks modules,
   * local plugins)
   */
  modules: Record<string, string>;
  /** the config's text (capped), for `toolshed trust` to diff */
  text: string | null;
}

/** A trust record on disk. */
interface TrustRecord extends TrustState {
  version: 1;
  /** the search folder, or the named config file (real paths) */
  key: string;
  acceptedAt: string;
}

/** Who decides: `check` refuses a change; `accept` records it (`toolshed trust`, `--trust-config`). */
export type TrustMode = 'check' | 'accept';

/** Where trust stands for one start. */
interface TrustContext {
  /** real path of the search folder, or of the named config file */
  key: string;
  /** whether the config was named (`--config`) rather than searched for */
  named: boolean;
  mode: TrustMode;
  /** the user's state folder, or undefined when there is none */
  stateDir: string | undefined;
  /** the folder paths are shown relative to */
  cwd: string;
}

/** What a decision did: the one-line note for a first use, and the changes it accepted. */
export interface TrustOutcome {
  /** the search folder, or the named config file (real paths) */
  key: string;
  /** whether the config is one trust applies to at all */
  applies: boolean;
  /** the one line a person should read (first use, or a change accepted without review) */
  note?: string;
  /** what differed from the record, one line each (empty: nothing) */
  changes: string[];
  /** the record before this start, if any */
  previous?: TrustRecord;
  /** what is there now */
  state: TrustState;
}

const JS_CONFIG = /\.(?:[cm]?js|ts)$/;

function recordFile(stateDir: string, key: string): string {
  return path.join(stateDir, 'trust', `${sha256(key).slice(0, 32)}.json`);
}

/** The marker of a folder an earlier start let the model's tools write (its workspace root, a granted `fsWrite`). */
function rootMarker(stateDir: string, root: string): string {
  return path.join(stateDir, 'trust', 'roots', `${sha256(root).slice(0, 32)}.json`);
}

/**
 * Whether `dir` holds too much to be known as a folder the model can write: the filesystem
 * root, or a folder holding the user's home (an MCP client's cwd `/`, a start in `~`). Such a
 * root is where a launcher happened to start, not a workspace; known, it would refuse the first
 * use of every config found on the machine, which teaches `toolshed trust` without reading.
 * It is neither remembered nor counted as known.
 * @example tooBroadToKnow('/', '/home/ana') // true
 */
export function tooBroadToKnow(dir: string, home: string): boolean {
  return path.dirname(dir) === dir || (home !== '' && isInside(path.resolve(home), dir));
}

/**
 * Remembers `roots`, the folders this start lets the model's tools write, so a config
 * that later appears in one of them (or below) is not trusted on first use (not one too
 * broad to know, `tooBroadToKnow`). One small file per folder, named by its hash:
 * written once, never scanned.
 */
export function rememberWritableRoots(stateDir: string, roots: readonly string[]): void {
  const home = os.homedir();
  const missing = roots.filter((root) => !tooBroadToKnow(root, home) && !existsSync(rootMarker(stateDir, root)));
  if (missing.length === 0) return;
  ensurePrivateDir(path.join(stateDir, 'trust', 'roots'));
  for (const root of missing) writePrivateFile(rootMarker(stateDir, root), `${JSON.stringify({ version: 1, root })}\n`);
}

/**
 * The folder holding `target` (itself or one above it) that toolshed knows the model's
 * tools can write: a workspace with a trust record (its search folder; a config named with
 * `--config` is keyed by its own file and names no workspace), or a writable root of an
 * earlier start. None too broad to know (`tooBroadToKnow`). Undefined when none is known.
 */
export function knownWritableRoot(stateDir: string, target: string): string | undefined {
  const home = os.homedir();
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    if (!tooBroadToKnow(dir, home) && (existsSync(rootMarker(stateDir, dir)) || namesWorkspace(stateDir, dir)))
      return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Whether `dir` has a trust record as a search folder (not as a named config file). */
function namesWorkspace(stateDir: string, dir: string): boolean {
  if (!existsSync(recordFile(stateDir, dir))) return false;
  return readTrustRecord(stateDir, dir)?.file !== dir;
}

/**
 * Whether a record of a folder holding `item` accepted it with fingerprint `hash` (a workspace's config, seen from a
 * folder below it).
 */
function acceptedAbove(stateDir: string, item: string, hash: string | null): boolean {
  for (let dir = path.dirname(item); ; dir = path.dirname(dir)) {
    if (existsSync(recordFile(stateDir, dir))) {
      const record = readTrustRecord(stateDir, dir);
      if (record && hash !== null && ((record.file === item && record.hash === hash) || record.modules[item] === hash))
        return true;
    }
    if (path.dirname(dir) === dir) return false;
  }
}

/**
 * The check of a start with no record of its own, for a config found by searching (one named
 * with `--config` is the operator's pick in that very command): each of `items` (real path →
 * fingerprint) inside a folder toolshed knows the model can write must be one a record above it
 * accepted as it is now; the first that is not is refused.
 */
function refuseFirstUse(context: TrustContext, stateDir: string, items: Record<string, string | null>): void {
  for (const [item, hash] of Object.entries(items)) {
    const known = knownWritableRoot(stateDir, item);
    if (known === undefined || acceptedAbove(stateDir, item, hash)) continue;
    throw new ConfigError(
      `${shown(item, context.cwd)} is not trusted on first use: it lies inside ${known}, which toolshed knows ` +
        `the model's tools can write (a workspace it ran in, or a folder a config grants write access to), so ` +
        `the model may have written it; toolshed ran none of it. Fix: read it, then run toolshed trust in ` +
        `${context.key} to trust it`,
      { file: item, root: known, fix: 'toolshed trust' },
      { code: 'CONFIG_UNTRUSTED' },
    );
  }
}

/**
 * The record for `key`, or undefined; one that cannot be parsed counts as none of the right shape, so the start is
 * refused.
 */
export function readTrustRecord(stateDir: string, key: string): TrustRecord | undefined {
  ensurePrivateDir(path.join(stateDir, 'trust'));
  const text = readPrivateFile(recordFile(stateDir, key));
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as TrustRecord;
    if (record.version === 1 && record.key === key) return record;
  } catch {
    // fall through: a broken record is not "no record" (that would trust on first use again)
  }
  return { version: 1, key, acceptedAt: '', file: '(an unreadable trust record)', hash: null, modules: {}, text: null };
}

/** Records `state` as what the operator accepts for `key`. */
function writeTrustRecord(stateDir: string, key: string, state: TrustState): void {
  ensurePrivateDir(path.join(stateDir, 'trust'));
  const text =
    state.text !== null && state.text.length > MAX_TEXT_CHARS ? state.text.slice(0, MAX_TEXT_CHARS) : state.text;
  const record: TrustRecord = { version: 1, key, acceptedAt: new Date().toISOString(), ...state, text };
  writePrivateFile(recordFile(stateDir, key), `${JSON.stringify(record, null, 2)}\n`);
}

/** A path as a person reads it: relative to `cwd` when below it. */
function shown(file: string, cwd: string): string {
  const rel = path.relative(realPath(cwd), file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? `./${rel}` : rel === '' ? '.' : file;
}

/** CONFIG_UNTRUSTED for `file`; `subject` (default: it) is what lies inside `root`. */
function untrusted(message: string, file: string, root: string, subject = 'it'): ConfigError {
  const fix =
    'run toolshed trust to review and accept it, or pass --trust-config (trustConfig: true) where no one can ' +
    'answer (CI, containers)';
  return new ConfigError(
    `${message}; ${subject} lies inside ${root}, which the model's tools can write, and toolshed ran none of ` +
      `it. Fix: ${fix}`,
    { file, root, fix: 'toolshed trust' },
    { code: 'CONFIG_UNTRUSTED' },
  );
}

/**
 * The check before a JS or TS config (or one it `$import`s) is imported: its code
 * runs when loaded, so a changed one is refused on the bytes cosmiconfig read.
 * Only the roots known before loading count: the explicit root, else the search folder.
 */
export function preImportGuard(
  context: TrustContext,
  record: TrustRecord | undefined,
  roots: readonly string[],
): OnConfigRead {
  return (filepath, content) => {
    if (!JS_CONFIG.test(filepath) || context.mode === 'accept') return;
    const file = realPath(filepath);
    const items: Record<string, string> = {
      ...staticImports(file, content, roots),
      [file]: configDigest(file, content).hash,
    };
    if (!record) {
      // First use of a config found by searching: trusted only where the model could not have written it (decideTrust
      // says so for the rest).
      // A named one (--config) is the operator's pick: recorded on first use (decideTrust).
      if (!context.stateDir) {
        if (insideAny(file, roots))
          throw untrusted(
            'there is no private state folder to keep config trust in (set HOME or XDG_STATE_HOME)',
            file,
            insideAny(file, roots)!,
          );
      } else if (!context.named) refuseFirstUse(context, context.stateDir, items);
      return;
    }
    for (const [item, hash] of Object.entries(items)) {
      const root = insideAny(item, roots);
      if (!root) continue;
      const accepted = item === record.file ? record.hash : record.modules[item];
      if (accepted === hash) continue;
      const what =
        item === file && record.file === null
          ? `a config appeared where there was none: ${shown(item, context.cwd)}`
          : accepted === undefined
            ? `${shown(item, context.cwd)} is not part of the config accepted here`
            : `${shown(item, context.cwd)} changed since it was accepted`;
      throw untrusted(what, item, root);
    }
  };
}

/**
 * What is there now: the config file, what it pulls in, and its hooks and local plugins inside
 * `roots`, or among `recorded` (the modules the record holds: one accepted under other roots,
 * a start on the MCP client's root say, is still compared, not "no longer used").
 */
export function currentState(
  loaded: LoadedConfig,
  config: Pick<ResolvedConfig, 'dir' | 'hooks' | 'plugins'>,
  writable: readonly string[],
  readFile: (file: string) => string,
  recorded: readonly string[] = [],
): TrustState {
  const kept = new Set(recorded);
  const roots = [...writable, ...recorded];
  const modules: Record<string, string> = {};
  let file: string | null = null;
  let digest: { hash: string; text: string } | null = null;
  if (loaded.file !== undefined) {
    file = realPath(loaded.file);
    digest = configDigest(file, loaded.sources.get(loaded.file) ?? readFile(loaded.file));
  }
  for (const [source, content] of loaded.sources) {
    const real = realPath(source);
    // A package.json read on the way (no `toolshed` field) was looked at, not loaded.
    if (real !== file && path.basename(real) === 'package.json') continue;
    if (real !== file && insideAny(real, roots)) modules[real] = configDigest(real, content).hash;
    if (JS_CONFIG.test(real)) Object.assign(modules, staticImports(real, content, roots));
  }
  Object.assign(modules, codeModules(config, roots));
  // A recorded module is a scope of one file or plugin folder, not a root: what lies below it is not its to add.
  for (const module of Object.keys(modules))
    if (!kept.has(module) && !insideAny(module, writable)) delete modules[module];
  return { file, hash: digest?.hash ?? null, modules, text: digest?.text ?? null };
}

/** What differs between the record and now, one line each. */
function describeChanges(record: TrustState, state: TrustState, cwd: string): string[] {
  const out: string[] = [];
  if (record.file !== state.file) {
    if (record.file === null) out.push(`a config appeared where there was none: ${shown(state.file!, cwd)}`);
    else if (state.file === null)
      out.push(`the accepted config ${shown(record.file, cwd)} is gone (toolshed would start with the defaults)`);
    else out.push(`${shown(state.file, cwd)} replaces the accepted config ${shown(record.file, cwd)}`);
  } else if (state.file !== null && record.hash !== state.hash) {
    out.push(`${shown(state.file, cwd)} changed since it was accepted`);
  }
  for (const file of new Set([...Object.keys(record.modules), ...Object.keys(state.modules)])) {
    const before = record.modules[file];
    const now = state.modules[file];
    if (before === now) continue;
    const what =
      before === undefined
        ? 'is new'
        : now === undefined
          ? 'is no longer used'
          : now === MISSING
            ? 'is gone'
            : before === MISSING
              ? 'appeared'
              : 'changed';
    out.push(`${shown(file, cwd)} (code the config runs) ${what}`);
  }
  return out;
}

/** Whether `state` matches the record, counting the config's own hash only where the model could have written it. */
function matches(record: TrustState, state: TrustState, roots: readonly string[]): boolean {
  if (record.file !== state.file) return false;
  if (state.file !== null && insideAny(state.file, roots) && record.hash !== state.hash) return false;
  const keys = new Set([...Object.keys(record.modules), ...Object.keys(state.modules)]);
  return [...keys].every((key) => record.modules[key] === state.modules[key]);
}

/**
 * Decides a start once the config is loaded (nothing it names has run yet): no
 * record → record it (trust on first use) with a note; a match → go on; a
 * difference → CONFIG_UNTRUSTED, or in `accept` mode record it.
 */
export function decideTrust(
  context: TrustContext,
  record: TrustRecord | undefined,
  state: TrustState,
  roots: readonly string[],
): TrustOutcome {
  const base = { key: context.key, state, ...(record ? { previous: record } : {}) };
  // The search folder counts even with no config (or one further up): a config the model creates there would be found
  // first.
  // What holds the config to trust: the first of these inside a writable root.
  const holder = [
    ...(state.file !== null ? [state.file] : []),
    ...(context.named ? [] : [context.key]),
    ...Object.keys(state.modules),
  ].find((item) => insideAny(item, roots));
  const root = holder !== undefined ? insideAny(holder, roots) : undefined;
  if (!root || holder === undefined) {
    // A record from when it did apply would still hold the pre-import check to the old bytes: accepting refreshes it.
    if (record && context.mode === 'accept' && context.stateDir) writeTrustRecord(context.stateDir, context.key, state);
    return { applies: false, changes: [], ...base };
  }
  if (record && matches(record, state, roots)) return { applies: true, changes: [], ...base };
  const changes = record ? describeChanges(record, state, context.cwd) : [];
  if (!context.stateDir) {
    if (context.mode === 'accept') return { applies: true, changes, ...base };
    throw untrusted(
      'there is no private state folder to keep config trust in (set HOME or XDG_STATE_HOME)',
      state.file ?? context.key,
      root,
    );
  }
  if (record && context.mode === 'check') {
    const first = changes[0] ?? 'the config differs from the one accepted here';
    // Name what changed: the config file itself, else the first module that differs.
    const fileChanged =
      record.file !== state.file || (state.file !== null && insideAny(state.file, roots) && record.hash !== state.hash);
    const modules = [...new Set([...Object.keys(record.modules), ...Object.keys(state.modules)])];
    const changed =
      (fileChanged ? (state.file ?? record.file) : modules.find((m) => state.modules[m] !== record.modules[m])) ??
      context.key;
    const within = insideAny(changed, roots);
    // A module accepted under other roots (outside these) is named with what holds the config to trust now.
    throw within !== undefined
      ? untrusted(first, changed, within)
      : untrusted(first, changed, root, shown(holder, context.cwd));
  }
  if (!record && context.mode === 'check' && !context.named)
    refuseFirstUse(context, context.stateDir, {
      ...(state.file !== null ? { [state.file]: state.hash } : {}),
      ...state.modules,
    });
  writeTrustRecord(context.stateDir, context.key, state);
  // Accepting (toolshed trust, --trust-config) is the operator's decision already: no first-use note.
  if (record || context.mode === 'accept') return { applies: true, changes, ...base };
  const note =
    state.file === null
      ? `no config in ${context.key}, which the model's tools can write: recorded on first use, so a config that ` +
        `appears there stops toolshed until you accept it with toolshed trust`
      : `trusting ${shown(state.file, context.cwd)} as this workspace's config (first use); toolshed stops if it ` +
        `changes: review and accept with toolshed trust`;
  return { applies: true, note, changes, ...base };
}
