/**
 * Internal data shapes shared by the pipeline stages: validated manifests,
 * plugin sources, load results and tool records.
 */
import type {
  DescriptionPart,
  FileRoots,
  Grant,
  Icon,
  JsonSchema,
  Permissions,
  ToolAnnotations,
  ToolLimits,
  ToolsetSpec,
} from '../../boundary/plugin-api.js';
import type { ToolshedError } from '../../boundary/errors.js';
import type { Runner } from '../runners/runner.js';
import type { DialectReading } from '../schema/schema-dialect.js';
import type { ManifestSource } from './public-types.js';

export type { ManifestSource, ToolConflict } from './public-types.js';

/** A tool as the host knows it: data only, no code. */
export interface ToolManifest {
  name: string;
  toolset: string;
  description: DescriptionPart[];
  parameters: JsonSchema;
  /**
   * the JSON Schema dialect `parameters` is read in, and why; absent, its `$schema` or the plugin rule decides at the
   * first call
   */
  dialect?: DialectReading;
  requires: { env: string[]; bins: string[]; tools: string[]; platforms: string[] };
  limits: ToolLimits;
  /** callable from inside execute_code (ToolSpec.codeCallable, or its deprecated alias `sandbox`) */
  codeCallable: boolean;
  /** as declared ({} when none) */
  annotations: ToolAnnotations;
  /** ToolSpec.longRunning: an MCP client may call it as a task (absent: false) */
  longRunning?: true;
  /** the result's JSON Schema (root `type: "object"`); the handler's result is validated against it */
  outputSchema?: JsonSchema;
  /** a human-readable name for clients (MCP's tool `title`) */
  title?: string;
  /** icons for clients (MCP's tool `icons`) */
  icons?: Icon[];
  /** valid argument sets, checked against `parameters` when the manifest was extracted */
  examples?: Record<string, unknown>[];
  /**
   * the caller's secrets its handler needs (ToolSpec.secrets), asked of the credentials provider per call; absent when
   * none
   */
  secrets?: string[];
  /** an MCP server's `_meta` of the tool, passed on as it was listed */
  meta?: Record<string, unknown>;
  checkId?: string;
}

/** A plugin as the host knows it after extraction and validation. */
export interface PluginManifest {
  apiVersion: 1;
  toolsets: Record<string, ToolsetSpec>;
  permissions: Permissions;
  tools: ToolManifest[];
}

/** Where a plugin comes from and how it may run. */
export interface PluginSource {
  /** package name, or the file name of a bare module */
  name: string;
  /** as written in the config (or `builtin:<dir>`) */
  specifier: string;
  /** the package folder (real path) */
  dir: string;
  /** the entry module (real path) */
  entry: string;
  version: string;
  builtin: boolean;
  trust: 'trusted' | 'untrusted';
  grant?: Grant;
  /** the operator's settings for this plugin (its config entry's `options`), handed to its code as ctx.options */
  options?: Record<string, unknown>;
  /**
   * untrusted plugins: real paths of its dependencies' folders, transitively and checked (its read roots in the process
   * tier); empty for trusted ones
   */
  dependencyDirs: string[];
  /** first-party plugins only: what their package.json says their own code does (`toolshed.firstParty`) */
  firstParty?: FirstPartyClaims;
}

/**
 * What a first-party plugin declares of itself in its package.json (`toolshed.firstParty`), for
 * explain: each claim is tested in test/security/. Read for builtins only: a third-party plugin's
 * claims are never shown.
 */
export interface FirstPartyClaims {
  /** it reads and writes where the model says (the protection report counts its write roots) */
  modelPaths?: boolean;
  /** permissions its own code enforces, and how, in words */
  enforces?: { fs?: string };
  /** it runs the model's commands in the shell sandbox (boundary/launch/shell.ts), configured by its options */
  commands?: 'shell-sandbox';
}

/** A plugin that loaded: its manifest and the runner its code runs in. */
export interface LoadedPlugin {
  status: 'loaded';
  source: PluginSource;
  manifest: PluginManifest;
  manifestSource: ManifestSource;
  loadMs: number;
  runner: Runner;
  /** environment variables its workers receive */
  env: string[];
  /** ctx.roots and ctx.options of its checks and handlers */
  scope: { roots: FileRoots; options: Readonly<Record<string, unknown>> };
  /**
   * what the plugin asked for, what config granted, their intersection, and grants that match no request (untrusted:
   * warned about)
   */
  permissions: { requested: Permissions; granted: Grant; effective: Grant; unmatched?: string[] };
}

/**
 * What is known of a plugin that failed to load: the toolsets and tools of the last
 * manifest it had (from the manifest cache), or, when it never loaded here, only the
 * toolset its tools default to (its short name).
 */
export interface KnownContents {
  from: 'last-manifest' | 'name';
  toolsets: string[];
  tools: Array<{ name: string; toolset: string }>;
}

/** A plugin that did not load, and why. The rest of the host works without it. */
export interface FailedPlugin {
  status: 'failed';
  specifier: string;
  name: string;
  error: ToolshedError;
  loadMs: number;
  /** its toolset names stay known (unavailable, never TOOLSET_UNKNOWN), and its tools are explained as hidden */
  known: KnownContents;
}

/** Either outcome of loading one plugin. */
export type PluginLoadResult = LoadedPlugin | FailedPlugin;

/** A tool in the registry with its owner. */
export interface ToolRecord {
  name: string;
  plugin: LoadedPlugin;
  manifest: ToolManifest;
}
