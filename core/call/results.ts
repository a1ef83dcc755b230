/**
 * The result of a tool that declares an `outputSchema`: its text must be the JSON of an object
 * that matches the schema (a handler returns the object; a string or `{ content }` whose text is
 * such JSON is taken the same way, since the tier sends text). The object is validated with a
 * validator compiled once per tool and kept here (like the argument validators,
 * arguments.ts), and travels on as the outcome's structured content, beside the text the model
 * reads. Anything else is TOOL_RESULT_INVALID, naming what was wrong and where.
 */
import { compile, problems } from '../schema/schema.js';
import { readDialect } from '../schema/schema-dialect.js';
import { failure, type CallOutcome } from '../../boundary/outcome.js';
import { capText } from '../../boundary/normalize.js';
import type { ValidateFunction } from 'ajv';
import type { NormalizedResult } from '../../boundary/protocol.js';
import type { RunOutcome } from '../../boundary/runner-failure.js';
import type { ToolRecord } from '../load/types.js';

/** Problems listed in one message; the rest are counted. */
const MAX_LISTED_PROBLEMS = 5;

/** Each tool's result validator, by its record: a replaced plugin set brings new records and new schemas. */
const compiled = new WeakMap<ToolRecord, ValidateFunction>();

function validatorOf(record: ToolRecord, schema: object): ValidateFunction {
  let validate = compiled.get(record);
  if (!validate) {
    // Checked at load (core/load/tool-metadata.ts): its $schema is one toolshed reads, and it compiles.
    validate = compile(schema, { dialect: readDialect(schema, 'plugin').dialect });
    compiled.set(record, validate);
  }
  return validate;
}

/** The outcome's failure, worded as every TOOL_RESULT_INVALID is: the plugin's bug, not the call's. */
function invalid(record: ToolRecord, what: string, maxChars: number): CallOutcome {
  const plugin = record.plugin.source.name;
  const message =
    `${record.name} (plugin ${plugin}) ${what} This is a bug in ${plugin}, not in the call: report it to the ` +
    `plugin's author.`;
  return failure('TOOL_RESULT_INVALID', capText(message, maxChars));
}

/**
 * The outcome of a call to `record`, a tool with an outputSchema, whose tier answered `run`
 * (`mapped` is that answer as tierOutcome maps it): a success becomes `{ ok, text, content: {
 * blocks: [text], structured } }` when its text is the JSON of an object the schema accepts, else
 * TOOL_RESULT_INVALID. A result over `maxResultChars` cannot be structured (its text was cut), so
 * it is TOOL_RESULT_INVALID too; failures pass as they are.
 */
export function structuredOutcome(
  record: ToolRecord,
  run: RunOutcome<NormalizedResult>,
  mapped: CallOutcome,
  maxResultChars: number,
): CallOutcome {
  const schema = record.manifest.outputSchema;
  if (!schema || !mapped.ok || !run.ok) return mapped;
  const { text, originalLength, content } = run.value;
  // A runner that speaks to an MCP server may bring the server's structuredContent: that is the value.
  const given = content?.structured;
  // The result cap left it out (tierOutcome): a cut one matches no schema, and the tool promises one.
  if (given !== undefined && mapped.content?.structured === undefined) {
    return invalid(
      record,
      `returned structured content of ${JSON.stringify(given).length} characters, over the limit of ` +
        `${maxResultChars} (maxResultChars): a tool with an outputSchema must return structured content that ` +
        `fits, since a cut one matches no schema.`,
      maxResultChars,
    );
  }
  if (!given && Math.max(originalLength, text.length) > maxResultChars) {
    return invalid(
      record,
      `returned a structured result of ${originalLength} characters, over the limit of ${maxResultChars} ` +
        `(maxResultChars): a tool with an outputSchema must return an object that fits, since a cut one matches ` +
        `no schema.`,
      maxResultChars,
    );
  }
  let value: unknown = given;
  if (value === undefined) {
    try {
      value = JSON.parse(text);
    } catch {
      return invalid(
        record,
        'returned text that is not JSON, but it declares an outputSchema: its handler must return an object ' +
          'matching that schema.',
        maxResultChars,
      );
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return invalid(
      record,
      `returned ${kind}, but it declares an outputSchema: its handler must return an object matching that schema.`,
      maxResultChars,
    );
  }
  const validate = validatorOf(record, schema);
  if (!validate(value)) {
    const list = problems(validate.errors);
    const lines = list.slice(0, MAX_LISTED_PROBLEMS).map((p) => `${p.pointer || '/'} ${p.message}`);
    if (list.length > lines.length) lines.push(`and ${list.length - lines.length} more`);
    return invalid(
      record,
      `returned a result that does not match its outputSchema: ${lines.join('; ')}.`,
      maxResultChars,
    );
  }
  const blocks = mapped.content?.blocks ?? [{ type: 'text' as const, text: mapped.text }];
  return { ok: true, text: mapped.text, content: { blocks, structured: value as Record<string, unknown> } };
}
