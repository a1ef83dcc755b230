/**
 * One budget per MCP tool definition: everything of a tool a model or a client reads (its name,
 * title, description, annotations, input and output schemas with every nested description,
 * enum, default and example, `_meta`) measured as JSON, at most `listing.definitionChars`
 * characters. A hostile server that keeps its description short can put the same injection in
 * a parameter's description, an enum or the output schema; this counts all of it.
 *
 * Over the budget, only prose is cut: the `description`, `title` and `$comment` strings of the
 * definition and of every schema in it, each to one common length (the longest first, so short
 * ones stay whole), each cut marked. What is not prose — property names, enums, consts,
 * defaults, examples, patterns, unknown keywords — is never cut, since a cut enum or default is
 * a different tool; a tool still over the budget with all its prose cut is left out, the reason
 * said. Pure: the listing's (listing.ts) to apply and report.
 */
import type { UpstreamTool } from './tools.js';

/** Keywords whose string value is prose a schema carries for people and models. */
const PROSE = ['description', 'title', '$comment'] as const;
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Keywords whose value is one schema (or, for `items`, a list of them). */
const SCHEMA_ONES = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
];
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Schemas nested deeper than this are not walked: their prose stays whole and counts as it is. */
const MAX_DEPTH = 64;

/**
 * `text` cut to `max` characters, marked where cut. A cut never splits a surrogate pair.
 * @example cutText('abcdef', 3) // 'abc… [cut by toolshed: 3 characters more]'
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}… [cut by toolshed: ${text.length - end} characters more]`;
}

/** One prose string in a definition: where it is, and what it said. */
interface Prose {
  holder: Record<string, unknown>;
  key: string;
  text: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The prose strings of a schema and of the schemas in it. */
function schemaProse(schema: unknown, out: Prose[], depth: number): void {
  if (!isObject(schema) || depth > MAX_DEPTH) return;
  for (const key of PROSE)
    if (typeof schema[key] === 'string') out.push({ holder: schema, key, text: schema[key] as string });
  for (const key of SCHEMA_MAPS)
    if (isObject(schema[key]))
      for (const sub of Object.values(schema[key] as Record<string, unknown>)) schemaProse(sub, out, depth + 1);
  for (const key of SCHEMA_ONES) {
    const value = schema[key];
    if (Array.isArray(value)) for (const sub of value) schemaProse(sub, out, depth + 1);
    else schemaProse(value, out, depth + 1);
  }
  for (const key of SCHEMA_LISTS)
    if (Array.isArray(schema[key])) for (const sub of schema[key] as unknown[]) schemaProse(sub, out, depth + 1);
}

/** What of a tool a model or a client reads, as one value. */
function shown(tool: UpstreamTool): Record<string, unknown> {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
    meta: tool.meta,
  };
}

/** The size of a tool's definition: its JSON's length (Infinity for one nested too deep to write). */
export function definitionSize(tool: UpstreamTool): number {
  try {
    return JSON.stringify(shown(tool)).length;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** A tool within its budget: as it was, or a copy with its prose cut (`cut` counts the strings cut). */
export type Bounded = { tool: UpstreamTool; size: number; cut: number } | { refused: string; size: number };

/**
 * `tool` within `budget` characters of definition: as it is when it fits; else a copy whose prose
 * is cut to the longest common length that fits, each cut marked; else refused, saying why.
 * @example boundDefinition({ name: 'x', description: 'y'.repeat(50_000), inputSchema: { type: 'object' } }, 16_000)
 */
export function boundDefinition(tool: UpstreamTool, budget: number): Bounded {
  const size = definitionSize(tool);
  if (size <= budget) return { tool, size, cut: 0 };
  if (size === Number.POSITIVE_INFINITY) return { refused: 'its definition is nested too deep to measure', size };
  const copy: UpstreamTool = structuredClone(tool);
  const prose: Prose[] = [];
  for (const key of ['title', 'description'] as const)
    if (typeof copy[key] === 'string')
      prose.push({ holder: copy as unknown as Record<string, unknown>, key, text: copy[key] });
  if (copy.annotations && typeof copy.annotations.title === 'string')
    prose.push({ holder: copy.annotations, key: 'title', text: copy.annotations.title });
  schemaProse(copy.inputSchema, prose, 0);
  schemaProse(copy.outputSchema, prose, 0);
  const cutTo = (length: number) => {
    for (const item of prose) item.holder[item.key] = cutText(item.text, length);
    return definitionSize(copy);
  };
  const floor = cutTo(0);
  if (floor > budget) {
    return {
      refused:
        `its definition is ${size} characters as JSON, over listing.definitionChars (${budget}), and still ` +
        `${floor} with every description and title in it cut`,
      size,
    };
  }
  // The longest common length that fits: no string alone can be longer than the budget.
  let low = 0;
  let high = Math.min(budget, Math.max(0, ...prose.map((item) => item.text.length)));
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (cutTo(mid) <= budget) low = mid;
    else high = mid - 1;
  }
  const final = cutTo(low);
  return { tool: copy, size: final, cut: prose.filter((item) => item.text.length > low).length };
}
