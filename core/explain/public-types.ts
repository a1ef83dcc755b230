/**
 * What `host.explain()` returns: every plugin, toolset and tool with its state and why, what each
 * plugin's permissions come to and what enforces them, and the model's reach as an attacker. Types
 * only, importing only public types, so the package's declarations stop here.
 */
import type { Grant, Permissions, ProtectedPath, ToolAnnotations } from '../../boundary/plugin-api.js';
import type { ResourceProtections } from '../../boundary/launch/resources.js';
import type { Tier } from '../../boundary/tier.js';
import type { ManifestSource, ToolConflict } from '../load/public-types.js';
import type { ToolState } from '../expose/public-types.js';
import type { AuditReport, BreakerReport, SearchReport } from '../call/public-types.js';
import type { ApprovalReason } from '../call/public-types.js';
import type { Protections } from '../runners/protections.js';
import type { ConnectionReport } from '../runners/connection-report.js';
import type { SchemaDialect } from '../schema/schema-dialect.js';

/** The words for a permission nothing enforces. */
export type NotEnforced = 'declared, not enforced';

/** Who enforces a permission: the process tier's sandbox, the host, or the first-party plugin's own tested code. */
export type EnforcedBy = 'sandbox' | 'host' | 'plugin';

/** What is enforced of one plugin's permissions. */
export interface Enforcement {
  /** the folders its file access is held to (real paths) */
  fs: { by: EnforcedBy; read: string[]; write: string[]; how: string } | NotEnforced;
  /** whether it can reach the network */
  network: { by: EnforcedBy; allowed: boolean; how: string } | NotEnforced;
  /** the only environment variables its code can see */
  env: { by: EnforcedBy; names: string[]; how: string } | NotEnforced;
  /** what the operator should know in one line (the summary prints it), e.g. "terminal is not sandboxed here: …" */
  note?: string;
}

/** What explain says about the model as an attacker. */
export interface ProtectionReport {
  /** every folder some plugin may write (real paths) */
  writable: string[];
  /** the protected names (anywhere) and the protected paths that lie inside a writable folder */
  protected: ProtectedPath[];
  /** one line per protection that is not in force on this host, with why */
  notInForce: string[];
  /**
   * the resource limits of each sandboxed child (terminal commands, untrusted plugins' processes, stdio MCP servers)
   * and what holds each
   */
  resources: Record<string, ResourceProtections>;
}

/** One plugin's line in the report. */
export interface PluginReport {
  name: string;
  specifier: string;
  status: 'loaded' | 'failed';
  loadMs: number;
  version?: string;
  builtin?: boolean;
  trust?: 'trusted' | 'untrusted';
  tier?: Tier;
  manifestSource?: ManifestSource;
  tools?: number;
  env?: string[];
  /**
   * what the plugin requested, what config granted, their effective set, and what of it is actually enforced (and by
   * what)
   */
  permissions?: {
    requested: Permissions;
    granted: Grant;
    effective: Grant;
    enforced: Enforcement;
    unmatched?: string[];
  };
  /**
   * `guardRefused`: RPC calls the allow-list refused; `messagesDropped`: malformed worker, child or frame messages
   * dropped (with the last reason)
   */
  pool?: {
    started: boolean;
    threads: number;
    completed: number;
    /** calls running or waiting for a worker now, and of them those waiting (beyond its threads) */
    inFlight: number;
    queued: number;
    guardRefused: number;
    messagesDropped: number;
    lastDropped?: string;
    /**
     * thread tier only: the pool trusted plugins share, or one of its own, and why ("it holds env grants (SVC_TOKEN)")
     */
    kind?: 'shared' | 'own';
    reason?: string;
  };
  /** process tier only: the protections its child runs under on this machine (namespaces as probed here) */
  protections?: Protections;
  /** MCP servers only: connection state and reason, what it runs, its protections */
  mcp?: ConnectionReport;
  error?: { code: string; message: string };
  /** failed plugins: the toolsets and tools it is known to declare, and where that is known from */
  known?: { from: 'last-manifest' | 'name'; toolsets: string[]; tools: string[] };
}

/** One tool's line in the report. */
export interface ToolReport extends ToolState {
  /** custom check probes run so far for this tool's check function */
  probes?: number;
  /** the behaviour hints it declares (MCP tool annotations), when it declares any */
  annotations?: ToolAnnotations;
  /** why its calls wait for approval (config `approve`), when they do */
  approval?: ApprovalReason;
  /**
   * the JSON Schema dialect its parameters are read (and validated) in, and why: `$schema`, or how an untagged schema
   * was read
   */
  schema?: { dialect: SchemaDialect | 'unsupported'; from: string };
}

/** Everything explain knows. */
export interface HostReport {
  version: string;
  /** the config file (null for an object or the embedded default), its folder, and the workspace root */
  config: { file: string | null; dir: string; root: string };
  startupMs: number;
  /** whether a worker pool had to start to extract manifests (false when every manifest came from the cache) */
  extractionPoolStarted: boolean;
  /** false until the first exposure was computed */
  evaluated: boolean;
  plugins: PluginReport[];
  toolsets: Array<{
    name: string;
    description?: string;
    includes: string[];
    tools: number;
    definedBy: string[];
    unavailable?: string[];
  }>;
  counts: { registered: number; selected: number; available: number; exposed: number };
  tools: ToolReport[];
  conflicts: ToolConflict[];
  warnings: string[];
  /** deferred tools, what each session loaded, and calls to tools their session had not loaded */
  search: SearchReport;
  /** the model as an attacker: what its tools can write, what stays read-only there, and what is not in force here */
  protection: ProtectionReport;
  /** where audit lines go, how many were written and dropped (config `audit`; absent when off) */
  audit?: AuditReport;
  /** circuits the breaker holds open, is probing or is counting failures on (`limits.breaker`); absent when none */
  breakers?: BreakerReport[];
}
