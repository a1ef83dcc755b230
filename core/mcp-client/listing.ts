/**
 * One server's `tools/list`, bounded: at most `listing.pages` pages, the
 * first `listing.tools` tools, the whole listing within `listing.timeoutMs`,
 * every description cut at `listing.descriptionChars` (marked where cut), and
 * each tool's whole definition within `listing.definitionChars`
 * (definition-budget.ts: its prose cut and marked, or the tool left out).
 * Each page is read loosely (any shape of tool passes the SDK), and only the
 * tools kept are checked one by one, by hand, so a reply of 100,000 tools costs one
 * JSON parse, not 100,000 checks. What was cut or left out is said in notes
 * for explain.
 */
import { SdkError, SdkErrorCode, type Client } from '@modelcontextprotocol/client';
import { compile, formatProblems, problems } from '../schema/schema.js';
import { readDialect } from '../schema/schema-dialect.js';
import type { ListingLimits } from './config.js';
import type { UpstreamTool } from './tools.js';
import type { Icon } from '../../boundary/plugin-api.js';
import { definitionHash, legacyDefinitionHash } from './definition-pins.js';
import { boundDefinition, cutText } from './definition-budget.js';

/** What one listing kept, and what it says about what it did not. */
export interface Listing {
  tools: UpstreamTool[];
  /** output schemas by the server's tool name (compiled at the first call that returns structured content) */
  outputSchemas: Map<string, object>;
  /** for explain: limits reached, tools left out */
  notes: string[];
}

/** A listing that did not finish within `listing.timeoutMs`. */
export class ListingTimeout extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly pages: number,
    readonly tools: number,
  ) {
    super(
      `did not finish listing its tools within ${timeoutMs} ms (listing.timeoutMs; ${pages} page` +
        `${pages === 1 ? '' : 's'} and ${tools} tools read), so the listing was abandoned`,
    );
    this.name = 'ListingTimeout';
  }
}

/** Notes on tools that were not valid MCP tools: the first few by position, then a count. */
const INVALID_NOTES = 5;

