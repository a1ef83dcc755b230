/** Nesting beyond this renders as `unknown`, so recursive `$ref`s and huge schemas stay bounded. */
const MAX_DEPTH = 12;

/**
 * The depth limit of the render under way (renders are synchronous, so one at a time):
 * MAX_DEPTH, or less for a result type that must stay short (resultType).
 */
let depthLimit = MAX_DEPTH;

/** A result type longer than this is rendered again, shallower. */
const MAX_RESULT_TYPE_CHARS = 1_500;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

type Schema = Record<string, unknown>;

/**
 * Renders a JSON Schema as a one-line TypeScript type: optional marks from `required`, enums and
 * consts as literal unions, nested objects inline with `/** *\/` property docs, arrays, tuples,
 * unions (`anyOf`/`oneOf`/type lists), intersections (`allOf`) and local `$ref`s.
 */
export function schemaToType(schema: unknown, root: unknown = schema): string {
  return render(schema, root, 0);
}

/**
 * A tool's result type from its outputSchema, kept short because it goes in front of the model:
 * rendered whole when it fits MAX_RESULT_TYPE_CHARS, else shallower (nested parts as `unknown`),
 * else as `Record<string, unknown>` (an outputSchema's root is always an object).
 */
export function resultType(schema: unknown): string {
  for (const limit of [MAX_DEPTH, 3, 1]) {
    depthLimit = limit;
    try {
      const type = render(schema, schema, 0);
      if (type.length <= MAX_RESULT_TYPE_CHARS) return type;
    } finally {
      depthLimit = MAX_DEPTH;
    }
  }
  return 'Record<string, unknown>';
}

/** Whether an arguments schema lets the caller omit the whole object (no required property). */
export function argsAreOptional(schema: unknown, root: unknown = schema): boolean {
  const resolved = resolve(schema, root, 0);
  if (!isSchema(resolved)) return true;
  return !Array.isArray(resolved.required) || resolved.required.length === 0;
}

/** Formats text as the body of a single-line `/** … *\/` comment. */
export function commentText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/\*\//g, '*\\/');
}

/** Quotes a property or method name when it is not a plain identifier. */
export function propertyName(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function render(schema: unknown, root: unknown, depth: number): string {
  if (schema === false) return 'never';
  if (!isSchema(schema) || depth > depthLimit) return 'unknown';
  if (typeof schema.$ref === 'string') return render(resolve(schema, root, depth), root, depth + 1);
  const base = renderBase(schema, root, depth);
  return schema.nullable === true && base !== 'unknown' ? union([base, 'null']) : base;
}

function renderBase(schema: Schema, root: unknown, depth: number): string {
  if ('const' in schema && isLiteral(schema.const)) return literal(schema.const);
  if (Array.isArray(schema.enum)) {
    const members = schema.enum.filter(isLiteral).map(literal);
    return members.length === schema.enum.length && members.length > 0 ? union(members) : 'unknown';
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0)
      return union(options.map((option) => render(option, root, depth + 1)));
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const parts = schema.allOf.map((part) => render(part, root, depth + 1));
    return parts.length === 1 ? (parts[0] ?? 'unknown') : parts.map(wrapCompound).join(' & ');
  }
  const types = typeList(schema);
  if (types.length === 0) return 'unknown';
  return union(types.map((type) => renderType(type, schema, root, depth)));
}

function typeList(schema: Schema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((type): type is string => typeof type === 'string');
  if (isSchema(schema.properties) || 'additionalProperties' in schema || 'patternProperties' in schema)
    return ['object'];
  if ('items' in schema || 'prefixItems' in schema) return ['array'];
  return [];
}

function renderType(type: string, schema: Schema, root: unknown, depth: number): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return renderArray(schema, root, depth);
    case 'object':
      return renderObject(schema, root, depth);
    default:
      return 'unknown';
  }
}

function renderArray(schema: Schema, root: unknown, depth: number): string {
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : undefined;
  if (tuple !== undefined) return `[${tuple.map((item) => render(item, root, depth + 1)).join(', ')}]`;
  const item = 'items' in schema ? render(schema.items, root, depth + 1) : 'unknown';
  return `${wrapCompound(item)}[]`;
}

function renderObject(schema: Schema, root: unknown, depth: number): string {
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((key) => typeof key === 'string') : [],
  );
  const members: string[] = [];
  if (isSchema(schema.properties)) {
    for (const [key, property] of Object.entries(schema.properties)) {
      const optional = required.has(key) ? '' : '?';
      members.push(
        `${propertyDoc(property, root)}${propertyName(key)}${optional}: ${render(property, root, depth + 1)}`,
      );
    }
  }
  const extra = schema.additionalProperties;
  const patterns = isSchema(schema.patternProperties) ? Object.values(schema.patternProperties) : [];
  if (extra === true || isSchema(extra) || patterns.length > 0) {
    const values = [
      ...(isSchema(extra) ? [render(extra, root, depth + 1)] : extra === true ? ['unknown'] : []),
      ...patterns.map((p) => render(p, root, depth + 1)),
    ];
    const valueType = values.includes('unknown') ? 'unknown' : union(values);
    if (members.length === 0) return `Record<string, ${valueType}>`;
    members.push(`[key: string]: ${valueType}`);
  }
  if (members.length === 0) return extra === false ? '{}' : 'Record<string, unknown>';
  return `{ ${members.join('; ')} }`;
}

function propertyDoc(property: unknown, root: unknown): string {
  const resolved = resolve(property, root, 0);
  // A description or default next to a `$ref` describes this use of it, so it wins.
  const own = isSchema(property) ? property : {};
  const target = isSchema(resolved) ? resolved : {};
  const description = typeof own.description === 'string' ? own.description : target.description;
  const fallback = 'default' in own ? own.default : target.default;
  const parts: string[] = [];
  if (typeof description === 'string' && description.trim() !== '') parts.push(description);
  if (fallback !== undefined) parts.push(`(default: ${JSON.stringify(fallback)})`);
  return parts.length === 0 ? '' : `/** ${commentText(parts.join(' '))} */ `;
}

/** Follows local `$ref`s (`#/…` JSON pointers into the root schema). */
function resolve(schema: unknown, root: unknown, depth: number): unknown {
  let current = schema;
  for (let hops = 0; isSchema(current) && typeof current.$ref === 'string'; hops += 1) {
    if (hops + depth > depthLimit) return undefined;
    current = pointer(root, current.$ref);
  }
  return current;
}

function pointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchema(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function union(members: string[]): string {
  const unique = [...new Set(members)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.join(' | ');
}

/** Parenthesises a union or intersection so `[]` or `&` binds to the whole of it. */
function wrapCompound(type: string): string {
  return hasTopLevelOperator(type) ? `(${type})` : type;
}

function hasTopLevelOperator(type: string): boolean {
  let depth = 0;
  for (let i = 0; i < type.length; i += 1) {
    const char = type[i];
    if (char === '"') {
      // Skip a JSON string literal, escapes included.
      for (i += 1; i < type.length && type[i] !== '"'; i += 1) if (type[i] === '\\') i += 1;
    } else if (char === '{' || char === '[' || char === '(' || char === '<') {
      depth += 1;
    } else if (char === '}' || char === ']' || char === ')' || char === '>') {
      depth -= 1;
    } else if (depth === 0 && (char === '|' || char === '&') && type[i - 1] === ' ' && type[i + 1] === ' ') {
      return true;
    }
  }
  return false;
}

function literal(value: string | number | boolean | null): string {
  return JSON.stringify(value);
}

function isLiteral(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
