/**
 * Layer 2, availability. Declarative `requires` (env, bins, platforms) are
 * evaluated in the host without running plugin code; a custom `check` runs
 * in the plugin's worker through the check cache; `requires.tools` is
 * resolved last, to a fixed point over the tools that survived.
 */
import which from 'which';
import type { CheckCache } from './check-cache.js';
import type { Availability } from './public-types.js';
import type { CheckVerdict } from '../../boundary/protocol.js';
import type { ToolRecord } from '../load/types.js';
import type { Runner } from '../runners/runner.js';

export type { Availability };

/** What a runner that speaks to a server says of its link. */
type Link = ReturnType<NonNullable<Runner['connection']>>;

/** Why a tool is out of service, and until when (an open circuit has this shape). */
interface OutOfService {
  reason: string;
  until: number;
  kind?: 'breaker' | 'changed' | 'definition';
}

/** What evaluation needs from the host. */
export interface AvailabilityDeps {
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  cache: CheckCache;
  /** runs a tool's custom check in its plugin's tier */
  runCheck(record: ToolRecord): Promise<CheckVerdict>;
  /**
   * What takes the tool out of service, if anything: an open circuit (it or its plugin kept
   * crashing; `kind` absent or 'breaker'), its plugin's pinned code changed ('changed', until restart),
   * or its MCP server changed its definition ('definition', until the operator accepts it)
   */
  outOfService?(record: ToolRecord): OutOfService | undefined;
  /** false when nothing is out of service, so no tool needs asking */
  someOutOfService?(): boolean;
}

/*
 * The grant rule, for untrusted plugins only (trusted plugins get what they request):
 * - a tool whose `requires.env` names a variable outside the effective env grant
 *   is hidden: "environment variable X not granted to untrusted plugin P";
 * - a plugin that requests `network: true` without the grant has all its tools
 *   hidden: "network access not granted to untrusted plugin P". Tools cannot
 *   yet declare network needs one by one, and a plugin that asks for the
 *   network is taken at its word that it needs it.
 * So the model never sees a tool that could only fail for want of a grant.
 */

/** Why `record` cannot run with its plugin's grants, or undefined when nothing is missing. */
function grantGap(record: ToolRecord): Availability | undefined {
  const { source, permissions } = record.plugin;
  if (source.trust !== 'untrusted') return undefined;
  if (permissions.requested.network && !permissions.effective.network) {
    return { ok: false, kind: 'permissions', reason: `network access not granted to untrusted plugin ${source.name}` };
  }
  const granted = new Set(permissions.effective.env ?? []);
  const missing = record.manifest.requires.env.filter((name) => !granted.has(name));
  if (missing.length) {
    return {
      ok: false,
      kind: 'permissions',
      reason:
        `environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not granted to untrusted ` +
        `plugin ${source.name}`,
    };
  }
  return undefined;
}

const NOTHING_MISSING: readonly string[] = Object.freeze([]);

/** The names in `wanted` that `env` does not set (to a non-empty value). */
function missingEnv(wanted: readonly string[], env: AvailabilityDeps['env']): readonly string[] {
  return wanted.length ? wanted.filter((name) => !env[name]) : NOTHING_MISSING;
}

async function missingBins(record: ToolRecord, deps: AvailabilityDeps): Promise<string[]> {
  const missing: string[] = [];
  for (const bin of record.manifest.requires.bins) {
    const verdict = await deps.cache.get(`bin:${bin}`, async () => {
      const found = which.sync(bin, { nothrow: true, path: deps.env.PATH ?? '' });
      return found ? { ok: true } : { ok: false, reason: `${bin} not found on PATH` };
    });
    if (!verdict.ok) missing.push(bin);
  }
  return missing;
}

/** The cache key of a tool's custom check: shared by every tool using the same function. */
export function checkKey(record: ToolRecord): string | undefined {
  return record.manifest.checkId ? `check:${record.plugin.source.entry}#${record.manifest.checkId}` : undefined;
}

/** The declarative verdict that needs no await (grants, env, platforms), or undefined when it holds. */
function declarative(
  record: ToolRecord,
  deps: AvailabilityDeps,
  links?: Map<Runner, Link | undefined>,
): Availability | undefined {
  // An MCP server's tools exist only while it is connected; its report is asked once per evaluation, not once per tool.
  const runner = record.plugin.runner;
  let link = links?.get(runner);
  if (link === undefined && runner.connection) {
    link = runner.connection();
    links?.set(runner, link);
  }
  if (link && link.state !== 'connected')
    return { ok: false, kind: 'connection', reason: link.reason ?? `the MCP server is ${link.state}` };
  const gap = grantGap(record);
  if (gap) return gap;
  const env = missingEnv(record.manifest.requires.env, deps.env);
  if (env.length) return envGap(env);
  return platformGap(record, deps.platform);
}

function platformGap(record: ToolRecord, platform: NodeJS.Platform): Availability | undefined {
  const { platforms } = record.manifest.requires;
  return platforms.length && !platforms.includes(platform)
    ? { ok: false, kind: 'platforms', reason: `runs only on ${platforms.join(', ')} (this is ${platform})` }
    : undefined;
}

