/**
 * The protected paths: what stays read-only to the model's tools even inside a
 * writable root, because the host later loads, imports or starts it with its full
 * power (or the user's own tools run it). Computed once per host from the config
 * and the plugins it resolved, and handed to every plugin as `ctx.roots.protect`
 * (docs/security.md, "The model as an attacker").
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleUrl } from './module-url.js';
import { realOrResolved } from '../../boundary/launch/paths.js';
import { SEARCH_PLACES, type ResolvedConfig } from '../config/config.js';
import { userCacheDir, userStateDir } from '../state/user-dirs.js';
import type { ProtectedPath } from '../../boundary/plugin-api.js';
import type { PluginSource } from './types.js';

/** toolshed's own package folder (dist/core/load/protect.js → three levels up). */
const TOOLSHED_DIR = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * What git itself writes under `.git` for `git add`, `commit`, `branch`, `switch`, `stash`,
 * `tag` and a merge: the object store, refs and their logs, the index, HEAD and the
 * messages, with the lock files it renames into place. Everything else under `.git`
 * (config, config.worktree, hooks, commondir, info/, modules/, worktrees/, a rebase's
 * todo list, …) stays protected: git reads it as configuration or runs what it names.
 */
export const GIT_WRITES: readonly string[] = [
  'objects',
  'refs',
  'logs',
  'index',
  'index.lock',
  'HEAD',
  'HEAD.lock',
  'ORIG_HEAD',
  'ORIG_HEAD.lock',
  'FETCH_HEAD',
  'MERGE_HEAD',
  'MERGE_MODE',
  'MERGE_MSG',
  'AUTO_MERGE',
  'AUTO_MERGE.lock',
  'COMMIT_EDITMSG',
  'packed-refs',
  'packed-refs.lock',
  'gc.pid',
  'gc.log',
];

const RUNS = 'runs what it names with your rights';

/**
 * The names protected wherever they appear (at any depth), whether or not they exist:
 * creating one is refused like changing it. The floor is Anthropic's sandbox-runtime
 * mandatory write-deny list (shell rc files, .gitconfig, .gitmodules, .ripgreprc,
 * .mcp.json, .vscode, .idea, .claude/commands and .claude/agents, .git/hooks,
 * .git/config) and Codex's read-only `.git` (folder or `gitdir:` file) and `.codex`;
 * above it, what starts Node and npm (npm's and yarn's rc files, pnpm's hooks file,
 * node_modules/.bin), the whole of `.git` but what git add/commit/branch write
 * ({@link GIT_WRITES}), direnv's and the editors' files, and toolshed's own config names.
 * docs/security.md, "Protected paths", says how the list was chosen.
 */