/** A Standard Schema that takes any page as it is: the tools are checked one by one below, only those kept. */
const ANY_PAGE = {
  '~standard': {
    version: 1,
    vendor: 'toolshed',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
} as const;

/** Reads pages until the server stops paging, or a limit is reached. */
async function readPages(client: Client, limits: ListingLimits, notes: string[]): Promise<unknown[]> {
  const deadline = Date.now() + limits.timeoutMs;
  const raw: unknown[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    if (pages === limits.pages) {
      notes.push(
        `it kept returning nextCursor: listing stopped after ${limits.pages} pages (listing.pages); tools on ` +
          `later pages are left out`,
      );
      break;
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new ListingTimeout(limits.timeoutMs, pages, raw.length);
    let page: { tools?: unknown; nextCursor?: unknown };
    try {
      page = (await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ANY_PAGE, {
        timeout: remaining,
      })) as typeof page;
    } catch (error) {
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
        throw new ListingTimeout(limits.timeoutMs, pages, raw.length);
      throw error;
    }
    pages++;
    const tools = (page as { tools?: unknown }).tools;
    if (!Array.isArray(tools)) throw new Error(`its tools/list reply has no tools array (page ${pages})`);
    for (const tool of tools) raw.push(tool);
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    if (raw.length > limits.tools) break;
  } while (cursor !== undefined);
  if (raw.length > limits.tools) {
    notes.push(
      `it listed ${cursor === undefined ? raw.length : `more than ${limits.tools}`} tools: only the first ` +
        `${limits.tools} are kept (listing.tools)`,
    );
    raw.length = limits.tools;
  }
  return raw;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What makes `tool` not an MCP tool, for the fields toolshed reads (checked by hand: the SDK's
 * zod schema costs tens of milliseconds of the host's thread per thousand tools, at every re-list).
 */
function notATool(tool: Record<string, unknown>): string | undefined {
  if (typeof tool.name !== 'string') return 'name: not a string';
  if (!isObject(tool.inputSchema) || tool.inputSchema.type !== 'object') return 'inputSchema: not an object schema';
  if (tool.outputSchema !== undefined && (!isObject(tool.outputSchema) || tool.outputSchema.type !== 'object'))
    return 'outputSchema: not an object schema';
  for (const key of ['description', 'title'] as const)
    if (tool[key] !== undefined && typeof tool[key] !== 'string') return `${key}: not a string`;
  for (const key of ['annotations', 'execution'] as const)
    if (tool[key] !== undefined && !isObject(tool[key])) return `${key}: not an object`;
  return undefined;
}

/** Icons kept of one tool: a client shows one or two. */
const MAX_ICONS = 8;
/** Characters of one icon's `src` kept (a data: URI of a small image fits). */
const MAX_ICON_SRC = 20_000;
/** A tool's `_meta` longer than this as JSON is left out, with a note. */
const MAX_META_CHARS = 4_000;

/** The icons of a tool that have the MCP shape (a string `src`, within the limits); the rest are left out. */
function iconsOf(value: unknown): Icon[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const icons: Icon[] = [];
  for (const item of value.slice(0, MAX_ICONS)) {
    if (!isObject(item) || typeof item.src !== 'string' || item.src.length > MAX_ICON_SRC) continue;
    const icon: Icon = { src: item.src };
    if (typeof item.mimeType === 'string') icon.mimeType = item.mimeType;
    if (Array.isArray(item.sizes) && item.sizes.every((size) => typeof size === 'string'))
      icon.sizes = item.sizes as string[];
    if (item.theme === 'light' || item.theme === 'dark') icon.theme = item.theme;
    icons.push(icon);
  }
  return icons.length ? icons : undefined;
}

/** A tool's `_meta`, when it is an object small enough to pass on. */
function metaOf(value: unknown): Record<string, unknown> | undefined {
  if (!isObject(value)) return undefined;
  const json = JSON.stringify(value);
  return json.length <= MAX_META_CHARS ? value : undefined;
}

/** A kept tool checked against the MCP tool shape, its description and title cut, its definition within its budget. */
function takeTool(
  raw: unknown,
  limits: ListingLimits,
  listing: Listing,
): { tool: UpstreamTool; cut: boolean; budgetCut: boolean } | { refused: string } | string {
  if (!isObject(raw)) return 'not an object';
  const wrong = notATool(raw);
  if (wrong) return wrong;
  const { name, title, description, inputSchema, outputSchema, annotations, execution } =
    raw as unknown as UpstreamTool;
  const tool: UpstreamTool = { name, inputSchema };
  if (outputSchema) tool.outputSchema = outputSchema;
  if (annotations) tool.annotations = annotations;
  if (execution) tool.execution = execution;
  const icons = iconsOf(raw.icons);
  if (icons) tool.icons = icons;
  const meta = metaOf(raw._meta);
  if (meta) tool.meta = meta;
  else if (raw._meta !== undefined)
    listing.notes.push(
      `tool ${name}: its _meta is not passed on (not an object, or longer than ${MAX_META_CHARS} characters as JSON)`,
    );
  const cut = (description?.length ?? 0) > limits.descriptionChars;
  const sent = {
    ...tool,
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
  } as UpstreamTool;
  if (description !== undefined) tool.description = cutText(description, limits.descriptionChars);
  if (title !== undefined) tool.title = cutText(title, limits.descriptionChars);
  const bounded = boundDefinition(tool, limits.definitionChars);
  if ('refused' in bounded) return { refused: bounded.refused };
  const taken = bounded.tool;
  // A pin is of what the server sent: the operator changing listing.descriptionChars or definitionChars changes no
  // definition.
  if (cut || (title?.length ?? 0) > limits.descriptionChars || bounded.cut) {
    taken.definitionHash = definitionHash(sent);
    taken.legacyHash = legacyDefinitionHash(sent);
  }
  if (taken.outputSchema) listing.outputSchemas.set(name, outputSchema!);
  return { tool: taken, cut, budgetCut: bounded.cut > 0 };
}

/** Lists a server's tools within its listing limits; throws ListingTimeout past its deadline. */
export async function listTools(client: Client, limits: ListingLimits): Promise<Listing> {
  const listing: Listing = { tools: [], outputSchemas: new Map(), notes: [] };
  const raw = await readPages(client, limits, listing.notes);
  let invalid = 0;
  let cut = 0;
  let refused = 0;
  const budgetCut: string[] = [];
  raw.forEach((item, at) => {
    const taken = takeTool(item, limits, listing);
    if (typeof taken === 'string') {
      if (++invalid <= INVALID_NOTES)
        listing.notes.push(`tool number ${at + 1} left out: it is not a valid MCP tool (${taken})`);
    } else if ('refused' in taken) {
      if (++refused <= INVALID_NOTES)
        listing.notes.push(
          `tool ${JSON.stringify((item as { name: string }).name.slice(0, 64))} left out: ${taken.refused}`,
        );
    } else {
      if (taken.cut) cut++;
      if (taken.budgetCut) budgetCut.push(taken.tool.name);
      listing.tools.push(taken.tool);
    }
  });
  if (invalid > INVALID_NOTES)
    listing.notes.push(`and ${invalid - INVALID_NOTES} more tools left out for the same reason`);
  if (refused > INVALID_NOTES)
    listing.notes.push(
      `and ${refused - INVALID_NOTES} more tools left out: their definitions are over listing.definitionChars (` +
        `${limits.definitionChars})`,
    );
  if (cut)
    listing.notes.push(
      `${cut} tool description${cut === 1 ? ' was' : 's were'} longer than ${limits.descriptionChars} ` +
        `characters (listing.descriptionChars) and cut where marked`,
    );
  if (budgetCut.length) {
    const names = budgetCut
      .slice(0, INVALID_NOTES)
      .map((name) => JSON.stringify(name.slice(0, 64)))
      .join(', ');
    const more = budgetCut.length > INVALID_NOTES ? ` and ${budgetCut.length - INVALID_NOTES} more` : '';
    listing.notes.push(
      `the definition${budgetCut.length === 1 ? '' : 's'} of ${names}${more} ` +
        `${budgetCut.length === 1 ? 'was' : 'were'} longer than ${limits.definitionChars} characters as JSON ` +
        `(listing.definitionChars): the descriptions and titles in ${budgetCut.length === 1 ? 'it' : 'them'} ` +
        `were cut where marked`,
    );
  }
  return listing;
}

/** What the SDK's client checks a call's structured content with. */
type OutputValidator = (
  input: unknown,
) => { valid: true; data: unknown; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };

/**
 * The validator of a tool's output schema for the SDK's `callTool`, compiled at its first use
 * into toolshed's bounded cache; undefined when the tool has no output schema.
 */
export function outputValidator(schema: object | undefined): OutputValidator | undefined {
  if (!schema) return undefined;
  return (input) => {
    let validate;
    try {
      validate = compile(schema, { dialect: readDialect(schema, 'mcp').dialect });
    } catch (error) {
      return {
        valid: false,
        data: undefined,
        errorMessage: `its outputSchema does not compile: ${(error as Error).message}`,
      };
    }
    if (validate(input)) return { valid: true, data: input, errorMessage: undefined };
    return { valid: false, data: undefined, errorMessage: formatProblems(problems(validate.errors)) };
  };
}