function envGap(missing: readonly string[]): Availability {
  return {
    ok: false,
    kind: 'env',
    reason: `missing environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
  };
}

/**
 * How to evaluate a fixed list of tools again, worked out once per list (a plugin set and a
 * selection): most verdicts cannot change while a plugin is loaded, most others wait only on
 * env vars, and only a few tools require others. Evaluating with a plan then reads the
 * records of the tools that need more than a lookup, and nothing of the others.
 */
export interface AvailabilityPlan {
  /**
   * By index: the verdict, when nothing that changes decides it (no connection, env, bins or
   * check; grants and platforms are fixed); the env names to look up, when only those can
   * change it; undefined when it is evaluated in full.
   */
  steps: Array<Availability | readonly string[] | undefined>;
  /** name → index */
  indexOf: ReadonlyMap<string, number>;
  /** the tools that require others: their index, and the names they require */
  requiring: Array<{ at: number; tools: readonly string[] }>;
}

export function planAvailability(records: readonly ToolRecord[], platform: NodeJS.Platform): AvailabilityPlan {
  const steps: AvailabilityPlan['steps'] = [];
  const requiring: AvailabilityPlan['requiring'] = [];
  records.forEach((record, at) => {
    const { requires, checkId } = record.manifest;
    if (requires.tools.length) requiring.push({ at, tools: [...requires.tools] });
    if (record.plugin.runner.connection) return void steps.push(undefined);
    // A tool its grants rule out stays out, whatever else changes.
    const fixed = grantGap(record);
    if (fixed) return void steps.push(fixed);
    if (requires.bins.length || checkId) return void steps.push(undefined);
    const platformed = platformGap(record, platform);
    // env is decided before platforms: a tool that fails both says env.
    if (!requires.env.length) return void steps.push(platformed ?? OK);
    steps.push(platformed ? undefined : [...requires.env]);
  });
  return { steps, indexOf: new Map(records.map((record, at) => [record.name, at])), requiring };
}

/** Bins and the custom check: the parts that go through the (async) check cache. */
async function evaluateCached(record: ToolRecord, deps: AvailabilityDeps, expiries: number[]): Promise<Availability> {
  const bins = await missingBins(record, deps);
  if (bins.length) return { ok: false, kind: 'bins', reason: `${bins.join(', ')} not found on PATH` };
  const key = checkKey(record);
  if (!key) return OK;
  const verdict = await deps.cache.get(key, () => deps.runCheck(record));
  expiries.push(verdict.expiresAt);
  const out: Availability = verdict.ok
    ? { ok: true, via: verdict.via }
    : { ok: false, kind: 'check', via: verdict.via, reason: verdict.reason ?? 'check failed' };
  if (verdict.maskedReason) out.maskedReason = verdict.maskedReason;
  return out;
}

/** Shared by every tool with nothing to check (read only). */
const OK: Availability = Object.freeze({ ok: true });

/**
 * Evaluates every selected tool: `results[i]` is the verdict on `records[i]`, by the plan made
 * for these records (kept by a caller that evaluates the same list again). `validUntil` is the
 * earliest moment a check verdict used here expires; until then the result may be reused.
 */
export async function evaluateAvailability(
  records: readonly ToolRecord[],
  deps: AvailabilityDeps,
  plan: AvailabilityPlan = planAvailability(records, deps.platform),
): Promise<{ results: Availability[]; validUntil: number }> {
  const expiries: number[] = [];
  const results: Availability[] = new Array(records.length);
  const pending: Promise<void>[] = [];
  const breaker = deps.outOfService && deps.someOutOfService?.() !== false ? deps.outOfService : undefined;
  const links = new Map<Runner, Link | undefined>();
  // Most tools have no bins and no check: they are decided here without a promise each.
  for (let i = 0; i < records.length; i++) {
    const open = breaker?.(records[i]!);
    if (open) {
      results[i] = { ok: false, kind: open.kind ?? 'breaker', reason: open.reason };
      // Shown again when the cool-down ends, for its probe call.
      expiries.push(open.until);
      continue;
    }
    const step = plan.steps[i];
    if (step !== undefined) {
      if (!Array.isArray(step)) results[i] = step as Availability;
      else {
        const missing = missingEnv(step as readonly string[], deps.env);
        results[i] = missing.length ? envGap(missing) : OK;
      }
      continue;
    }
    const record = records[i]!;
    const verdict = declarative(record, deps, links);
    if (verdict) results[i] = verdict;
    else if (!record.manifest.requires.bins.length && !record.manifest.checkId) results[i] = OK;
    else pending.push(evaluateCached(record, deps, expiries).then((v) => void (results[i] = v)));
  }
  await Promise.all(pending);
  resolveToolRequirements(records, results, plan);
  return { results, validUntil: expiries.reduce((a, b) => Math.min(a, b), Infinity) };
}

/**
 * Hides tools whose `requires.tools` are not all available. A worklist over
 * reverse dependencies: each tool is re-examined only when one it requires
 * was hidden, so a long chain costs its length, not its square.
 */
function resolveToolRequirements(
  records: readonly ToolRecord[],
  results: Availability[],
  plan: AvailabilityPlan,
): void {
  if (!plan.requiring.length) return;
  const dependents = new Map<string, number[]>();
  const required = new Map<number, readonly string[]>();
  for (const { at, tools } of plan.requiring) {
    required.set(at, tools);
    for (const name of tools) {
      const list = dependents.get(name);
      if (list) list.push(at);
      else dependents.set(name, [at]);
    }
  }
  const ok = (name: string) => {
    const at = plan.indexOf.get(name);
    return at !== undefined && results[at]!.ok;
  };
  const work = plan.requiring.map(({ at }) => at);
  while (work.length) {
    const at = work.pop()!;
    if (!results[at]!.ok) continue;
    const missing = required.get(at)!.filter((name) => !ok(name));
    if (!missing.length) continue;
    results[at] = {
      ok: false,
      kind: 'tools',
      reason:
        `requires tool${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which ` +
        `${missing.length > 1 ? 'are' : 'is'} not exposed`,
    };
    for (const dependent of dependents.get(records[at]!.name) ?? []) work.push(dependent);
  }
}
