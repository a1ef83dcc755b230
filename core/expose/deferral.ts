/**
 * Deferral: which exposed tools are left out of the definitions until a
 * search finds them, and what one session is shown. Both are plain
 * functions of the exposure, the selection (the host's config or a view's)
 * and the session's loaded names, so a narrower view can reuse them.
 * Deferring is not a filter: a deferred tool passed all three layers and
 * stays callable; it is only not listed.
 */
import { ToolsetError } from '../../boundary/errors.js';
import { didYouMean } from '../text/suggest.js';
import { ToolsetResolver, type Toolset } from './toolsets.js';
import type { ToolDefinition } from '../providers/types.js';

/** What to defer: names and patterns (or 'auto'), what never to defer, and the budget of 'auto'. */
export interface DeferralSelection {
  defer: readonly string[] | 'auto';
  alwaysLoaded: readonly string[];
  /** estimated tokens (JSON characters / 4) the loaded definitions may take under 'auto' */
  budgetTokens: number;
}

/** The tools deferral chooses among, and what it needs to know about them. */
export interface DeferralInput {
  /** the tools that survived the layers, in any order */
  names: readonly string[];
  toolsets: ReadonlyMap<string, Toolset>;
  /** every registered tool name, so a hidden tool named in `defer` is not an unknown name */
  knownTools: ReadonlySet<string>;
  /** a tool's own toolset (the one its manifest names) */
  toolsetOf(name: string): string;
  /** JSON characters of a tool's definition (only 'auto' asks) */
  size(name: string): number;
  /** JSON characters of the search tool's definition, which joins the loaded list once anything is deferred */
  searchSize: number;
}

/** The outcome: the deferred names, and warnings (a pattern that matched nothing). */
interface DeferralPlan {
  deferred: Set<string>;
  warnings: string[];
}

/** Characters per estimated token, the usual rough figure for English text and JSON. */
export const CHARS_PER_TOKEN = 4;

/**
 * Chooses the deferred tools. Unknown exact names throw TOOLSET_UNKNOWN with a
 * did-you-mean (like `disable`), or become warnings when `lenient` is given.
 */
export function planDeferral(
  input: DeferralInput,
  selection: DeferralSelection,
  lenient?: (error: ToolsetError) => void,
): DeferralPlan {
  const warnings: string[] = [];
  // Most configs defer nothing: no name to check, nothing to walk.
  if (selection.defer !== 'auto' && !selection.defer.length && !selection.alwaysLoaded.length)
    return { deferred: new Set(), warnings };
  const resolver = new ToolsetResolver(new Map(input.toolsets), input.knownTools);
  const pinned = resolveNames(selection.alwaysLoaded, 'search.alwaysLoaded', input, resolver, warnings, lenient);
  const candidates = input.names.filter((name) => !pinned.has(name));
  if (selection.defer === 'auto')
    return { deferred: deferLargest(candidates, input, pinned, selection.budgetTokens), warnings };
  const named = resolveNames(selection.defer, 'defer', input, resolver, warnings, lenient);
  return { deferred: new Set(candidates.filter((name) => named.has(name))), warnings };
}

/** Tool names for a list of toolset names, tool names and `*` patterns. */
function resolveNames(
  entries: readonly string[],
  key: string,
  input: DeferralInput,
  resolver: ToolsetResolver,
  warnings: string[],
  lenient?: (error: ToolsetError) => void,
): Set<string> {
  const out = new Set<string>();
  for (const entry of entries) {
    if (entry.includes('*')) {
      const pattern = globPattern(entry);
      let matched = false;
      for (const name of input.toolsets.keys()) {
        if (!pattern.test(name)) continue;
        matched = true;
        for (const tool of resolver.expand(name)) out.add(tool);
      }
      for (const tool of input.knownTools) {
        if (pattern.test(tool)) {
          matched = true;
          out.add(tool);
        }
      }
      if (!matched) warnings.push(`'${entry}' in ${key} matches no toolset or tool`);
    } else if (input.toolsets.has(entry)) {
      for (const tool of resolver.expand(entry)) out.add(tool);
    } else if (input.knownTools.has(entry)) {
      out.add(entry);
    } else {
      const error = new ToolsetError(
        'TOOLSET_UNKNOWN',
        `unknown toolset or tool '${entry}' in ${key}.` +
          `${didYouMean(entry, [...input.toolsets.keys(), ...input.knownTools])}`,
        { toolset: entry },
      );
      if (!lenient) throw error;
      lenient(error);
    }
  }
  return out;
}

/** `*` matches any run of characters; everything else is literal. */
function globPattern(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

/**
 * 'auto': defers whole toolsets, largest first, until what stays loaded (the
 * pinned tools and the search tool included) fits the budget.
 */
function deferLargest(
  candidates: string[],
  input: DeferralInput,
  pinned: ReadonlySet<string>,
  budgetTokens: number,
): Set<string> {
  const budget = budgetTokens * CHARS_PER_TOKEN;
  const groups = new Map<string, { names: string[]; size: number }>();
  let loaded = 0;
  for (const name of input.names) if (pinned.has(name)) loaded += input.size(name);
  for (const name of candidates) {
    const size = input.size(name);
    loaded += size;
    const key = input.toolsetOf(name);
    const group = groups.get(key) ?? { names: [], size: 0 };
    group.names.push(name);
    group.size += size;
    groups.set(key, group);
  }
  const deferred = new Set<string>();
  if (loaded <= budget) return deferred;
  loaded += input.searchSize;
  const largest = [...groups.entries()].sort(([a, x], [b, y]) => y.size - x.size || (a < b ? -1 : 1));
  for (const [, group] of largest) {
    if (loaded <= budget) break;
    for (const name of group.names) deferred.add(name);
    loaded -= group.size;
  }
  return deferred;
}

/**
 * What one session is shown: every exposed definition that is not deferred
 * (sorted by name, as the exposure holds them), then the deferred tools this
 * session loaded, in the order it loaded them. Appending keeps everything sent
 * earlier a stable prefix, so a provider's prompt cache still hits.
 */
export function sessionDefinitions(
  shown: readonly ToolDefinition[],
  byName: ReadonlyMap<string, ToolDefinition>,
  deferred: ReadonlySet<string>,
  loaded: Iterable<string>,
): ToolDefinition[] {
  const out = [...shown];
  for (const name of loaded) {
    const def = byName.get(name);
    if (def && deferred.has(name)) out.push(def);
  }
  return out;
}

/** JSON characters of one definition, the size 'auto' and the benchmarks count. */
export function definitionSize(def: ToolDefinition): number {
  return JSON.stringify(def).length;
}

const byNameMemo = new WeakMap<readonly ToolDefinition[], Map<string, ToolDefinition>>();

/** An exposure's definitions by name, built once per exposure. */
export function definitionsByName(exposure: {
  definitions: readonly ToolDefinition[];
}): ReadonlyMap<string, ToolDefinition> {
  let map = byNameMemo.get(exposure.definitions);
  if (!map) {
    map = new Map(exposure.definitions.map((d) => [d.name, d]));
    byNameMemo.set(exposure.definitions, map);
  }
  return map;
}
