/**
 * Names that may stand for a toolset or a single tool (a view's enable and
 * disable, config `approve`): what one such name expands to, with
 * TOOLSET_UNKNOWN and a did-you-mean for a name that is neither.
 */
import { ToolsetError } from '../../boundary/errors.js';
import { didYouMean } from '../text/suggest.js';
import type { Toolset, ToolsetResolver } from './toolsets.js';

const ALL = new Set(['all', '*']);

/**
 * The tools `name` stands for: a toolset's (with its includes), a single tool, or every tool for 'all'/'*'. `where`
 * names the list for the error.
 */
export function expandName(
  name: string,
  resolver: ToolsetResolver,
  toolsets: ReadonlyMap<string, Toolset>,
  known: ReadonlySet<string>,
  where: string,
): Iterable<string> {
  if (ALL.has(name)) return known;
  if (toolsets.has(name)) return resolver.expand(name);
  if (known.has(name)) return [name];
  throw new ToolsetError(
    'TOOLSET_UNKNOWN',
    `unknown toolset or tool '${name}' in ${where}.${didYouMean(name, [...toolsets.keys(), ...known])}`,
    { toolset: name },
  );
}
