/**
 * The "Try it" form's model, from a tool's JSON Schema: one field per property when every
 * property is a string, number, integer, boolean, enum or array of such scalars; otherwise no
 * fields (the page offers the JSON editor). Values are kept as the inputs hold them (text, or
 * `true` / `false` / '' for an optional boolean) and turned into arguments, or problems, before a
 * call is sent. {@link checkArgs} checks arguments written as JSON against the same few keywords
 * (the host validates them fully with ajv and says so in the result).
 */

/** A JSON Schema as the form reads it: the few keywords it looks at (a tool's schema may hold any others). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema | JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  [key: string]: unknown;
}

/** The kinds of scalar a field can hold. */
export type ScalarKind = 'string' | 'number' | 'integer' | 'boolean';

/** One input of the form. */
export interface Field {
  name: string;
  /** `array`: one item per line, each of `item` */
  kind: ScalarKind | 'enum' | 'array';
  item?: ScalarKind;
  required: boolean;
  description?: string;
  /** the allowed values of an enum, as declared */
  options?: unknown[];
}

/** What the inputs hold, by property name. */
export type FormValues = Record<string, string>;

const SCALARS: readonly string[] = ['string', 'number', 'integer', 'boolean'];

/** The one type a schema declares, ignoring a `null` alongside it. */
function typeOf(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== 'null');
    return types.length === 1 ? types[0] : undefined;
  }
  return schema.type;
}

/** The field for one property, or undefined when the form cannot hold it. */
function fieldOf(name: string, schema: JsonSchema, required: boolean): Field | undefined {
  const base = {
    name,
    required,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
  };
  if (
    Array.isArray(schema.enum) &&
    schema.enum.length > 0 &&
    schema.enum.every((v) => v === null || typeof v !== 'object')
  )
    return { ...base, kind: 'enum', options: schema.enum };
  const type = typeOf(schema);
  if (type && SCALARS.includes(type)) return { ...base, kind: type as ScalarKind };
  if (type === 'array' && schema.items && !Array.isArray(schema.items)) {
    const item = typeOf(schema.items);
    if (item && SCALARS.includes(item) && !schema.items.enum)
      return { ...base, kind: 'array', item: item as ScalarKind };
  }
  return undefined;
}

/** The form's fields for a tool's parameters, or undefined when only the JSON editor fits. */
export function formFields(schema: JsonSchema): Field[] | undefined {
  if (typeOf(schema) !== 'object' && !schema.properties) return undefined;
  const required = new Set(schema.required ?? []);
  const fields: Field[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const field =
      typeof property === 'object' && property !== null ? fieldOf(name, property, required.has(name)) : undefined;
    if (!field) return undefined;
    fields.push(field);
  }
  return fields;
}

/** A scalar typed in an input, as `kind`, or a problem. */
function scalar(text: string, kind: ScalarKind): { value: unknown } | { problem: string } {
  if (kind === 'string') return { value: text };
  if (kind === 'boolean')
    return text === 'true' || text === 'false' ? { value: text === 'true' } : { problem: 'must be true or false' };
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value)) return { problem: 'must be a number' };
  if (kind === 'integer' && !Number.isInteger(value)) return { problem: 'must be an integer' };
  return { value };
}

/** The arguments the inputs stand for, or the problems to fix first (one line each, starting with the field's name). */
export function argsFromForm(
  fields: Field[],
  values: FormValues,
): { args: Record<string, unknown> } | { problems: string[] } {
  const args: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const field of fields) {
    const text = values[field.name] ?? '';
    if (text === '') {
      if (field.required) problems.push(`${field.name}: required`);
      continue;
    }
    if (field.kind === 'enum') {
      args[field.name] = field.options?.[Number(text)];
      continue;
    }
    if (field.kind === 'array') {
      const items = text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => scalar(field.item === 'string' ? line : line.trim(), field.item ?? 'string'));
      const bad = items.find((item) => 'problem' in item);
      if (bad && 'problem' in bad) problems.push(`${field.name}: each line ${bad.problem}`);
      else args[field.name] = items.map((item) => ('value' in item ? item.value : undefined));
      continue;
    }
    const parsed = scalar(text, field.kind);
    if ('problem' in parsed) problems.push(`${field.name}: ${parsed.problem}`);
    else args[field.name] = parsed.value;
  }
  return problems.length > 0 ? { problems } : { args };
}

/**
 * The inputs' contents for a set of arguments (an example, or JSON the operator wrote), for the fields that take them.
 */
export function formFromArgs(fields: Field[], args: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const value = args[field.name];
    if (value === undefined) continue;
    if (field.kind === 'enum') {
      const index = field.options?.indexOf(value) ?? -1;
      if (index >= 0) values[field.name] = String(index);
    } else if (field.kind === 'array' && Array.isArray(value)) values[field.name] = value.map(String).join('\n');
    else values[field.name] = String(value);
  }
  return values;
}

/** Whether `value` is of JSON Schema type `type`. */
function isOfType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

/**
 * The problems of `value` against `schema`'s type, enum, required and properties (recursively), each with its JSON
 * pointer.
 */
export function checkArgs(value: unknown, schema: JsonSchema, pointer = ''): string[] {
  const where = pointer || '/';
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 0 && !types.some((type) => isOfType(value, type)))
    return [`${where}: must be ${types.join(' or ')}`];
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value)))
    return [`${where}: must be one of ${schema.enum.map((o) => JSON.stringify(o)).join(', ')}`];
  const problems: string[] = [];
  if (isOfType(value, 'object')) {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!(name in object)) problems.push(`${pointer}/${name}: required`);
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (name in object && typeof property === 'object' && property !== null)
        problems.push(...checkArgs(object[name], property, `${pointer}/${name}`));
    }
  }
  if (Array.isArray(value) && schema.items && !Array.isArray(schema.items)) {
    const items = schema.items;
    value.forEach((item, index) => problems.push(...checkArgs(item, items, `${pointer}/${index}`)));
  }
  return problems;
}