export const PROTECTED_NAMES: readonly ProtectedPath[] = [
  ...SEARCH_PLACES.filter((place) => place !== 'package.json').map(
    (place): ProtectedPath => ({
      kind: 'name',
      value: place,
      why: 'toolshed loads a file of this name as its config (and runs a .js/.mjs/.cjs/.ts one)',
    }),
  ),
  // git: a `.git` folder or `gitdir:` file makes a repository whose config and hooks git obeys.
  { kind: 'name', value: '.git/hooks', why: 'git runs the hooks in it with your rights' },
  {
    kind: 'name',
    value: '.git/config',
    why: 'git runs the programs it names (core.fsmonitor, core.hooksPath, aliases, filters) with your rights',
  },
  {
    kind: 'name',
    value: '.git',
    why:
      `git reads its configuration from it (config, commondir, worktrees, modules, info; a .git file's gitdir: ` +
      `names another) and ${RUNS}; only what git add, commit and branch write inside it is writable`,
    except: GIT_WRITES,
  },
  { kind: 'name', value: '.gitmodules', why: 'git clones and updates the submodules it names, from the URLs it gives' },
  { kind: 'name', value: '.gitconfig', why: `git reads it as configuration and ${RUNS}` },
  // What starts Node and npm (npx toolshed, npm run, yarn, pnpm) reads these first.
  {
    kind: 'name',
    value: '.npmrc',
    why:
      'npm and npx read it when they start (node-options preloads code into every Node they run, including npx ' +
      'toolshed)',
  },
  { kind: 'name', value: '.yarnrc', why: 'yarn reads it when it starts (yarn-path runs another program as yarn)' },
  {
    kind: 'name',
    value: '.yarnrc.yml',
    why: 'yarn reads it when it starts (yarnPath runs another program as yarn; plugins are loaded from it)',
  },
  { kind: 'name', value: '.pnpmfile.cjs', why: 'pnpm runs it as code when it installs' },
  { kind: 'name', value: '.pnpmfile.mjs', why: 'pnpm runs it as code when it installs' },
  {
    kind: 'name',
    value: 'node_modules/.bin',
    why:
      'npx and npm run start the programs in it by name (npx toolshed runs node_modules/.bin/toolshed before any ' +
      'other)',
  },
  // Shell startup files and direnv: a shell or direnv started there runs them.
  ...[
    '.bashrc',
    '.bash_profile',
    '.bash_login',
    '.bash_logout',
    '.profile',
    '.zshrc',
    '.zshenv',
    '.zprofile',
    '.zlogin',
    '.zlogout',
    '.envrc',
  ].map(
    (name): ProtectedPath => ({
      kind: 'name',
      value: name,
      why: `a shell (or direnv) started there runs it with your rights`,
    }),
  ),
  {
    kind: 'name',
    value: '.ripgreprc',
    why: 'ripgrep reads its options from it (--pre runs a program on every file it searches)',
  },
  // Editors and agents: what they run when the folder is opened, or the tools they start.
  {
    kind: 'name',
    value: '.vscode',
    why:
      `VS Code and its forks read tasks.json (tasks run on folder open), launch.json and settings.json from it, ` +
      `and ${RUNS}`,
  },
  { kind: 'name', value: '.idea', why: `JetBrains IDEs read run configurations and settings from it, and ${RUNS}` },
  { kind: 'name', value: '.mcp.json', why: 'MCP clients start the servers it lists' },
  { kind: 'name', value: '.claude', why: 'Claude Code reads its settings, hooks, commands and agents from it' },
  { kind: 'name', value: '.codex', why: 'Codex reads its configuration from it' },
];

/** The file a hooks specifier names, as the host will import it (module-url.ts). */
function hookFile(specifier: string, dir: string): string | undefined {
  try {
    return fileURLToPath(moduleUrl(specifier, dir));
  } catch {
    return undefined; // not installed: loading the hooks reports it
  }
}

/**
 * The node_modules folder holding toolshed, when it is installed as a package (its dependencies and its workers' code
 * live there too).
 */
function enclosingNodeModules(dir: string): string | undefined {
  const parts = path.resolve(dir).split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  return at > 0 ? parts.slice(0, at + 1).join(path.sep) : undefined;
}

/**
 * Every protected path of a host with `config` whose plugins resolved to `sources`:
 * the names in {@link PROTECTED_NAMES} (anywhere), the
 * config in use, its hooks modules, every plugin's folder, toolshed's own install
 * (and the node_modules that holds it), toolshed's cache and state folders, and the
 * config's own `protect` list.
 */
export function protectedPaths(
  config: Pick<ResolvedConfig, 'file' | 'dir' | 'hooks' | 'cache' | 'protect'>,
  sources: readonly PluginSource[],
): ProtectedPath[] {
  const out: ProtectedPath[] = [...PROTECTED_NAMES];
  const seen = new Set<string>();
  const add = (p: string | undefined, why: string) => {
    if (p === undefined) return;
    // Real paths, so the file tools (which check real paths) compare like with like.
    const value = realOrResolved(p);
    if (seen.has(value)) return;
    seen.add(value);
    out.push({ kind: 'path', value, why });
  };
  if (config.file)
    add(
      config.file,
      path.basename(config.file) === 'package.json'
        ? 'it holds the config in use (its toolshed field)'
        : 'it is the config in use',
    );
  for (const specifier of config.hooks)
    add(hookFile(specifier, config.dir), 'a hooks module the config names (the host imports it)');
  const modules = enclosingNodeModules(TOOLSHED_DIR);
  add(
    modules ?? TOOLSHED_DIR,
    modules
      ? 'it holds toolshed and the packages the host and its workers run'
      : "it is toolshed's own install (the host and its workers run it)",
  );
  for (const source of sources)
    if (!source.builtin)
      add(source.dir, `it holds plugin ${source.name}'s code (${source.trust}), which the host runs`);
  if (config.cache.dir !== undefined) add(config.cache.dir, "it is toolshed's cache");
  add(userStateDir(), "it is toolshed's state (trust records, keys)");
  add(userCacheDir(), "it is toolshed's cache");
  for (const entry of config.protect) add(path.resolve(config.dir, entry), "the config's protect list names it");
  return out;
}
