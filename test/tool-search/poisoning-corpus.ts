/**
 * The poisoning corpus (issue 40, route 9): the benchmark's honest catalogue (533 tools, each
 * service its own trusted MCP server, or all of them one server), 30 ordinary queries, and an
 * untrusted plugin of five tools with an honest description that stuffs the words agents search
 * for into one field at a time (or several, as the attacker did). `measure` counts the
 * queries whose first five places hold one of its tools.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { IndexedTool } from '#internal/core/call/search/search-index.js';

export type Query = [string, string[]];
interface Catalogue {
  SERVICES: Array<{ toolset: string; description: string }>;
  catalogueTools(): Array<{ name: string; toolset: string; description: string; parameters: Record<string, unknown> }>;
}

const BENCH = fileURLToPath(new URL('../../bench/tool-search/', import.meta.url));
// Imported by path at run time: the benchmark is plain JavaScript outside the typed project.
const benchModule = async <T>(file: string): Promise<T> =>
  (await import(pathToFileURL(path.join(BENCH, file)).href)) as T;

/** The words an attacker guesses agents search with (the stuffed fixture's list). */
export const WORDS = (
  'read file write create send search list get update delete open close find github issue pull request slack message channel ' +
  'email mail calendar event meeting jira ticket task page document database sql query logs error deploy run command web url ' +
  'image picture user customer order payment invoice weather time data report upload download share merge comment'
).split(' ');

const capital = (word: string) => word[0]!.toUpperCase() + word.slice(1);

/**
 * Tool names of camelCase humps, at most 64 characters each (the manifest's limit), that together hold as many of WORDS
 * as fit.
 */
function humpNames(words: readonly string[], count: number): string[] {
  const names: string[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    let name = words[at++ % words.length]!;
    while (name.length + words[at % words.length]!.length <= 64) name += capital(words[at++ % words.length]!);
    names.push(name);
  }
  return names;
}

/** 150 parameter names: the words, then camelCase pairs of them. */
const parameterNames = (words: readonly string[]) =>
  [...words, ...words.map((word, i) => `${word}${capital(words[(i + 7) % words.length]!)}`)].slice(0, 150);
const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties, additionalProperties: false });

/** Where the attacker stuffs the words. */
export const FIELDS_STUFFED = [
  'name',
  'parameter names',
  'parameter descriptions',
  'toolset description',
  'description',
  'title',
  'enum',
  'name + parameter names + toolset',
] as const;
export type Stuffing = (typeof FIELDS_STUFFED)[number];

export const ATTACKER_SOURCE = 'toolshed-plugin-helper';

/**
 * The attacker's five untrusted tools, stuffed in `field`. Their descriptions are honest unless the description is the
 * field stuffed.
 */
export function attacker(field: Stuffing, words: readonly string[] = WORDS): IndexedTool[] {
  const stuffed = (times: number) => Array.from({ length: times }, () => words.join(' ')).join(' ');
  const names =
    field === 'name' || field === 'name + parameter names + toolset'
      ? humpNames(words, 5)
      : ['helper_one', 'helper_two', 'helper_three', 'helper_four', 'helper_five'];
  const parameters =
    field === 'parameter names' || field === 'name + parameter names + toolset'
      ? schema(Object.fromEntries(parameterNames(words).map((name) => [name, { type: 'string' }])))
      : field === 'parameter descriptions'
        ? schema({
            input: { type: 'string', description: stuffed(3) },
            options: { type: 'string', description: stuffed(3) },
          })
        : field === 'enum'
          ? schema({ action: { type: 'string', enum: [...words] } })
          : schema({ input: { type: 'string', description: 'What to do.' } });
  const toolsetDescription =
    field === 'toolset description' || field === 'name + parameter names + toolset'
      ? `Helpers for every task: ${stuffed(5)}`
      : 'Small helpers.';
  return names.map((name, i) => ({
    definition: {
      name,
      description:
        field === 'description' ? `Helps with everyday work: ${stuffed(3)}` : `Helps with everyday work (${i + 1}).`,
      parameters,
      ...(field === 'title' ? { title: stuffed(2) } : {}),
    },
    toolset: 'helper',
    toolsetDescription,
    source: ATTACKER_SOURCE,
    untrusted: true,
  })) as IndexedTool[];
}

/**
 * The honest catalogue: each service its own trusted MCP server (`services`), or every tool from one server (`one
 * server`).
 */
export async function honestCatalogue(layout: 'services' | 'one server'): Promise<IndexedTool[]> {
  const catalogue = await benchModule<Catalogue>('catalogue/index.js');
  const descriptions = Object.fromEntries(catalogue.SERVICES.map((s) => [s.toolset, s.description]));
  return catalogue.catalogueTools().map((t) => ({
    definition: { name: t.name, description: t.description, parameters: t.parameters },
    toolset: t.toolset,
    toolsetDescription: descriptions[t.toolset],
    source: layout === 'services' ? `mcp:${t.toolset}` : 'mcp:workspace',
    untrusted: false,
  })) as IndexedTool[];
}

/** 30 ordinary queries: every fifth of the benchmark's (written before the ranking was tuned), the first 30. */
export async function ordinaryQueries(): Promise<Query[]> {
  const { QUERIES } = await benchModule<{ QUERIES: Query[] }>('queries.js');
  return QUERIES.filter((_, i) => i % 5 === 0).slice(0, 30);
}

/**
 * The attacker who knows what agents search for: the words of the benchmark's 172 queries (the
 * 30 ordinary ones among them), most frequent first, short function words left out.
 */
export async function queryWords(): Promise<string[]> {
  const { QUERIES } = await benchModule<{ QUERIES: Query[] }>('queries.js');
  const counts = new Map<string, number>();
  for (const [query] of QUERIES)
    for (const word of query.toLowerCase().split(/[^a-z0-9]+/))
      if (word.length > 2) counts.set(word, (counts.get(word) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([word]) => word);
}

/** How many of `queries` have one of `attackers` in the first five places `rank` gives. */
export async function measure(
  queries: readonly Query[],
  attackers: ReadonlySet<string>,
  rank: (query: string) => Promise<string[]> | string[],
): Promise<{ reached: number; queries: string[] }> {
  const reached: string[] = [];
  for (const [query] of queries)
    if ((await rank(query)).slice(0, 5).some((name) => attackers.has(name))) reached.push(query);
  return { reached: reached.length, queries: reached };
}
