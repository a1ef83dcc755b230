/**
 * The tool-search benchmark's catalogue: realistic tool definitions of the
 * services agents are commonly given (written by hand after the shape of
 * their public APIs and MCP servers), with near-duplicates across services
 * on purpose: many `search`, `list_issues`, `send_message` and `upload`
 * tools. Parameters are written in a short notation and expanded to JSON
 * Schema here: `'!name': 'type: description'` (a leading `!` = required),
 * where type is string, integer, number, boolean, string[], object, or
 * enum(a|b|c).
 */
import dev from './dev.js';
import comms from './comms.js';
import docs from './docs.js';
import business from './business.js';
import infra from './infra.js';
import misc from './misc.js';

/** Every service: `{ toolset, description, tools: [[name, description, params]] }`. */
export const SERVICES = [...dev, ...comms, ...docs, ...business, ...infra, ...misc];

function property(spec) {
  const colon = spec.indexOf(':');
  const type = spec.slice(0, colon).trim();
  const description = spec.slice(colon + 1).trim();
  const enumMatch = /^enum\((.*)\)$/.exec(type);
  if (enumMatch) return { type: 'string', enum: enumMatch[1].split('|'), description };
  if (type === 'string[]') return { type: 'array', items: { type: 'string' }, description };
  if (type === 'object') return { type: 'object', description };
  return { type, description };
}

/** JSON Schema for a parameter notation object. */
export function schemaOf(params = {}) {
  const properties = {};
  const required = [];
  for (const [key, spec] of Object.entries(params)) {
    const name = key.startsWith('!') ? key.slice(1) : key;
    if (key.startsWith('!')) required.push(name);
    properties[name] = property(spec);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

/** Every tool as `{ name, toolset, description, parameters }`. */
export function catalogueTools() {
  const seen = new Set();
  const tools = [];
  for (const service of SERVICES) {
    for (const [name, description, params] of service.tools) {
      if (seen.has(name)) throw new Error(`catalogue: ${name} is defined twice`);
      seen.add(name);
      tools.push({ name, toolset: service.toolset, description, parameters: schemaOf(params) });
    }
  }
  return tools;
}
