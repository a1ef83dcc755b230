/**
 * A view's own selection (`host.view({ enable, disable })`): which of the
 * tools its parent selected it keeps. It runs after layer 1 as a narrowing,
 * so a view can never expose what its parent does not, and the tools it drops
 * carry the reason dispatch and explain report.
 */
import { collectToolsets, ToolsetResolver, type Toolset } from '../expose/toolsets.js';
import { expandName } from '../expose/names.js';
import type { Registry } from '../expose/registry.js';
import type { ResolvedConfig } from '../config/config.js';
import type { ViewOptions } from './tool-host.js';

/** Narrows a parent's selection to a view's; see PipelineDeps.narrow. */
export type Narrowing = (selected: Set<string>, reasons: Map<string, string>, toolsets: Map<string, Toolset>) => void;

function names(list: unknown, key: string): string[] {
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.some((n) => typeof n !== 'string' || n === ''))
    throw new TypeError(`view(): ${key} must be an array of toolset or tool names`);
  return list;
}

/**
 * Which tools a view keeps, and why each other one is dropped; `label` names the view in reasons ('this view', "access
 * rule 'eng'").
 */
function viewSelection(
  options: { enable: string[]; disable: string[] },
  toolsets: Map<string, Toolset>,
  known: ReadonlySet<string>,
  label: string,
): { keep: Set<string>; why: Map<string, string> } {
  const resolver = new ToolsetResolver(toolsets, known);
  const keep = new Set<string>();
  const why = new Map<string, string>();
  const enable = options.enable.length ? options.enable : ['all'];
  for (const name of enable)
    for (const tool of expandName(name, resolver, toolsets, known, `the enable of ${label}`)) keep.add(tool);
  for (const name of options.disable) {
    for (const tool of expandName(name, resolver, toolsets, known, `the disable of ${label}`)) {
      keep.delete(tool);
      why.set(tool, `disabled in ${label}${name === tool ? '' : ` (toolset '${name}')`}`);
    }
  }
  for (const tool of known)
    if (!keep.has(tool) && !why.has(tool)) why.set(tool, `not in ${label} (enable: ${enable.join(', ')})`);
  return { keep, why };
}

/**
 * The narrowing for `options`. Checks every name now, against the registry's
 * toolsets, so a typo throws TOOLSET_UNKNOWN from `view()` rather than from a later call.
 * `label` names the view in the reasons of the tools it drops.
 */
export function viewNarrowing(
  options: ViewOptions,
  registry: Registry,
  config: ResolvedConfig,
  parent?: Narrowing,
  label = 'this view',
): Narrowing {
  const wanted = { enable: names(options?.enable, 'enable'), disable: names(options?.disable, 'disable') };
  const known = new Set(registry.tools.keys());
  viewSelection(wanted, collectToolsets(registry, config.toolsets), known, label);
  return (selected, reasons, toolsets) => {
    parent?.(selected, reasons, toolsets);
    const { keep, why } = viewSelection(wanted, toolsets, known, label);
    for (const tool of [...selected]) {
      if (keep.has(tool)) continue;
      selected.delete(tool);
      reasons.set(tool, why.get(tool) ?? `not in ${label}`);
    }
  };
}

/**
 * A view's own `defer` (it replaces its parent's; undefined keeps the parent's): names, toolsets,
 * `*` patterns or 'auto', as in config. Exact names are checked now, like enable and disable.
 */
export function viewDefer(
  options: ViewOptions,
  registry: Registry,
  config: ResolvedConfig,
  label = 'this view',
): ResolvedConfig['defer'] | undefined {
  const defer = options?.defer;
  if (defer === undefined || defer === 'auto') return defer;
  const list = names(defer, 'defer');
  const known = new Set(registry.tools.keys());
  const toolsets = collectToolsets(registry, config.toolsets);
  const resolver = new ToolsetResolver(toolsets, known);
  for (const name of list)
    if (!name.includes('*')) expandName(name, resolver, toolsets, known, `the defer of ${label}`);
  return list;
}
