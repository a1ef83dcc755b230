/**
 * Turns an imported plugin module into its serializable manifest, and finds a
 * tool's handler or check again by name or id. Runs only inside workers.
 */
import { convertedSchema, isStandardSchema, validatingHandler, type SchemaLibrary } from './standard-schema.js';
import type { RawManifest, RawToolManifest } from '../../boundary/protocol.js';

type AnyFunction = (...args: unknown[]) => unknown;

/**
 * The plugin object a module exports: its default export, or the namespace itself when the
 * plugin's fields are named exports (`export const apiVersion = 1`). A module with neither
 * is told which named exports it has, since a missing `default` is the usual mistake.
 */
export function pluginObject(mod: Record<string, unknown>): Record<string, unknown> {
  if (mod.default === undefined && !('apiVersion' in mod)) {
    const names = Object.keys(mod).sort();
    throw new TypeError(
      `no default export; ` +
        `${names.length ? `found named exports: ${names.join(', ')}` : 'the module exports nothing'}. ` +
        'Export the plugin object as the default export: export default { apiVersion: 1, tools: [...] }' +
        (names.length === 1 ? ` (e.g. export default ${names[0]})` : ''),
    );
  }
  const candidate = mod.default ?? mod;
  if (typeof candidate !== 'object' || candidate === null) {
    throw new TypeError(
      `the plugin's default export is ${candidate === null ? 'null' : typeof candidate}, expected a plugin object`,
    );
  }
  return candidate as Record<string, unknown>;
}

function toolList(plugin: Record<string, unknown>): unknown[] {
  return Array.isArray(plugin.tools) ? plugin.tools : [];
}

/** Check functions in first-seen order: index i has id `c<i>`, so tools sharing a function share an id. */
function checkIds(plugin: Record<string, unknown>): Map<AnyFunction, string> {
  const ids = new Map<AnyFunction, string>();
  for (const tool of toolList(plugin)) {
    const check = (tool as { check?: unknown } | null)?.check;
    if (typeof check === 'function' && !ids.has(check as AnyFunction)) ids.set(check as AnyFunction, `c${ids.size}`);
  }
  return ids;
}

/** JSON round trip: drops functions and undefined, fails on cycles and BigInt. */
function data(value: unknown, where: string): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(JSON.stringify(value));
  } catch (error) {
    throw new TypeError(`${where} is not JSON data: ${(error as Error).message}`);
  }
}

/**
 * A tool's parameters as data: a Standard Schema object (zod, valibot…) converted to JSON
 * Schema by its library (see standard-schema.ts), anything else as it is.
 */
function parameters(value: unknown, entry: string, where: string, io: 'input' | 'output' = 'input'): unknown {
  return isStandardSchema(value) ? convertedSchema(value, entry, where, io) : data(value, where);
}

/**
 * Extracts the manifest of the plugin imported from `entry` (its file URL, where schema
 * libraries are resolved from): plain data only, functions replaced by their `typeof`.
 */
export async function extractManifest(plugin: Record<string, unknown>, entry: string): Promise<RawManifest> {
  const ids = checkIds(plugin);
  const rawTools = plugin.tools;
  const converting: Promise<void>[] = [];
  const libraries: SchemaLibrary[] = [];
  const tools = Array.isArray(rawTools)
    ? rawTools.map((tool, index): RawToolManifest => {
        if (typeof tool !== 'object' || tool === null) return { name: tool, handler: typeof tool };
        const t = tool as Record<string, unknown>;
        const out: RawToolManifest = {
          name: t.name,
          toolset: t.toolset,
          description: data(t.description, `tools[${index}].description`),
          parameters: parameters(t.parameters, entry, `tools[${index}].parameters`),
          requires: data(t.requires, `tools[${index}].requires`),
          limits: data(t.limits, `tools[${index}].limits`),
          codeCallable: t.codeCallable,
          sandbox: t.sandbox,
          annotations: data(t.annotations, `tools[${index}].annotations`),
          longRunning: t.longRunning,
          handler: typeof t.handler,
        };
        if (t.outputSchema !== undefined)
          out.outputSchema = parameters(t.outputSchema, entry, `tools[${index}].outputSchema`, 'output');
        if (t.title !== undefined) out.title = t.title;
        if (t.icons !== undefined) out.icons = data(t.icons, `tools[${index}].icons`);
        if (t.examples !== undefined) out.examples = data(t.examples, `tools[${index}].examples`);
        if (t.secrets !== undefined) out.secrets = data(t.secrets, `tools[${index}].secrets`);
        for (const key of ['parameters', 'outputSchema'] as const) {
          if (!(out[key] instanceof Promise)) continue;
          converting.push(
            (out[key] as ReturnType<typeof convertedSchema>).then(({ schema, library }) => {
              out[key] = schema;
              if (library && !libraries.some((known) => known.packageJson === library.packageJson))
                libraries.push(library);
            }),
          );
        }
        if (typeof t.check === 'function') out.checkId = ids.get(t.check as AnyFunction);
        else if (t.check !== undefined) out.checkType = typeof t.check;
        return out;
      })
    : data(rawTools, 'tools');
  await Promise.all(converting);
  const manifest: RawManifest = {
    apiVersion: plugin.apiVersion,
    toolsets: data(plugin.toolsets, 'toolsets'),
    permissions: data(plugin.permissions, 'permissions'),
    tools,
  };
  if (libraries.length) manifest.schemaLibraries = libraries;
  return manifest;
}

/**
 * The handlers of the tools whose parameters are a Standard Schema object, each behind the
 * schema's own validation (see validatingHandler); undefined when there is none, so a plugin
 * of JSON Schemas only keeps its handlers as they are.
 */
export function validatingHandlers(plugin: Record<string, unknown>): Map<string, AnyFunction> | undefined {
  let handlers: Map<string, AnyFunction> | undefined;
  for (const tool of toolList(plugin)) {
    const t = tool as { name?: unknown; parameters?: unknown; handler?: unknown } | null;
    if (
      typeof t?.name !== 'string' ||
      typeof t.handler !== 'function' ||
      !isStandardSchema(t.parameters) ||
      handlers?.has(t.name)
    )
      continue;
    (handlers ??= new Map()).set(t.name, validatingHandler(t.name, t.parameters, t.handler as AnyFunction));
  }
  return handlers;
}

/** The handler of tool `name`. */
export function findHandler(plugin: Record<string, unknown>, name: string): AnyFunction {
  for (const tool of toolList(plugin)) {
    const t = tool as { name?: unknown; handler?: unknown } | null;
    if (t?.name === name && typeof t.handler === 'function') return t.handler as AnyFunction;
  }
  throw new Error(`plugin has no handler for tool ${JSON.stringify(name)}`);
}

/** The check function with id `checkId` (see checkIds). */
export function findCheck(plugin: Record<string, unknown>, checkId: string): AnyFunction {
  for (const [fn, id] of checkIds(plugin)) if (id === checkId) return fn;
  throw new Error(`plugin has no check with id ${checkId}`);
}
